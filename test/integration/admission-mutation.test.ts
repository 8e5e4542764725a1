// The mutating admission phase through the registry, with a test plugin in the server's own admission list: what it
// changes is stored (create, update, patch, apply, status), answered but not stored on a dry run, checked again
// against the kind's schema and rules, kept from the object's identity, left out of the request's ownership as
// upstream records it before admission, and seen by the validating phase, with the request as the client made it.
import { expect } from 'chai';
import { cloneJson } from '../../api/meta/clone.js';
import { errors } from '../../api/meta/errors.js';
import type { AdmissionPlugin } from '../../gateway/admission/plugin.js';
import type { AdmissionRequest, DeleteAdmissionRequest } from '../../gateway/registry/admission-types.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, MERGE, readObject } from '../helpers/api.js';
import { cm } from '../helpers/admission-policy.js';
import { createKubectl } from '../helpers/kubectl.js';

const LABEL = 'admission.test/mutated';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Mutation = (req: AdmissionRequest) => void;

/** The default mutation: a label on the object, and on a status write an observedGeneration. */
const labelIt: Mutation = (req) => {
  req.object.metadata.labels = { ...req.object.metadata.labels, [LABEL]: 'true' };
  if (req.subresource === 'status') (req.object.status as Record<string, unknown>).observedGeneration = 7;
};

const replicaSet = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

/** The fields the request's manager owns, from the stored object's managedFields. */
function ownedBy(obj: any, manager: string): any {
  const entry = (obj.metadata.managedFields ?? []).find((e: any) => e.manager === manager);
  expect(entry, `an entry of ${manager}`).to.not.equal(undefined);
  return entry.fieldsV1;
}

describe('the mutating admission phase', function () {
  let gh: TestGatehouse;
  let ns: string;
  let mutation: Mutation = labelIt;
  let refuse: (req: AdmissionRequest) => boolean = () => false;
  const mutated: AdmissionRequest[] = [];
  const mutatedDeletions: DeleteAdmissionRequest[] = [];
  const validated: (AdmissionRequest | DeleteAdmissionRequest)[] = [];
  const plugin: AdmissionPlugin = {
    name: 'TestMutation',
    handles: (def) => ['ConfigMap', 'ReplicaSet', 'Role', 'ServiceAccount'].includes(def.kind),
    async mutate(req) {
      if (req.namespace !== ns) return;
      mutated.push(req);
      mutation(req);
    },
    async mutateDelete(req) {
      if (req.namespace === ns) mutatedDeletions.push(req);
    },
    async validate(req) {
      if (req.namespace !== ns) return;
      validated.push({ ...req, object: cloneJson(req.object) });
      if (refuse(req))
        throw errors.forbidden({ group: '', resource: req.def.resource }, req.name, 'refused by the test');
    },
    async validateDelete(req) {
      if (req.namespace === ns) validated.push(req);
    },
  };
  const cms = () => `/api/v1/namespaces/${ns}/configmaps`;

  before(async () => {
    gh = await startTestGatehouse([], { admissionPlugins: [plugin] });
    ns = await createNamespace(gh, 'mutation');
  });
  after(async () => gh.close());
  beforeEach(() => {
    mutation = labelIt;
    refuse = () => false;
    mutated.length = 0;
    validated.length = 0;
  });

  async function createConfigMap(name: string, query = ''): Promise<any> {
    const res = await gh.request('POST', `${cms()}${query}`, { body: cm(name, {}, { a: '1' }) });
    expect(res.status, res.body).to.equal(201);
    return res.json();
  }

  it('stores what a create, an update and a merge patch were mutated into, and validating admission sees it', async () => {
    const created = await createConfigMap('writes', '?fieldManager=tester');
    expect(created.metadata.labels).to.deep.equal({ [LABEL]: 'true' });
    expect((validated[0] as AdmissionRequest).object.metadata.labels).to.deep.equal({ [LABEL]: 'true' });

    const put = await gh.request('PUT', `${cms()}/writes`, {
      body: { ...cm('writes', { other: 'x' }, { a: '2' }), metadata: { name: 'writes', labels: { other: 'x' } } },
    });
    expect(put.status, put.body).to.equal(200);
    expect(put.json().metadata.labels).to.deep.equal({ other: 'x', [LABEL]: 'true' });

    const patched = await gh.request('PATCH', `${cms()}/writes`, {
      headers: MERGE,
      body: { metadata: { labels: { [LABEL]: null } }, data: { a: '3' } },
    });
    expect(patched.status, patched.body).to.equal(200);
    const stored = await readObject(gh, `${cms()}/writes`);
    expect(stored.metadata.labels).to.deep.equal({ other: 'x', [LABEL]: 'true' });
    expect(stored.data).to.deep.equal({ a: '3' });
    expect(validated.map((r) => r.operation)).to.deep.equal(['CREATE', 'UPDATE', 'UPDATE']);
    for (const req of validated) expect((req as AdmissionRequest).object.metadata.labels?.[LABEL]).to.equal('true');
  });

  it('leaves what a mutation set out of the ownership of the request, as upstream records it before admission', async () => {
    const created = await createConfigMap('owned', '?fieldManager=tester');
    const fields = ownedBy(created, 'tester');
    expect(fields).to.have.nested.property('f:data.f:a');
    expect(fields['f:metadata']['f:labels']).to.not.have.property(`f:${LABEL}`);

    const applied = await gh.request('PATCH', `${cms()}/applied?fieldManager=applier`, {
      headers: APPLY,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { b: '1' } }),
    });
    expect(applied.status, applied.body).to.equal(201);
    expect(applied.json().metadata.labels).to.deep.equal({ [LABEL]: 'true' });
    const applyFields = ownedBy(applied.json(), 'applier');
    expect(applyFields).to.deep.equal({ 'f:data': { 'f:b': {} } });

    // An apply of the existing object: the mutation again, ownership unchanged, and no conflict over the label.
    const again = await gh.request('PATCH', `${cms()}/applied?fieldManager=applier`, {
      headers: APPLY,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { b: '2' } }),
    });
    expect(again.status, again.body).to.equal(200);
    expect(again.json().data).to.deep.equal({ b: '2' });
    expect(again.json().metadata.labels).to.deep.equal({ [LABEL]: 'true' });
    expect(ownedBy(again.json(), 'applier')).to.deep.equal(applyFields);
  });

  it('mutates a status write as upstream prepares it: the status is kept, metadata comes from the stored object', async () => {
    const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    mutation = (req) => {
      if (req.subresource === 'status') labelIt(req);
    };
    const created = await gh.request('POST', rsPath, { body: replicaSet('web') });
    expect(created.status, created.body).to.equal(201);
    const status = await gh.request('PUT', `${rsPath}/web/status`, {
      body: { ...created.json(), status: { replicas: 1 } },
    });
    expect(status.status, status.body).to.equal(200);
    const stored = await readObject(gh, `${rsPath}/web`);
    expect(stored.status).to.deep.equal({ replicas: 1, observedGeneration: 7 });
    expect(stored.metadata.labels?.[LABEL]).to.equal(undefined);
    expect(mutated.map((r) => r.subresource)).to.deep.equal(['', 'status']);
  });

  it('answers a dry run mutated and stores nothing', async () => {
    const dry = await gh.request('POST', `${cms()}?dryRun=All`, { body: cm('dry', {}, { a: '1' }) });
    expect(dry.status, dry.body).to.equal(201);
    expect(dry.json().metadata.labels).to.deep.equal({ [LABEL]: 'true' });
    expect(mutated[0].dryRun).to.equal(true);
    expect(mutated[0].options).to.deep.equal({ kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'] });
    expect((await gh.request('GET', `${cms()}/dry`)).status).to.equal(404);

    await createConfigMap('dry-update');
    mutation = (req) => {
      req.object.metadata.annotations = { note: 'dry' };
    };
    const dryPatch = await gh.request('PATCH', `${cms()}/dry-update?dryRun=All`, { headers: MERGE, body: {} });
    expect(dryPatch.status, dryPatch.body).to.equal(200);
    expect(dryPatch.json().metadata.annotations).to.deep.equal({ note: 'dry' });
    expect((await readObject(gh, `${cms()}/dry-update`)).metadata.annotations).to.equal(undefined);
  });

  it('checks the mutated object again: a broken schema is a 422 naming the field, unknown fields are pruned', async () => {
    mutation = (req) => {
      (req.object as any).data = { a: 5 };
    };
    const broken = expectFailure(
      await gh.request('POST', cms(), { body: cm('broken', {}, { a: '1' }) }),
      422,
      'Invalid',
    );
    expect(broken.message).to.contain('data[a]');
    expect(broken.details.causes[0].field).to.equal('data[a]');
    expect((await gh.request('GET', `${cms()}/broken`)).status).to.equal(404);
    expect(validated).to.have.length(0);

    mutation = (req) => {
      (req.object as any).spec = { unknown: true };
      req.object.metadata.labels = { 'not a label!': 'x' };
    };
    const badLabel = expectFailure(await gh.request('POST', cms(), { body: cm('bad-label') }), 422, 'Invalid');
    expect(badLabel.message).to.contain('metadata.labels');

    mutation = (req) => {
      (req.object as any).spec = { unknown: true };
    };
    const pruned = await gh.request('POST', cms(), { body: cm('pruned') });
    expect(pruned.status, pruned.body).to.equal(201);
    expect(pruned.json()).to.not.have.property('spec');
    expect(pruned.headers.warning).to.equal(undefined);
  });

  for (const field of ['name', 'namespace', 'uid', 'resourceVersion'] as const) {
    it(`refuses a mutation of metadata.${field}`, async () => {
      await createConfigMap(`identity-${field.toLowerCase()}`);
      mutation = (req) => {
        req.object.metadata[field] = 'changed';
      };
      const res = await gh.request('PATCH', `${cms()}/identity-${field.toLowerCase()}`, {
        headers: MERGE,
        body: { data: { a: 'x' } },
      });
      const status = expectFailure(res, 500, 'InternalError');
      expect(status.message).to.contain(`metadata.${field}`).and.contain('"changed"');
      expect(validated.filter((r) => r.operation === 'UPDATE')).to.have.length(0);
      expect((await readObject(gh, `${cms()}/identity-${field.toLowerCase()}`)).data).to.deep.equal({ a: '1' });
    });
  }

  it('tells admission the request as the client made it: uid, kinds, the alias group, options', async () => {
    const res = await gh.request(
      'POST',
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/roles?fieldManager=m&fieldValidation=Strict`,
      { body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'alias' }, rules: [] } },
    );
    expect(res.status, res.body).to.equal(201);
    const req = mutated[0];
    expect(req.uid).to.match(UUID);
    const served = { group: 'rbac.authorization.platform.io', version: 'v1' };
    const asked = { group: 'rbac.authorization.k8s.io', version: 'v1' };
    expect(req.kind).to.deep.equal({ ...served, kind: 'Role' });
    expect(req.resource).to.deep.equal({ ...served, resource: 'roles' });
    expect(req.requestKind).to.deep.equal({ ...asked, kind: 'Role' });
    expect(req.requestResource).to.deep.equal({ ...asked, resource: 'roles' });
    expect(req.requestSubResource).to.equal('');
    expect(req.options).to.deep.equal({
      kind: 'CreateOptions',
      apiVersion: 'meta.k8s.io/v1',
      fieldManager: 'm',
      fieldValidation: 'Strict',
    });

    const created = await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      body: replicaSet('scaled'),
    });
    expect(created.status, created.body).to.equal(201);
    const scale = await gh.request('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/scaled/scale`, {
      headers: MERGE,
      body: { spec: { replicas: 3 } },
    });
    expect(scale.status, scale.body).to.equal(200);
    const scaled = mutated[2];
    expect(scaled.subresource).to.equal('scale');
    expect(scaled.kind).to.deep.equal({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(scaled.requestResource).to.deep.equal({ group: 'apps', version: 'v1', resource: 'replicasets' });
    expect(scaled.options).to.deep.equal({ kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  it('gives a deletion both phases, with its DeleteOptions and the stored object', async () => {
    await createConfigMap('deleted');
    validated.length = 0;
    mutated.length = 0;
    mutatedDeletions.length = 0;
    const res = await gh.request('DELETE', `${cms()}/deleted`, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
    });
    expect(res.status, res.body).to.equal(200);
    // One request through both phases, as upstream hands its attributes to each.
    expect(mutated).to.have.length(0);
    expect(mutatedDeletions).to.have.length(1);
    expect(mutatedDeletions[0]).to.equal(validated[0]);
    const req = validated[0] as DeleteAdmissionRequest;
    expect(req.operation).to.equal('DELETE');
    expect(req.oldObject.metadata.name).to.equal('deleted');
    expect(req.options).to.deep.equal({
      kind: 'DeleteOptions',
      apiVersion: 'meta.k8s.io/v1',
      propagationPolicy: 'Background',
    });
  });

  it('shows a TokenRequest to both phases as a CREATE of serviceaccounts/token, and refuses with it', async () => {
    const sa = await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } },
    });
    expect(sa.status, sa.body).to.equal(201);
    validated.length = 0;
    mutated.length = 0;
    const tokenPath = `/api/v1/namespaces/${ns}/serviceaccounts/bot/token`;
    const body = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'] } };
    const issued = await gh.request('POST', tokenPath, { body });
    expect(issued.status, issued.body).to.equal(201);
    expect(mutated.map((m) => [m.subresource, m.kind.kind])).to.deep.equal([['token', 'TokenRequest']]);
    const req = validated[0] as AdmissionRequest;
    expect(req).to.include({ operation: 'CREATE', subresource: 'token', requestSubResource: 'token', name: 'bot' });
    expect(req.kind).to.deep.equal({ group: 'authentication.platform.io', version: 'v1', kind: 'TokenRequest' });
    expect(req.requestKind).to.deep.equal({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    expect(req.resource).to.deep.equal({ group: '', version: 'v1', resource: 'serviceaccounts' });
    expect(req.object.spec).to.deep.include({ audiences: ['vault'], expirationSeconds: 3600 });
    expect(req.object.status).to.equal(undefined);

    refuse = (r) => r.subresource === 'token';
    expectFailure(await gh.request('POST', tokenPath, { body }), 403, 'Forbidden');
  });

  it('keeps kubectl apply, server-side and client-side, working over what a mutation adds', async () => {
    const kubectl = await createKubectl(gh.kubeconfigPath);
    try {
      const manifest = (name: string, value: string) =>
        kubectl.manifest(
          `${name}-${value}.yaml`,
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${ns}\ndata:\n  k: "${value}"\n`,
        );
      for (const value of ['1', '2']) {
        await kubectl.ok(['apply', '--server-side', '--field-manager=ssa-test', '-f', await manifest('ssa', value)]);
        await kubectl.ok(['apply', '-f', await manifest('csa', value)]);
      }
      for (const name of ['ssa', 'csa']) {
        const live = JSON.parse(await kubectl.ok(['get', 'configmap', name, '-n', ns, '-o', 'json']));
        expect(live.data, name).to.deep.equal({ k: '2' });
        expect(live.metadata.labels, name).to.deep.equal({ [LABEL]: 'true' });
      }
    } finally {
      await kubectl.cleanup();
    }
  });
});
