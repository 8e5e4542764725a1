// ValidatingAdmissionPolicy with two replicas on one PostgreSQL database: a policy and binding written through one
// replica are in force on the other within a second (its informers see them through the storage watch, no restart),
// and deleting the binding through the other lifts the policy on both; a param written through one replica decides on
// the other as soon as its param informer sees it.
import { expect } from 'chai';
import { replicasOnPostgres, type Replica } from '../helpers/replicas.js';
import { createNamespace, eventually } from '../helpers/api.js';

const AR = '/apis/admissionregistration.k8s.io/v1';

describe('ValidatingAdmissionPolicy across two replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let a: Replica;
  let b: Replica;

  before(async () => {
    [a, b] = await Promise.all([env.cluster.start('a', []), env.cluster.start('b', [])]);
  });

  it('a policy written through one replica refuses on the other, and a binding deleted there lifts it', async () => {
    const ns = await createNamespace(a, 'vap-rep');
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'probe' } };
    const probe = (r: Replica) => r.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm });
    expect((await probe(b)).status).to.equal(201);
    const policy = await a.request('POST', `${AR}/validatingadmissionpolicies`, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-probes' },
        spec: {
          matchConstraints: {
            resourceRules: [
              { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
            ],
          },
          validations: [{ expression: "object.metadata.name != 'probe'", message: 'no probes', reason: 'Forbidden' }],
        },
      },
    });
    expect(policy.status, policy.body).to.equal(201);
    const bound = await a.request('POST', `${AR}/validatingadmissionpolicybindings`, {
      body: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: 'no-probes' },
        spec: {
          policyName: 'no-probes',
          validationActions: ['Deny'],
          matchResources: { namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } } },
        },
      },
    });
    expect(bound.status, bound.body).to.equal(201);
    const refused = await eventually(
      'in force on b',
      async () => ((await probe(b)).status === 403 ? true : undefined),
      1_000,
    );
    expect(refused).to.equal(true);
    expect((await probe(a)).status).to.equal(403);

    expect((await b.request('DELETE', `${AR}/validatingadmissionpolicybindings/no-probes`)).status).to.equal(200);
    await eventually('lifted on a', async () => (await probe(a)).status === 201, 1_000);
  });
  it('a param created or changed through one replica decides on the other within a second', async () => {
    const ns = await createNamespace(a, 'vap-rep-params');
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { a: '1', b: '2' } };
    const probe = (r: Replica) => r.request('POST', `/api/v1/namespaces/${ns}/secrets?dryRun=All`, { body: secret });
    const write = async (r: Replica, method: 'POST' | 'PUT', path: string, body: unknown) => {
      const res = await r.request(method, path, { body });
      expect(res.status, res.body).to.be.oneOf([200, 201]);
    };
    await write(a, 'POST', `${AR}/validatingadmissionpolicies`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'max-keys' },
      spec: {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: {
          resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['secrets'] }],
        },
        validations: [{ expression: 'size(object.data) <= int(params.data.max)', reason: 'Forbidden' }],
      },
    });
    await write(a, 'POST', `${AR}/validatingadmissionpolicybindings`, {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'max-keys' },
      spec: {
        policyName: 'max-keys',
        validationActions: ['Deny'],
        paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
        matchResources: { namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } } },
      },
    });
    await eventually('no params on b', async () => (await probe(b)).body.includes('no params found') || undefined);
    const limits = (max: string) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'limits' },
      data: { max },
    });
    await write(a, 'POST', `/api/v1/namespaces/${ns}/configmaps`, limits('1'));
    await eventually('the param on b', async () => (await probe(b)).status === 403, 1_000);
    await write(b, 'PUT', `/api/v1/namespaces/${ns}/configmaps/limits`, limits('2'));
    await eventually('the changed param on a', async () => (await probe(a)).status === 201, 1_000);
  });
});
