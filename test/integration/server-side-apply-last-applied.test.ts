// Moving from client-side to server-side apply over real HTTPS: the field manager `kubectl` may take over fields whose
// live value still equals the last-applied-configuration annotation, and keeps that annotation equal to what it
// applies; other managers, other values and annotations of another group-version still conflict.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const ownerOf = (obj: any, manager: string) =>
  obj.metadata.managedFields?.find((e: any) => e.manager === manager)?.fieldsV1;

describe('server-side apply after client-side apply (last-applied-configuration)', function () {
  let gh: TestGatehouse;
  let ns: string;
  let cms: string;

  const cm = (name: string, data: Record<string, string>, annotations?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(annotations ? { annotations } : {}) },
    data,
  });
  const apply = (name: string, body: unknown, manager = 'kubectl') =>
    gh.request('PATCH', `${cms}/${name}?fieldManager=${manager}&force=false`, { body, headers: APPLY });
  /** What `kubectl apply -f` (client-side) leaves: the object created by its Update manager with the annotation. */
  const clientSideApplied = async (name: string, data: Record<string, string>, recorded: unknown = cm(name, data)) => {
    const annotation = `${JSON.stringify(recorded)}\n`;
    const res = await gh.request('POST', `${cms}?fieldManager=kubectl-client-side-apply`, {
      body: cm(name, data, { [LAST_APPLIED]: annotation }),
    });
    expect(res.status).to.equal(201);
    return res.json();
  };

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'ssa-csa');
    cms = `/api/v1/namespaces/${ns}/configmaps`;
  });
  after(async () => gh.close());

  it('lets kubectl take over fields whose live value is still the last-applied one, and rewrites the annotation', async () => {
    const name = uniqueName('takeover');
    await clientSideApplied(name, { a: '1', b: '2' });
    const res = await apply(name, cm(name, { a: 'changed', b: '2' }));
    expect(res.status, res.body).to.equal(200);
    const obj = res.json();
    expect(obj.data).to.deep.equal({ a: 'changed', b: '2' });
    expect(ownerOf(obj, 'kubectl')).to.deep.equal({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    expect(ownerOf(obj, 'kubectl-client-side-apply')).to.deep.equal({
      'f:data': { '.': {}, 'f:b': {} },
      'f:metadata': { 'f:annotations': { '.': {}, [`f:${LAST_APPLIED}`]: {} } },
    });
    // encoding/json of the applied body: keys sorted, a trailing newline.
    expect(obj.metadata.annotations[LAST_APPLIED]).to.equal(
      `{"apiVersion":"v1","data":{"a":"changed","b":"2"},"kind":"ConfigMap","metadata":{"name":"${name}"}}\n`,
    );
  });

  it('still answers 409 for a field whose live value differs from the annotation, naming only that one', async () => {
    const name = uniqueName('differs');
    await clientSideApplied(name, { a: '1', b: '2' });
    const edited = await gh.request('PATCH', `${cms}/${name}?fieldManager=editor`, {
      headers: MERGE,
      body: { data: { b: 'edited' } },
    });
    expect(edited.status).to.equal(200);
    const res = await apply(name, cm(name, { a: 'changed', b: 'mine' }));
    const status = expectFailure(res, 409, 'Conflict');
    expect(status.message).to.match(
      /^Apply failed with 1 conflict: conflict with "editor" using v1 at [0-9TZ:-]+: \.data\.b$/,
    );
    expect(status.details.causes.map((c: any) => c.field)).to.deep.equal(['.data.b']);
    const stored = (await gh.request('GET', `${cms}/${name}`)).json();
    expect(stored.data).to.deep.equal({ a: '1', b: 'edited' });
  });

  it('takes an annotation nested deeper than any body may be as no usable annotation: a 409, not a 500', async () => {
    const name = uniqueName('deep');
    // Any client may write the annotation; 40,000 levels fit its size limit and overflowed the comparison's walk.
    let deep = '1';
    for (let i = 0; i < 40_000; i++) deep = `{"x":${deep}}`;
    const annotation = `{"apiVersion":"v1","kind":"ConfigMap","data":{"a":"1"},"x":${deep}}`;
    const created = await gh.request('POST', `${cms}?fieldManager=kubectl-client-side-apply`, {
      body: cm(name, { a: '1' }, { [LAST_APPLIED]: annotation }),
    });
    expect(created.status, created.body).to.equal(201);
    const res = await apply(name, cm(name, { a: 'changed' }));
    expectFailure(res, 409, 'Conflict');
  });

  it('waives nothing for another field manager, without an annotation, or for an annotation of another group-version', async () => {
    const other = uniqueName('other-manager');
    await clientSideApplied(other, { a: '1' });
    expectFailure(await apply(other, cm(other, { a: '2' }), 'kubectl-ssa'), 409, 'Conflict');

    const bare = uniqueName('bare');
    expect(
      (await gh.request('POST', `${cms}?fieldManager=kubectl-client-side-apply`, { body: cm(bare, { a: '1' }) }))
        .status,
    ).to.equal(201);
    expectFailure(await apply(bare, cm(bare, { a: '2' })), 409, 'Conflict');

    const versioned = uniqueName('versioned');
    await clientSideApplied(versioned, { a: '1' }, { ...cm(versioned, { a: '1' }), apiVersion: 'v2' });
    expectFailure(await apply(versioned, cm(versioned, { a: '2' })), 409, 'Conflict');
  });

  it("reads an annotation written in a hidden alias group as the request's own group", async () => {
    const roles = `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles`;
    const name = uniqueName('role');
    const role = (group: string, verbs: string[]) => ({
      apiVersion: `${group}/v1`,
      kind: 'Role',
      metadata: { name },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs }],
    });
    const recorded = `${JSON.stringify(role('rbac.authorization.k8s.io', ['get']))}\n`;
    const created = await gh.request('POST', `${roles}?fieldManager=kubectl-client-side-apply`, {
      body: {
        ...role('rbac.authorization.platform.io', ['get']),
        metadata: { name, annotations: { [LAST_APPLIED]: recorded } },
      },
    });
    expect(created.status).to.equal(201);
    const res = await gh.request('PATCH', `${roles}/${name}?fieldManager=kubectl`, {
      headers: APPLY,
      body: role('rbac.authorization.platform.io', ['get', 'list']),
    });
    expect(res.status, res.body).to.equal(200);
    expect(res.json().rules[0].verbs).to.deep.equal(['get', 'list']);
  });

  it('leaves an object without the annotation without one, and drops it when the annotations would outgrow their limit', async () => {
    const plain = uniqueName('plain');
    const first = await apply(plain, cm(plain, { a: '1' }));
    expect(first.status).to.equal(201);
    expect(first.json().metadata.annotations).to.equal(undefined);

    const big = uniqueName('big');
    // 200 KiB of other annotations: the rewritten annotation, carrying 100 KiB of data, would pass the 256 KiB limit.
    const res = await gh.request('POST', `${cms}?fieldManager=kubectl-client-side-apply`, {
      body: cm(
        big,
        { a: '1' },
        { filler: 'x'.repeat(200 * 1024), [LAST_APPLIED]: `${JSON.stringify(cm(big, { a: '1' }))}\n` },
      ),
    });
    expect(res.status).to.equal(201);
    const small = await apply(big, cm(big, { a: '1', b: 'y'.repeat(10 * 1024) }));
    expect(small.status, small.body).to.equal(200);
    expect(JSON.parse(small.json().metadata.annotations[LAST_APPLIED]).data.b).to.have.length(10 * 1024);
    const large = await apply(big, cm(big, { a: '1', b: 'y'.repeat(100 * 1024) }));
    expect(large.status, large.body).to.equal(200);
    const obj = large.json();
    expect(obj.data.b).to.have.length(100 * 1024);
    expect(obj.metadata.annotations).to.deep.equal({ filler: 'x'.repeat(200 * 1024) });
  });

  it('encodes the annotation as encoding/json does: byte-ordered keys, HTML characters escaped, the annotation itself left out', async () => {
    const name = uniqueName('encoding');
    // Created by this apply with an annotation of its own, which is rewritten at once.
    const body = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, annotations: { [LAST_APPLIED]: 'ignored' } },
      data: { b: '<&>', '10': 'x', '9': 'y', a: '1' },
    };
    const res = await apply(name, body);
    expect(res.status, res.body).to.equal(201);
    expect(res.json().metadata.annotations[LAST_APPLIED]).to.equal(
      `{"apiVersion":"v1","data":{"10":"x","9":"y","a":"1","b":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"${name}"}}\n`,
    );
  });
});
