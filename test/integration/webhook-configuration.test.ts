// ValidatingWebhookConfiguration and MutatingWebhookConfiguration over real HTTPS with RBAC: the verbs (create, get,
// list, watch, update, patch, apply, delete) at the platform group and at the k8s.io alias, defaults and generation as
// stored, webhooks merged by name, 422s naming every bad field, protobuf, discovery of both group names, that only
// cluster-admin may write them, and that policies never apply to them.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure, readObject, uniqueName } from '../helpers/api.js';
import { openWatch } from '../helpers/watch-client.js';
import { PROTOBUF_HEADERS } from '../helpers/protobuf.js';
import { decodeProtobufObject } from '../../api/proto/object-codec.js';
import { AR, AR_K8S, binding, cm, policy, policyClient } from '../helpers/admission-policy.js';
import { bindingBody, RBAC_V1 } from '../helpers/rbac.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const KINDS = [
  { kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations' },
  { kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations' },
];

const webhook = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { service: { namespace: 'hooks', name: 'webhook-service', path: '/validate' } },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});
/** A configuration in the group it is sent to: `base` is AR or AR_K8S. */
const configuration = (base: string, kind: string, name: string, webhooks: unknown[]) => ({
  apiVersion: base === AR ? 'admissionregistration.platform.io/v1' : 'admissionregistration.k8s.io/v1',
  kind,
  metadata: { name },
  webhooks,
});

describe('webhook configurations', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--authorization-mode=RBAC']);
  });
  after(async () => {
    await gh?.close();
  });

  for (const { kind, resource } of KINDS)
    describe(kind, () => {
      it('creates at the alias, reads at both groups, lists, updates with a new generation, deletes', async () => {
        const name = uniqueName('cfg');
        const created = await gh.request('POST', `${AR_K8S}/${resource}`, {
          body: configuration(AR_K8S, kind, name, [
            webhook('a.example.com'),
            webhook('b.example.com', { timeoutSeconds: 3 }),
          ]),
        });
        expect(created.status, created.body).to.equal(201);
        const stored = created.json();
        expect(stored.apiVersion).to.equal('admissionregistration.k8s.io/v1');
        expect(stored.metadata.generation).to.equal(1);
        expect(stored.webhooks[0]).to.deep.include({
          failurePolicy: 'Fail',
          matchPolicy: 'Equivalent',
          namespaceSelector: {},
          objectSelector: {},
          timeoutSeconds: 10,
        });
        expect(stored.webhooks[0].clientConfig.service.port).to.equal(443);
        expect(stored.webhooks[0].rules[0].scope).to.equal('*');
        expect(stored.webhooks[1].timeoutSeconds).to.equal(3);
        if (kind === 'MutatingWebhookConfiguration') expect(stored.webhooks[0].reinvocationPolicy).to.equal('Never');
        else expect(stored.webhooks[0]).to.not.have.property('reinvocationPolicy');

        const platform = await readObject(gh, `${AR}/${resource}/${name}`);
        expect(platform.apiVersion).to.equal('admissionregistration.platform.io/v1');
        expect(platform.webhooks).to.deep.equal(stored.webhooks);
        const list = await readObject(gh, `${AR_K8S}/${resource}`);
        expect(list.kind).to.equal(`${kind}List`);
        expect(list.items.map((i: any) => i.metadata.name)).to.include(name);

        const changed = { ...platform, webhooks: [platform.webhooks[0]] };
        const updated = await gh.request('PUT', `${AR}/${resource}/${name}`, { body: changed });
        expect(updated.status, updated.body).to.equal(200);
        expect(updated.json().metadata.generation).to.equal(2);
        expect(updated.json().webhooks).to.have.length(1);

        const deleted = await gh.request('DELETE', `${AR_K8S}/${resource}/${name}`);
        expect(deleted.status, deleted.body).to.equal(200);
        expectFailure(await gh.request('GET', `${AR}/${resource}/${name}`), 404, 'NotFound');
      });

      it('watches ADDED, MODIFIED and DELETED', async () => {
        const name = uniqueName('watched');
        const w = await openWatch(gh.url, `${AR_K8S}/${resource}?watch=1&fieldSelector=metadata.name%3D${name}`, {
          ca: gh.ca,
          token: gh.adminToken,
        });
        try {
          expect(w.status).to.equal(200);
          const created = await gh.request('POST', `${AR}/${resource}`, {
            body: configuration(AR, kind, name, [webhook('a.example.com')]),
          });
          expect(created.status, created.body).to.equal(201);
          const patched = await gh.request('PATCH', `${AR}/${resource}/${name}`, {
            body: [{ op: 'replace', path: '/webhooks/0/timeoutSeconds', value: 20 }],
            headers: { 'content-type': 'application/json-patch+json' },
          });
          expect(patched.status, patched.body).to.equal(200);
          expect((await gh.request('DELETE', `${AR}/${resource}/${name}`)).status).to.equal(200);
          const events = await w.take(3);
          expect(events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
          expect(events[0].object).to.include({ kind, apiVersion: 'admissionregistration.k8s.io/v1' });
          expect((events[1].object.webhooks as any[])[0].timeoutSeconds).to.equal(20);
        } finally {
          w.close();
        }
      });

      it('refuses a bad configuration with one 422 naming every field', async () => {
        const res = await gh.request('POST', `${AR}/${resource}`, {
          body: configuration(AR, kind, uniqueName('bad'), [
            webhook('short.name', { sideEffects: 'Unknown', timeoutSeconds: 45 }),
            webhook('short.name', {
              clientConfig: { url: 'http://hooks.example.com/x?y=1' },
              admissionReviewVersions: ['v2'],
              matchConditions: [{ name: 'c', expression: 'object.metadata.name ==' }],
            }),
          ]),
        });
        const status = expectFailure(res, 422, 'Invalid');
        expect(status.details).to.include({ group: 'admissionregistration.platform.io', kind });
        expect(status.details.causes.map((c: any) => c.field)).to.have.members([
          'webhooks[0].name',
          'webhooks[0].sideEffects',
          'webhooks[0].timeoutSeconds',
          'webhooks[1].name',
          'webhooks[1].name',
          'webhooks[1].clientConfig.url',
          'webhooks[1].clientConfig.url',
          'webhooks[1].admissionReviewVersions',
          'webhooks[1].matchConditions[0].expression',
        ]);
        expect(status.message).to.include('webhooks[1].name: Duplicate value: "short.name"');
        expect(status.message).to.include(
          'webhooks[0].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
        );
        expect(status.message).to.include(
          'webhooks[0].timeoutSeconds: Invalid value: 45: the timeout value must be between 1 and 30 seconds',
        );
        expect(status.message).to.match(
          /webhooks\[1\]\.matchConditions\[0\]\.expression: Invalid value: "object\.metadata\.name ==": .*1:24/s,
        );
      });

      it('refuses a bad update the same way, keeping what is stored', async () => {
        const name = uniqueName('upd');
        const created = await gh.request('POST', `${AR}/${resource}`, {
          body: configuration(AR, kind, name, [webhook('a.example.com')]),
        });
        expect(created.status, created.body).to.equal(201);
        const res = await gh.request('PATCH', `${AR_K8S}/${resource}/${name}`, {
          body: { webhooks: [{ name: 'a.example.com', clientConfig: { url: 'https://x.example.com' } }] },
          headers: { 'content-type': 'application/strategic-merge-patch+json' },
        });
        const status = expectFailure(res, 422, 'Invalid');
        expect(status.details.causes).to.deep.include({
          reason: 'FieldValueRequired',
          message: 'Required value: exactly one of url or service is required',
          field: 'webhooks[0].clientConfig',
        });
        expect((await readObject(gh, `${AR}/${resource}/${name}`)).metadata.generation).to.equal(1);
      });

      it('merges webhooks by name, in a strategic merge patch and between two appliers', async () => {
        const name = uniqueName('merge');
        const created = await gh.request('POST', `${AR}/${resource}`, {
          body: configuration(AR, kind, name, [webhook('a.example.com'), webhook('b.example.com')]),
        });
        expect(created.status, created.body).to.equal(201);
        const patched = await gh.request('PATCH', `${AR_K8S}/${resource}/${name}`, {
          body: { webhooks: [{ name: 'b.example.com', timeoutSeconds: 5 }] },
          headers: { 'content-type': 'application/strategic-merge-patch+json' },
        });
        expect(patched.status, patched.body).to.equal(200);
        expect(patched.json().webhooks.map((w: any) => [w.name, w.timeoutSeconds])).to.deep.equal([
          ['a.example.com', 10],
          ['b.example.com', 5],
        ]);

        const applied = uniqueName('applied');
        const apply = (manager: string, hook: unknown) =>
          gh.request('PATCH', `${AR_K8S}/${resource}/${applied}?fieldManager=${manager}`, {
            body: configuration(AR_K8S, kind, applied, [hook]),
            headers: { 'content-type': 'application/apply-patch+yaml' },
          });
        expect((await apply('first', webhook('first.example.com'))).status).to.equal(201);
        const second = await apply('second', webhook('second.example.com', { timeoutSeconds: 7 }));
        expect(second.status, second.body).to.equal(200);
        expect(second.json().webhooks.map((w: any) => w.name)).to.deep.equal([
          'first.example.com',
          'second.example.com',
        ]);
      });

      it('answers protobuf with the same object', async () => {
        const name = uniqueName('proto');
        const body = configuration(AR_K8S, kind, name, [
          webhook('a.example.com', { clientConfig: { url: 'https://h.example.com' } }),
        ]);
        expect((await gh.request('POST', `${AR_K8S}/${resource}`, { body })).status).to.equal(201);
        const res = await gh.request('GET', `${AR_K8S}/${resource}/${name}`, { headers: PROTOBUF_HEADERS });
        expect(res.status).to.equal(200);
        const decoded = decodeProtobufObject(res.raw) as any;
        expect(decoded.webhooks).to.deep.equal((await readObject(gh, `${AR_K8S}/${resource}/${name}`)).webhooks);
      });
    });

  // Categories only at the platform group: at the alias too, `kubectl get api-extensions` would list each twice.
  const categories = (group: string) => (group.endsWith('.k8s.io') ? undefined : ['api-extensions']);

  it('lists both kinds in legacy and aggregated discovery of both group names, in api-extensions', async () => {
    for (const group of ['admissionregistration.platform.io', 'admissionregistration.k8s.io']) {
      const legacy = await readObject(gh, `/apis/${group}/v1`);
      for (const { kind, resource } of KINDS) {
        const entry = legacy.resources.find((r: any) => r.name === resource);
        expect(entry, `${group} ${resource}`).to.deep.include({
          kind,
          namespaced: false,
          singularName: resource.replace(/s$/, ''),
        });
        expect(entry.categories).to.deep.equal(categories(group));
        expect(entry.shortNames ?? []).to.deep.equal([]);
      }
    }
    const res = await gh.request('GET', '/apis', { headers: { accept: AGGREGATED } });
    expect(res.status).to.equal(200);
    const groups = new Map<string, any>(res.json().items.map((g: any) => [g.metadata.name, g]));
    for (const group of ['admissionregistration.platform.io', 'admissionregistration.k8s.io']) {
      const resources = groups.get(group).versions.find((v: any) => v.version === 'v1').resources;
      for (const { kind, resource } of KINDS) {
        const entry = resources.find((r: any) => r.resource === resource);
        expect(entry, `${group} ${resource}`).to.deep.include({
          responseKind: { group, version: 'v1', kind },
          scope: 'Cluster',
        });
        expect(entry.categories).to.deep.equal(categories(group));
      }
    }
  });

  it('is written by cluster-admin only: a user bound to admin and edit is refused at both group names', async () => {
    const user = uniqueName('dana');
    for (const role of ['admin', 'edit']) {
      const res = await gh.request('POST', `${RBAC_V1}/clusterrolebindings`, {
        body: bindingBody(`${user}-${role}`, 'ClusterRole', role, [user], 'ClusterRoleBinding'),
      });
      expect(res.status, res.body).to.equal(201);
    }
    const as = { 'Impersonate-User': user };
    await eventually('the bindings are in force', async () => {
      const res = await gh.request('GET', '/api/v1/namespaces/default/configmaps', { headers: as });
      return res.status === 200;
    });
    for (const { kind, resource } of KINDS)
      for (const [base, group] of [
        [AR, 'admissionregistration.platform.io'],
        [AR_K8S, 'admissionregistration.k8s.io'],
      ]) {
        const res = await gh.request('POST', `${base}/${resource}`, {
          body: configuration(base, kind, uniqueName('denied'), [webhook('a.example.com')]),
          headers: as,
        });
        const message: string = expectFailure(res, 403, 'Forbidden').message;
        expect(message.startsWith(`${resource}.${group} is forbidden: `), message).to.equal(true);
        expect(message).to.include(`User "${user}" cannot create resource "${resource}" in API group`);
        expect(message).to.match(/ at the cluster scope$/);
        expectFailure(await gh.request('GET', `${base}/${resource}`, { headers: as }), 403, 'Forbidden');
      }
  });

  it('a policy refusing every write never applies to the webhook configurations', async () => {
    const ns = await createNamespace(gh, 'wh-exempt');
    const name = uniqueName('deny-all');
    const { post, inForce } = policyClient(() => gh);
    const rule = { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] };
    await post(`${AR}/validatingadmissionpolicies`, {
      ...policy(name, {}),
      spec: {
        matchConstraints: { resourceRules: [rule] },
        validations: [{ expression: 'false', reason: 'Forbidden' }],
      },
    });
    await post(`${AR}/validatingadmissionpolicybindings`, {
      ...binding(`${name}-b`, name, ns),
      spec: { policyName: name, validationActions: ['Deny'] },
    });
    try {
      await inForce(ns, cm('probe'), 403);
      for (const { kind, resource } of KINDS) {
        const res = await gh.request('POST', `${AR}/${resource}`, {
          body: configuration(AR, kind, uniqueName('exempt'), [webhook('a.example.com')]),
        });
        expect(res.status, res.body).to.equal(201);
      }
    } finally {
      // The binding holds every write in this server: it goes first, whatever the test found.
      await gh.request('DELETE', `${AR}/validatingadmissionpolicybindings/${name}-b`);
      await gh.request('DELETE', `${AR}/validatingadmissionpolicies/${name}`);
    }
  });
});
