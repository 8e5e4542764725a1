// The standard verbs over real HTTPS: create, get, list, update (with and without resourceVersion), status, merge and
// JSON patch, and the errors each answers.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

const cm = (name: string, data: Record<string, string> = { a: '1' }, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...extra },
  data,
});

const replicaSet = (name: string, replicas = 2) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
});

describe('standard verbs', function () {
  let gh: TestGatehouse;
  const ns = 'crud';
  const cms = `/api/v1/namespaces/${ns}/configmaps`;

  before(async () => {
    gh = await startTestGatehouse();
    expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(201);
  });
  after(async () => gh.close());

  it('creates with server-set metadata, then gets the same object', async () => {
    const created = await gh.request('POST', cms, { body: cm('one') });
    expect(created.status).to.equal(201);
    const obj = created.json();
    expect(obj.metadata).to.include({ name: 'one', namespace: ns });
    expect(obj.metadata.uid).to.match(/^[0-9a-f-]{36}$/);
    expect(obj.metadata.resourceVersion).to.match(/^\d+$/);
    expect(obj.metadata.creationTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const got = await gh.request('GET', `${cms}/one`);
    expect(got.status).to.equal(200);
    expect(got.json()).to.deep.equal(obj);
  });

  it('answers HEAD of an object with the headers and length of its GET and no body; gzip still applies to GET', async () => {
    expect((await gh.request('POST', cms, { body: cm('head') })).status).to.equal(201);
    const got = await gh.request('GET', `${cms}/head`);
    const head = await gh.request('HEAD', `${cms}/head`);
    expect(head.status).to.equal(200);
    expect(head.headers['content-type']).to.equal(got.headers['content-type']);
    expect(head.headers['content-length']).to.equal(String(Buffer.byteLength(got.body)));
    expect(head.body).to.equal('');
    const gzipped = await gh.request('GET', `${cms}/head`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).to.equal('gzip');
  });

  it('answers 409 AlreadyExists for a second create of the same name', async () => {
    await gh.request('POST', cms, { body: cm('dup') });
    const again = await gh.request('POST', cms, { body: cm('dup') });
    expect(again.status).to.equal(409);
    expect(again.json()).to.include({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'AlreadyExists',
      code: 409,
      message: 'configmaps "dup" already exists',
    });
  });

  it('generates a name from generateName', async () => {
    const res = await gh.request('POST', cms, {
      body: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { generateName: 'gen-' } },
    });
    expect(res.status).to.equal(201);
    expect(res.json().metadata.name).to.match(/^gen-[a-z0-9]{5}$/);
  });

  it('answers 404 NotFound naming the object, and 404 for paths it does not serve', async () => {
    const res = await gh.request('GET', `${cms}/missing`);
    expect(res.status).to.equal(404);
    expect(res.json()).to.deep.include({
      reason: 'NotFound',
      message: 'configmaps "missing" not found',
      details: { name: 'missing', kind: 'configmaps' },
    });
    expect((await gh.request('GET', '/api/v1/namespaces/crud/pods')).status).to.equal(404);
    expect((await gh.request('GET', '/apis/apps/v1/namespaces/x/replicasets/a/scale')).status).to.equal(404);
    expect((await gh.request('GET', '/api/v1/namespaces/crud/nodes')).status).to.equal(404);
    expect((await gh.request('GET', '/apis/nothing.platform.io/v1')).status).to.equal(404);
  });

  it('answers 405 for a verb the path does not support', async () => {
    const res = await gh.request('POST', `${cms}/one`, { body: cm('one') });
    expect(res.status).to.equal(405);
    expect(res.json()).to.include({
      reason: 'MethodNotAllowed',
      message: 'the server does not allow this method on the requested resource',
    });
  });

  it('answers 405 to a DELETE of the namespace collection, which upstream does not serve either', async () => {
    const res = await gh.request('DELETE', '/api/v1/namespaces');
    expect(res.status, res.body).to.equal(405);
    expect(res.json().reason).to.equal('MethodNotAllowed');
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}`)).status).to.equal(200);
  });

  it('answers the generic 404 and 405 with the Status body kube-apiserver sends, empty details included', async () => {
    const notFound = await gh.request('GET', '/api/v1/nosuchthings');
    expect(notFound.json()).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server could not find the requested resource',
      reason: 'NotFound',
      details: {},
      code: 404,
    });
    const notAllowed = await gh.request('DELETE', '/api/v1/namespaces');
    expect(notAllowed.json()).to.deep.equal({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server does not allow this method on the requested resource',
      reason: 'MethodNotAllowed',
      details: {},
      code: 405,
    });
  });

  it('lists in one namespace and across namespaces with list kind and resourceVersion', async () => {
    await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'crud-other' } } });
    await gh.request('POST', '/api/v1/namespaces/crud-other/configmaps', { body: cm('elsewhere') });
    const inNs = (await gh.request('GET', cms)).json();
    expect(inNs).to.include({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(inNs.metadata.resourceVersion).to.match(/^\d+$/);
    expect(inNs.items.map((i: { metadata: { namespace: string } }) => i.metadata.namespace)).to.satisfy((l: string[]) =>
      l.every((n) => n === ns),
    );
    const all = (await gh.request('GET', '/api/v1/configmaps')).json();
    const names = all.items.map(
      (i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`,
    );
    expect(names).to.include.members([`${ns}/one`, 'crud-other/elsewhere']);
  });

  it('updates with the current resourceVersion, refuses a stale one with 409, and updates unconditionally without one', async () => {
    const v1 = (await gh.request('POST', cms, { body: cm('upd') })).json();
    const v2res = await gh.request('PUT', `${cms}/upd`, { body: { ...v1, data: { a: '2' } } });
    expect(v2res.status).to.equal(200);
    const v2 = v2res.json();
    expect(v2.metadata.resourceVersion).to.not.equal(v1.metadata.resourceVersion);
    expect(v2.metadata.uid).to.equal(v1.metadata.uid);
    const stale = await gh.request('PUT', `${cms}/upd`, { body: { ...v1, data: { a: '3' } } });
    expect(stale.status).to.equal(409);
    expect(stale.json()).to.include({ reason: 'Conflict' });
    expect(stale.json().message).to.contain('the object has been modified');
    const unconditional = await gh.request('PUT', `${cms}/upd`, { body: cm('upd', { a: '4' }) });
    expect(unconditional.status).to.equal(200);
    expect(unconditional.json().data).to.deep.equal({ a: '4' });
  });

  it('reads resourceVersion "0" in a PUT or a patch as no precondition, as kube-apiserver does', async () => {
    await gh.request('POST', cms, { body: cm('rv-zero') });
    const put = await gh.request('PUT', `${cms}/rv-zero`, {
      body: cm('rv-zero', { a: '2' }, { resourceVersion: '0' }),
    });
    expect(put.status, put.body).to.equal(200);
    expect(put.json().data).to.deep.equal({ a: '2' });
    expect(put.json().metadata.resourceVersion).to.not.equal('0');
    const patched = await gh.request('PATCH', `${cms}/rv-zero`, {
      body: { metadata: { resourceVersion: '0' }, data: { a: '3' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.body).to.equal(200);
    expect(patched.json().data).to.deep.equal({ a: '3' });
    const stale = await gh.request('PATCH', `${cms}/rv-zero`, {
      body: { metadata: { resourceVersion: '1' }, data: { a: '4' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(stale.status).to.equal(409);
  });

  it('refuses a PUT on a missing object unless the kind creates on update', async () => {
    expect((await gh.request('PUT', `${cms}/nope`, { body: cm('nope') })).status).to.equal(404);
    const role = {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    };
    const res = await gh.request('PUT', `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles/r`, {
      body: role,
    });
    expect(res.status).to.equal(201);
    expect(res.json().metadata.uid).to.be.a('string');
  });

  it('refuses a body whose name or namespace differs from the URL', async () => {
    const res = await gh.request('PUT', `${cms}/one`, { body: cm('other') });
    expect(res.status).to.equal(400);
    expect(res.json().message).to.contain('does not match the name on the URL');
    const wrongNs = await gh.request('POST', cms, { body: cm('x', {}, { namespace: 'crud-other' }) });
    expect(wrongNs.status).to.equal(400);
  });

  it('answers 422 Invalid with every field error and its path', async () => {
    const bad = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'Bad_Name' },
      spec: { replicas: -1, template: {} },
    };
    const res = await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, { body: bad });
    expect(res.status).to.equal(422);
    const status = res.json();
    expect(status.reason).to.equal('Invalid');
    expect(status.details).to.include({ kind: 'ReplicaSet', group: 'apps', name: 'Bad_Name' });
    const fields = status.details.causes.map((c: { field: string }) => c.field);
    expect(fields).to.include.members(['metadata.name', 'spec.selector', 'spec.replicas']);
    expect(status.message).to.match(/^ReplicaSet\.apps "Bad_Name" is invalid: \[/);
  });

  it('answers 422 naming metadata when it is not an object, for create, update and patch', async () => {
    const created = await gh.request('POST', cms, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' } });
    expect(created.status, created.body).to.equal(422);
    expect(created.json().details.causes[0].field).to.equal('metadata');
    await gh.request('POST', cms, { body: cm('meta-type') });
    const updated = await gh.request('PUT', `${cms}/meta-type`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: ['x'] },
    });
    expect(updated.status, updated.body).to.equal(422);
    const patched = await gh.request('PATCH', `${cms}/meta-type`, {
      body: { metadata: 7 },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.body).to.equal(422);
  });

  it('reports a metadata map of the wrong type once, on update and patch as on create', async () => {
    await gh.request('POST', cms, { body: cm('labels-type') });
    const writes = [
      await gh.request('POST', cms, { body: cm('labels-type-2', {}, { labels: 'x' }) }),
      await gh.request('PUT', `${cms}/labels-type`, { body: cm('labels-type', {}, { labels: 'x' }) }),
      await gh.request('PATCH', `${cms}/labels-type`, {
        body: { metadata: { labels: 'x' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
    ];
    for (const res of writes) {
      expect(res.status, res.body).to.equal(422);
      expect(
        res.json().details.causes.map((c: { field: string }) => c.field),
        res.body,
      ).to.deep.equal(['metadata.labels']);
    }
  });

  it('creates in a missing namespace → 404 for the namespace', async () => {
    const res = await gh.request('POST', '/api/v1/namespaces/ghost/configmaps', { body: cm('x') });
    expect(res.status).to.equal(404);
    expect(res.json().message).to.equal('namespaces "ghost" not found');
  });

  it('sets generation 1 on create and bumps it on spec changes only', async () => {
    const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const created = (await gh.request('POST', rsPath, { body: replicaSet('web') })).json();
    expect(created.metadata.generation).to.equal(1);
    expect(created.spec.minReadySeconds).to.equal(0);
    const labelled = await gh.request('PATCH', `${rsPath}/web`, {
      body: { metadata: { labels: { tier: 'x' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(labelled.json().metadata.generation).to.equal(1);
    const scaled = await gh.request('PATCH', `${rsPath}/web`, {
      body: { spec: { replicas: 5 } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(scaled.status).to.equal(200);
    expect(scaled.json().metadata.generation).to.equal(2);
  });

  it('keeps status and spec apart between the resource and its status subresource', async () => {
    const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const created = (
      await gh.request('POST', rsPath, { body: { ...replicaSet('split'), status: { replicas: 9 } } })
    ).json();
    expect(created.status?.replicas ?? 0).to.not.equal(9);
    const statusRes = await gh.request('PUT', `${rsPath}/split/status`, {
      body: { ...created, spec: { ...created.spec, replicas: 7 }, status: { replicas: 3, readyReplicas: 1 } },
    });
    expect(statusRes.status).to.equal(200);
    expect(statusRes.json().status).to.deep.equal({ replicas: 3, readyReplicas: 1 });
    expect(statusRes.json().spec.replicas).to.equal(2);
    expect(statusRes.json().metadata.generation).to.equal(1);
    const viaMain = await gh.request('PATCH', `${rsPath}/split`, {
      body: { status: { replicas: 0 } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(viaMain.json().status.replicas).to.equal(3);
    const got = await gh.request('GET', `${rsPath}/split/status`);
    expect(got.status).to.equal(200);
    expect(got.json().status.readyReplicas).to.equal(1);
    const patched = await gh.request('PATCH', `/api/v1/nodes/missing/status`, {
      body: { status: {} },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).to.equal(404);
  });

  it('applies merge patches and JSON patches, and refuses other patch types with 415', async () => {
    await gh.request('POST', cms, { body: cm('patchme', { a: '1', b: '2' }) });
    const merged = await gh.request('PATCH', `${cms}/patchme`, {
      body: { data: { a: null, c: '3' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(merged.status).to.equal(200);
    expect(merged.json().data).to.deep.equal({ b: '2', c: '3' });
    const jsonPatched = await gh.request('PATCH', `${cms}/patchme`, {
      body: [
        { op: 'test', path: '/data/b', value: '2' },
        { op: 'add', path: '/data/d', value: '4' },
      ],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(jsonPatched.status).to.equal(200);
    expect(jsonPatched.json().data).to.deep.equal({ b: '2', c: '3', d: '4' });
    const failedTest = await gh.request('PATCH', `${cms}/patchme`, {
      body: [{ op: 'test', path: '/data/b', value: 'nope' }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(failedTest.status).to.be.oneOf([409, 422]);
    const unsupported = await gh.request('PATCH', `${cms}/patchme`, {
      body: {},
      headers: { 'content-type': 'application/x-unknown-patch' },
    });
    expect(unsupported.status).to.equal(415);
    const stale = await gh.request('PATCH', `${cms}/patchme`, {
      body: { metadata: { resourceVersion: '1' }, data: { e: '5' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(stale.status).to.equal(409);
  });

  it('serves every resource type at the paths the spec gives', async () => {
    const paths = [
      '/api/v1/namespaces',
      '/api/v1/nodes',
      `/api/v1/namespaces/${ns}/resourcequotas`,
      '/api/v1/resourcequotas',
      `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies`,
      '/apis/networking.platform.io/v1/networkpolicies',
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      '/apis/apps/v1/replicasets',
      `/apis/batch/v1/namespaces/${ns}/cronjobs`,
      '/apis/batch/v1/cronjobs',
      `/api/v1/namespaces/${ns}/secrets`,
      `/api/v1/namespaces/${ns}/configmaps`,
      `/api/v1/namespaces/${ns}/serviceaccounts`,
      `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles`,
      '/apis/rbac.authorization.platform.io/v1/clusterroles',
      `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/rolebindings`,
      '/apis/rbac.authorization.platform.io/v1/rolebindings',
      '/apis/rbac.authorization.platform.io/v1/clusterrolebindings',
    ];
    for (const p of paths) {
      const res = await gh.request('GET', p);
      expect(res.status, p).to.equal(200);
      expect(res.json().kind, p).to.match(/List$/);
    }
  });
});

describe('--runtime-config', () => {
  it('stops serving disabled group/versions and resources, in discovery and on their paths', async () => {
    const gh = await startTestGatehouse(['--runtime-config=batch/v1=false,apps/v1/replicasets=false']);
    try {
      expect((await gh.request('GET', '/apis/batch/v1/cronjobs')).status).to.equal(404);
      expect((await gh.request('GET', '/apis/batch/v1')).status).to.equal(404);
      expect((await gh.request('GET', '/apis/apps/v1/replicasets')).status).to.equal(404);
      const groups = (await gh.request('GET', '/apis')).json().groups.map((g: { name: string }) => g.name);
      expect(groups).to.not.include('batch');
      expect(groups).to.not.include('apps');
      expect((await gh.request('GET', '/api/v1/configmaps')).status).to.equal(200);
    } finally {
      await gh.close();
    }
  });
});
