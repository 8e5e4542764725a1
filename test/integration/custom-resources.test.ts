// The objects an established CustomResourceDefinition defines, served over real HTTPS: discovery (legacy and
// aggregated, short names and categories) and OpenAPI list them once the definition is established and forget them
// once it is gone; objects are written, read, listed and watched through every served version (conversion None:
// one set of objects, apiVersion rewritten); the schema prunes, defaults and refuses; RBAC and admission policies see
// them like any resource; a definition deleted takes its objects with it.
import { expect } from 'chai';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { APIEXT_K8S, crd, fooSchema } from '../helpers/crds.js';
import { bindingBody, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { openWatch } from '../helpers/watch-client.js';
import { AR, binding, policy } from '../helpers/admission-policy.js';
import type { TestGatehouse } from '../helpers/gatehouse.js';

const GROUP = 'stable.example.com';
const AGGREGATED = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };

const twoVersions = (plural: string, kind: string) =>
  crd(plural, GROUP, {
    kind,
    spec: {
      names: { plural, kind, shortNames: [`${plural.slice(0, 2)}x`], categories: ['all', 'stable'] },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: fooSchema() },
          selectableFields: [{ jsonPath: '.spec.deploymentName' }],
        },
        { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: fooSchema() } },
        { name: 'v1alpha1', served: false, storage: false, schema: { openAPIV3Schema: fooSchema() } },
      ],
    },
  });

describe('custom resources', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startRbacGatehouse();
    ns = await createNamespace(gh, 'cr');
  });
  after(async () => {
    await gh?.close();
  });

  /** Creates a definition and resolves once its version v1 answers a list. */
  const define = async (body: Record<string, unknown>, plural: string) => {
    const res = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body });
    expect(res.status, res.body).to.equal(201);
    await eventually(
      `${plural} served`,
      async () => (await gh.request('GET', `/apis/${GROUP}/v1/${plural}`)).status === 200,
      1000,
    );
  };
  const foo = (name: string, spec: Record<string, unknown>, apiVersion = `${GROUP}/v1`) => ({
    apiVersion,
    kind: 'Foo',
    metadata: { name },
    spec,
  });

  it('lists an established definition in discovery and OpenAPI, with its short names and categories', async () => {
    await define(twoVersions('foos', 'Foo'), 'foos');
    const group = (await gh.request('GET', `/apis/${GROUP}`)).json();
    expect(group.versions.map((v: any) => v.version)).to.deep.equal(['v1', 'v1beta1']);
    const list = (await gh.request('GET', `/apis/${GROUP}/v1`)).json();
    expect(list.resources.find((r: any) => r.name === 'foos')).to.deep.include({
      kind: 'Foo',
      namespaced: true,
      shortNames: ['fox'],
      categories: ['all', 'stable'],
    });
    const aggregated = (await gh.request('GET', '/apis', { headers: AGGREGATED })).json();
    const entry = aggregated.items.find((g: any) => g.metadata.name === GROUP);
    expect(entry.versions.map((v: any) => v.version)).to.deep.equal(['v1', 'v1beta1']);
    expect(entry.versions[0].resources[0]).to.deep.include({ resource: 'foos', shortNames: ['fox'] });
    const index = (await gh.request('GET', '/openapi/v3')).json();
    expect(Object.keys(index.paths)).to.include(`apis/${GROUP}/v1`);
    // A version the definition does not serve stays unknown.
    expect((await gh.request('GET', `/apis/${GROUP}/v1alpha1/foos`)).status).to.equal(404);
  });

  it('stores one set of objects read through every served version, pruned and checked by the schema', async () => {
    const base = `/apis/${GROUP}/v1/namespaces/${ns}/foos`;
    const created = await gh.request('POST', base, {
      body: { ...foo('one', { deploymentName: 'web', replicas: 3, unknownField: 1 }), extra: true },
    });
    expect(created.status, created.body).to.equal(201);
    const obj = created.json();
    expect(obj.spec).to.deep.equal({ deploymentName: 'web', replicas: 3 });
    expect(obj).to.not.have.property('extra');
    expect(obj.metadata.generation).to.equal(1);

    const beta = await gh.request('GET', `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos/one`);
    expect(beta.status, beta.body).to.equal(200);
    expect(beta.json()).to.deep.include({ apiVersion: `${GROUP}/v1beta1`, spec: obj.spec });

    // Written through v1beta1, kept in the storage version's form and read back through v1.
    const updated = await gh.request('PUT', `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos/one`, {
      body: { ...beta.json(), spec: { deploymentName: 'web', replicas: 4 } },
    });
    expect(updated.status, updated.body).to.equal(200);
    expect(updated.json().apiVersion).to.equal(`${GROUP}/v1beta1`);
    const v1 = (await gh.request('GET', `${base}/one`)).json();
    expect(v1).to.deep.include({ apiVersion: `${GROUP}/v1`, spec: { deploymentName: 'web', replicas: 4 } });
    expect(v1.metadata.generation).to.equal(2);

    const list = (await gh.request('GET', `/apis/${GROUP}/v1beta1/foos`)).json();
    expect(list.kind).to.equal('FooList');
    expect(list.items.map((i: any) => [i.apiVersion, i.metadata.name])).to.deep.equal([[`${GROUP}/v1beta1`, 'one']]);

    const refused = await gh.request('POST', base, { body: foo('two', { replicas: 11, deploymentName: 7 }) });
    const status = expectFailure(refused, 422, 'Invalid');
    expect(status.details.causes.map((c: any) => c.field)).to.include.members(['spec.replicas', 'spec.deploymentName']);
  });

  it('selects objects by the selectable fields of the version asked for', async () => {
    const v1 = `/apis/${GROUP}/v1/namespaces/${ns}/foos`;
    const other = await gh.request('POST', v1, { body: foo('other', { deploymentName: 'api' }) });
    expect(other.status, other.body).to.equal(201);
    const web = (await gh.request('GET', `${v1}?fieldSelector=spec.deploymentName%3Dweb`)).json();
    expect(web.items.map((i: any) => i.metadata.name)).to.deep.equal(['one']);
    const notWeb = (await gh.request('GET', `${v1}?fieldSelector=spec.deploymentName!%3Dweb`)).json();
    expect(notWeb.items.map((i: any) => i.metadata.name)).to.deep.equal(['other']);
    const beta = await gh.request(
      'GET',
      `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos?fieldSelector=spec.deploymentName%3Dweb`,
    );
    expect(expectFailure(beta, 400, 'BadRequest').message).to.equal('field label not supported: spec.deploymentName');
    expect((await gh.request('DELETE', `${v1}/other`)).status).to.equal(200);
  });

  it('refuses strategic merge patch with 415, and answers JSON to a client that prefers protobuf', async () => {
    const item = `/apis/${GROUP}/v1/namespaces/${ns}/foos/one`;
    const smp = await gh.request('PATCH', item, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: { spec: { replicas: 5 } },
    });
    const status = expectFailure(smp, 415, 'UnsupportedMediaType');
    expect(status.message).to.equal(
      'the body of the request was in an unknown format (application/strategic-merge-patch+json) - accepted media types include: application/merge-patch+json, application/json-patch+json, application/apply-patch+yaml',
    );
    const json = await gh.request('GET', item, {
      headers: { accept: 'application/vnd.kubernetes.protobuf,application/json' },
    });
    expect(json.status, json.body).to.equal(200);
    expect(json.headers['content-type']).to.match(/^application\/json/);
    const only = await gh.request('GET', item, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    // Protobuf alone is not acceptable: custom kinds have no protobuf form.
    expect(only.status).to.equal(406);
  });

  it('refuses unknown fields under fieldValidation=Strict and warns of them under Warn', async () => {
    const base = `/apis/${GROUP}/v1/namespaces/${ns}/foos`;
    const body = foo('strict', { deploymentName: 'x', bogus: 1 });
    const strict = await gh.request('POST', `${base}?fieldValidation=Strict`, { body });
    const status = expectFailure(strict, 400, 'BadRequest');
    expect(status.message).to.include('unknown field "spec.bogus"');
    const warned = await gh.request('POST', `${base}?fieldValidation=Warn`, { body });
    expect(warned.status, warned.body).to.equal(201);
    expect(String(warned.headers.warning)).to.equal('299 - "unknown field \\"spec.bogus\\""');
    expect(warned.json().spec).to.deep.equal({ deploymentName: 'x', replicas: 1 });
  });

  it('fills schema defaults on write, and on read into objects stored before the default existed', async () => {
    const base = `/apis/${GROUP}/v1/namespaces/${ns}/foos`;
    const created = await gh.request('POST', base, { body: foo('defaulted', { tags: ['a'] }) });
    expect(created.status, created.body).to.equal(201);
    expect(created.json().spec).to.deep.equal({ tags: ['a'], replicas: 1 });

    const patch = await gh.request('PATCH', `${APIEXT_K8S}/customresourcedefinitions/foos.${GROUP}`, {
      headers: { 'content-type': 'application/json-patch+json' },
      body: [
        {
          op: 'add',
          path: '/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/deploymentName/default',
          value: 'fallback',
        },
      ],
    });
    expect(patch.status, patch.body).to.equal(200);
    const read = await eventually('the new default on read', async () => {
      const obj = (await gh.request('GET', `${base}/defaulted`)).json();
      return obj.spec.deploymentName === 'fallback' ? obj : undefined;
    });
    expect(read.spec).to.deep.equal({ tags: ['a'], replicas: 1, deploymentName: 'fallback' });
  });

  it('watches objects written through another version', async () => {
    const listed = (await gh.request('GET', `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos`)).json();
    const watch = await openWatch(
      gh.url,
      `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos?watch=1&resourceVersion=${listed.metadata.resourceVersion}`,
      { ca: gh.ca, token: gh.adminToken },
    );
    try {
      expect(watch.status).to.equal(200);
      const res = await gh.request('POST', `/apis/${GROUP}/v1/namespaces/${ns}/foos`, {
        body: foo('watched', { deploymentName: 'w' }),
      });
      expect(res.status, res.body).to.equal(201);
      const added = await watch.next();
      expect(added).to.deep.include({ type: 'ADDED' });
      expect(added.object).to.deep.include({ apiVersion: `${GROUP}/v1beta1` });
      expect(added.object.metadata?.name).to.equal('watched');
    } finally {
      watch.close();
    }
  });

  it('serves the status and scale subresources: spec and status written apart, generation moved by spec only', async () => {
    const body = twoVersions('scalers', 'Scaler');
    const versions = (body.spec as any).versions.map((v: any) => ({
      ...v,
      subresources: {
        status: {},
        scale: {
          specReplicasPath: '.spec.replicas',
          statusReplicasPath: '.status.availableReplicas',
          labelSelectorPath: '.status.selector',
        },
      },
    }));
    versions[0].schema.openAPIV3Schema.properties.status.properties.selector = { type: 'string' };
    await define({ ...body, spec: { ...(body.spec as object), versions } }, 'scalers');
    const item = `/apis/${GROUP}/v1/namespaces/${ns}/scalers/s1`;
    const created = await gh.request('POST', `/apis/${GROUP}/v1/namespaces/${ns}/scalers`, {
      body: { ...foo('s1', { replicas: 2 }), kind: 'Scaler', status: { availableReplicas: 9 } },
    });
    expect(created.status, created.body).to.equal(201);
    expect(created.json()).to.not.have.property('status');

    const status = await gh.request('PUT', `${item}/status`, {
      body: { ...created.json(), spec: { replicas: 7 }, status: { availableReplicas: 2, selector: 'app=s1' } },
    });
    expect(status.status, status.body).to.equal(200);
    expect(status.json().spec).to.deep.equal({ replicas: 2 });
    expect(status.json().status).to.deep.equal({ availableReplicas: 2, selector: 'app=s1' });
    expect(status.json().metadata.generation).to.equal(1);

    const main = await gh.request('PUT', item, { body: { ...status.json(), status: { availableReplicas: 0 } } });
    expect(main.status, main.body).to.equal(200);
    expect(main.json().status).to.deep.equal({ availableReplicas: 2, selector: 'app=s1' });

    const scale = await gh.request('GET', `${item}/scale`);
    expect(scale.status, scale.body).to.equal(200);
    expect(scale.json()).to.deep.include({
      apiVersion: 'autoscaling/v1',
      kind: 'Scale',
      spec: { replicas: 2 },
      status: { replicas: 2, selector: 'app=s1' },
    });
    const scaled = await gh.request('PATCH', `/apis/${GROUP}/v1beta1/namespaces/${ns}/scalers/s1/scale`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { spec: { replicas: 5 } },
    });
    expect(scaled.status, scaled.body).to.equal(200);
    expect(scaled.json().spec).to.deep.equal({ replicas: 5 });
    const after = (await gh.request('GET', item)).json();
    expect(after.spec).to.deep.equal({ replicas: 5 });
    expect(after.metadata.generation).to.equal(2);

    const refused = await gh.request('PUT', `${item}/scale`, { body: { ...scaled.json(), spec: { replicas: -1 } } });
    expect(expectFailure(refused, 422, 'Invalid').details.causes[0].field).to.equal('spec.replicas');
  });

  it('authorizes custom objects by their group and resource like any other', async () => {
    const path = `/apis/${GROUP}/v1/namespaces/${ns}/foos`;
    const asBob = { token: tokenOf('bob') };
    expect((await gh.request('GET', path, asBob)).status).to.equal(403);
    const role = roleBody('foo-reader', [{ verbs: ['get', 'list'], apiGroups: [GROUP], resources: ['foos'] }]);
    for (const [kind, body] of [
      ['roles', role],
      ['rolebindings', bindingBody('foo-reader', 'Role', 'foo-reader', ['bob'])],
    ] as const) {
      const res = await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/${kind}`, { body });
      expect(res.status, res.body).to.equal(201);
    }
    await eventually('bob may list foos', async () => (await gh.request('GET', path, asBob)).status === 200);
    expect((await gh.request('POST', path, { ...asBob, body: foo('bobs', {}) })).status).to.equal(403);
  });

  it('puts custom objects through ValidatingAdmissionPolicies that match their group', async () => {
    const rules = {
      resourceRules: [{ operations: ['CREATE'], apiGroups: [GROUP], apiVersions: ['*'], resources: ['foos'] }],
    };
    const spec = {
      matchConstraints: rules,
      validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5 replicas here' }],
    };
    for (const [url, body] of [
      [`${AR}/validatingadmissionpolicies`, policy('foo-limit', spec)],
      [`${AR}/validatingadmissionpolicybindings`, binding('foo-limit-b', 'foo-limit', ns)],
    ] as const) {
      const res = await gh.request('POST', url, { body });
      expect(res.status, res.body).to.equal(201);
    }
    const base = `/apis/${GROUP}/v1beta1/namespaces/${ns}/foos`;
    const refused = await eventually('the policy in force', async () => {
      const res = await gh.request('POST', `${base}?dryRun=All`, {
        body: foo('big', { replicas: 6 }, `${GROUP}/v1beta1`),
      });
      return res.status === 422 ? res : undefined;
    });
    expect(refused.json().message).to.include('at most 5 replicas here');
    const small = await gh.request('POST', `${base}?dryRun=All`, {
      body: foo('small', { replicas: 5 }, `${GROUP}/v1beta1`),
    });
    expect(small.status, small.body).to.equal(201);
  });

  it('deletes custom objects with their namespace', async () => {
    const doomed = await createNamespace(gh, 'cr-doomed');
    const res = await gh.request('POST', `/apis/${GROUP}/v1/namespaces/${doomed}/foos`, { body: foo('f', {}) });
    expect(res.status, res.body).to.equal(201);
    expect((await gh.request('DELETE', `/api/v1/namespaces/${doomed}`)).status).to.equal(200);
    await eventually(
      'namespace gone',
      async () => (await gh.request('GET', `/api/v1/namespaces/${doomed}`)).status === 404,
    );
    const list = (await gh.request('GET', `/apis/${GROUP}/v1/namespaces/${doomed}/foos`)).json();
    expect(list.items).to.deep.equal([]);
  });

  it('deletes the objects of a definition before the definition, refusing new ones meanwhile', async () => {
    await define(twoVersions('gadgets', 'Gadget'), 'gadgets');
    const other = await createNamespace(gh, 'cr-other');
    const gadget = (name: string, finalizers?: string[]) => ({
      ...foo(name, {}),
      kind: 'Gadget',
      metadata: { name, ...(finalizers ? { finalizers } : {}) },
    });
    for (const [namespace, body] of [
      [ns, gadget('g1')],
      [other, gadget('g2')],
      [other, gadget('held', ['example.com/hold'])],
    ] as const) {
      const res = await gh.request('POST', `/apis/${GROUP}/v1/namespaces/${namespace}/gadgets`, { body });
      expect(res.status, res.body).to.equal(201);
    }
    const crdPath = `${APIEXT_K8S}/customresourcedefinitions/gadgets.${GROUP}`;
    expect((await gh.request('DELETE', crdPath)).status).to.be.oneOf([200, 202]);

    // The held object keeps the definition (and its serving) until its own finalizer goes.
    const remaining = await eventually('only the held object left', async () => {
      const list = (await gh.request('GET', `/apis/${GROUP}/v1/gadgets`)).json();
      return list.items?.length === 1 ? list.items : undefined;
    });
    expect(remaining[0].metadata.name).to.equal('held');
    expect(remaining[0].metadata.deletionTimestamp).to.be.a('string');
    const terminating = (await gh.request('GET', crdPath)).json();
    expect(terminating.status.conditions.find((c: any) => c.type === 'Terminating')).to.include({
      status: 'True',
      reason: 'InstanceDeletionInProgress',
    });
    const refused = await gh.request('POST', `/apis/${GROUP}/v1/namespaces/${ns}/gadgets`, { body: gadget('late') });
    const status = expectFailure(refused, 405, 'MethodNotAllowed');
    expect(status.message).to.equal('create not allowed while custom resource definition is terminating');

    const released = await gh.request('PATCH', `/apis/${GROUP}/v1/namespaces/${other}/gadgets/held`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: { metadata: { finalizers: null } },
    });
    expect(released.status, released.body).to.equal(200);
    await eventually('definition gone', async () => (await gh.request('GET', crdPath)).status === 404, 3000);

    // Defined again, it starts empty.
    await define(twoVersions('gadgets', 'Gadget'), 'gadgets');
    expect((await gh.request('GET', `/apis/${GROUP}/v1/gadgets`)).json().items).to.deep.equal([]);
  });

  it('stops serving the kind once its definition is gone', async () => {
    await define(twoVersions('bars', 'Bar'), 'bars');
    const res = await gh.request('DELETE', `${APIEXT_K8S}/customresourcedefinitions/bars.${GROUP}`);
    expect(res.status, res.body).to.be.oneOf([200, 202]);
    await eventually('bars gone', async () => (await gh.request('GET', `/apis/${GROUP}/v1/bars`)).status === 404, 1000);
    const list = (await gh.request('GET', `/apis/${GROUP}/v1`)).json();
    expect(list.resources.map((r: any) => r.name)).to.not.include('bars');
  });
});
