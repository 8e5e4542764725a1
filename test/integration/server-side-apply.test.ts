// Server-side apply and field ownership over real HTTPS: managedFields as kube-apiserver records them, conflicts,
// force, shared ownership, removal of fields a manager stops applying, Update managers and the managedFields resets.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';

const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const entry = (obj: any, manager: string, operation = 'Apply'): Entry | undefined =>
  (obj.metadata.managedFields as Entry[] | undefined)?.find((e) => e.manager === manager && e.operation === operation);

describe('server-side apply', function () {
  let gh: TestGatehouse;
  let ns: string;
  let cms: string;

  const apply = (name: string, body: unknown, manager: string, extra = '') =>
    gh.request('PATCH', `${cms}/${name}?fieldManager=${manager}${extra}`, { body, headers: APPLY });
  const cm = (name: string, data: Record<string, string>, labels?: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...(labels ? { labels } : {}) },
    data,
  });

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'ssa');
    cms = `/api/v1/namespaces/${ns}/configmaps`;
  });
  after(async () => gh.close());

  it('creates a missing object (201) and records the applier with the fields it set', async () => {
    const name = uniqueName('create');
    const res = await apply(name, cm(name, { a: '1' }, { app: 'x' }), 'tool');
    expect(res.status).to.equal(201);
    const obj = res.json();
    expect(obj.data).to.deep.equal({ a: '1' });
    expect(obj.metadata.managedFields).to.have.length(1);
    const e = obj.metadata.managedFields[0];
    expect(e).to.include({ manager: 'tool', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1' });
    expect(e.time).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(e.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } });
  });

  it('accepts YAML as well as JSON bodies', async () => {
    const name = uniqueName('yaml');
    const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`;
    const res = await apply(name, yaml, 'tool');
    expect(res.status).to.equal(201);
    expect(res.json().data).to.deep.equal({ k: 'v' });
  });

  it('records Update managers for POST (fieldManager or the User-Agent) and merge patches', async () => {
    const name = uniqueName('update');
    const created = await gh.request('POST', `${cms}?fieldManager=creator`, { body: cm(name, { a: '1' }) });
    expect(entry(created.json(), 'creator', 'Update')?.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {} } });
    const patched = await gh.request('PATCH', `${cms}/${name}`, {
      body: { data: { b: '2' } },
      headers: { ...MERGE, 'user-agent': 'my-agent/1.0 (linux)' },
    });
    expect(patched.status).to.equal(200);
    const obj = patched.json();
    expect(entry(obj, 'my-agent', 'Update')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:b': {} } });
    expect(entry(obj, 'creator', 'Update')?.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:a': {} } });
  });

  it('conflicts (409, each field and manager named) when a value owned by another manager changes, and force takes it', async () => {
    const name = uniqueName('conflict');
    await apply(name, cm(name, { a: '1', b: '2' }), 'first');
    const conflict = await apply(name, cm(name, { a: 'changed', b: 'changed' }), 'second');
    const status = expectFailure(conflict, 409, 'Conflict');
    expect(status.message).to.equal('Apply failed with 2 conflicts: conflicts with "first":\n- .data.a\n- .data.b');
    expect(status.details.causes).to.deep.equal([
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.b' },
    ]);
    const forced = await apply(name, cm(name, { a: 'changed' }), 'second', '&force=true');
    expect(forced.status).to.equal(200);
    const obj = forced.json();
    expect(obj.data).to.deep.equal({ a: 'changed', b: '2' });
    expect(entry(obj, 'second')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} } });
    expect(entry(obj, 'first')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:b': {} } });
  });

  it('names an Update manager with its apiVersion and time in a conflict', async () => {
    const name = uniqueName('upd-conflict');
    await gh.request('POST', `${cms}?fieldManager=editor`, { body: cm(name, { a: '1' }) });
    const conflict = await apply(name, cm(name, { a: '2' }), 'applier');
    const status = expectFailure(conflict, 409, 'Conflict');
    expect(status.message).to.match(
      /^Apply failed with 1 conflict: conflict with "editor" using v1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: \.data\.a$/,
    );
  });

  it('shares ownership when two managers apply the same value', async () => {
    const name = uniqueName('shared');
    await apply(name, cm(name, { a: '1' }), 'one');
    const res = await apply(name, cm(name, { a: '1' }), 'two');
    expect(res.status).to.equal(200);
    const obj = res.json();
    expect(entry(obj, 'one')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} } });
    expect(entry(obj, 'two')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} } });
    // Dropped by one owner, the field stays while the other still applies it.
    const dropped = await apply(name, cm(name, {}), 'one');
    expect(dropped.json().data).to.deep.equal({ a: '1' });
  });

  it('removes fields the manager stops applying when nobody else owns them', async () => {
    const name = uniqueName('remove');
    await apply(name, cm(name, { a: '1', b: '2' }, { x: 'y' }), 'tool');
    const res = await apply(name, cm(name, { a: '1' }), 'tool');
    const obj = res.json();
    expect(obj.data).to.deep.equal({ a: '1' });
    expect(obj.metadata.labels ?? {}).to.deep.equal({});
    expect(entry(obj, 'tool')?.fieldsV1).to.deep.equal({ 'f:data': { 'f:a': {} } });
  });

  it('merges keyed lists element by element and owns elements by key', async () => {
    const rss = `/apis/apps/v1/namespaces/${ns}/replicasets`;
    const name = uniqueName('rs');
    const rs = (containers: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name },
      spec: {
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers } },
      },
    });
    const first = await gh.request('PATCH', `${rss}/${name}?fieldManager=a`, {
      headers: APPLY,
      body: rs([{ name: 'one', image: 'img:1' }]),
    });
    expect(first.status).to.equal(201);
    const second = await gh.request('PATCH', `${rss}/${name}?fieldManager=b`, {
      headers: APPLY,
      body: rs([{ name: 'two', image: 'img:2' }]),
    });
    expect(second.status).to.equal(200);
    const obj = second.json();
    expect(obj.spec.template.spec.containers.map((c: { name: string }) => c.name)).to.deep.equal(['one', 'two']);
    const owned = entry(obj, 'b')!.fieldsV1 as any;
    expect(owned['f:spec']['f:template']['f:spec']['f:containers']).to.deep.equal({
      'k:{"name":"two"}': { '.': {}, 'f:image': {}, 'f:name': {} },
    });
    // Changing the image of a's container is a conflict naming the element by its key.
    const conflict = await gh.request('PATCH', `${rss}/${name}?fieldManager=b`, {
      headers: APPLY,
      body: rs([{ name: 'one', image: 'img:9' }]),
    });
    expect(expectFailure(conflict, 409, 'Conflict').message).to.equal(
      'Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="one"].image',
    );
  });

  it('answers 400/422 for bad apply requests, naming the problem', async () => {
    const name = uniqueName('bad');
    const missingManager = await gh.request('PATCH', `${cms}/${name}`, { body: cm(name, {}), headers: APPLY });
    expect(expectFailure(missingManager, 422, 'Invalid').message).to.contain(
      'fieldManager: Required value: is required for apply patch',
    );
    const noKind = await apply(name, { apiVersion: 'v1', metadata: { name } }, 'tool');
    expect(expectFailure(noKind, 400, 'BadRequest').message).to.contain('apiVersion and kind');
    const withManaged = await apply(name, { ...cm(name, {}), metadata: { name, managedFields: [] } }, 'tool');
    expect(expectFailure(withManaged, 400, 'BadRequest').message).to.contain('metadata.managedFields must be nil');
    const forceOnMerge = await gh.request('PATCH', `${cms}/${name}?force=true`, { body: {}, headers: MERGE });
    expect(expectFailure(forceOnMerge, 422, 'Invalid').message).to.contain(
      'force: Forbidden: may not be specified for non-apply patch',
    );
    const badYaml = await apply(name, 'a: [', 'tool');
    expectFailure(badYaml, 400, 'BadRequest');
    const tooLong = await gh.request('PATCH', `${cms}/${name}?fieldManager=${'m'.repeat(129)}`, {
      body: cm(name, {}),
      headers: APPLY,
    });
    // The value is never echoed, as upstream's "too long" field errors.
    expect(expectFailure(tooLong, 422, 'Invalid').message).to.contain(
      'fieldManager: Too long: may not be more than 128 bytes',
    );
  });

  it('makes an apply conditional on a resourceVersion it carries (stale → 409)', async () => {
    const name = uniqueName('rv');
    const created = (await apply(name, cm(name, { a: '1' }), 'tool')).json();
    await apply(name, cm(name, { a: '2' }), 'tool');
    const stale = await apply(
      name,
      { ...cm(name, { a: '3' }), metadata: { name, resourceVersion: created.metadata.resourceVersion } },
      'tool',
    );
    expectFailure(stale, 409, 'Conflict');
  });

  it('strips every entry for a JSON patch replacing managedFields with [{}], and keeps them for []', async () => {
    const name = uniqueName('reset');
    await apply(name, cm(name, { a: '1' }), 'tool');
    const kept = await gh.request('PATCH', `${cms}/${name}`, {
      headers: JSON_PATCH,
      body: [{ op: 'replace', path: '/metadata/managedFields', value: [] }],
    });
    expect(kept.status).to.equal(200);
    expect(entry(kept.json(), 'tool')).to.not.equal(undefined);
    const stripped = await gh.request('PATCH', `${cms}/${name}`, {
      headers: JSON_PATCH,
      body: [{ op: 'replace', path: '/metadata/managedFields', value: [{}] }],
    });
    expect(stripped.status).to.equal(200);
    expect(stripped.json().metadata.managedFields).to.equal(undefined);
  });

  it('records PUT as an Update and a status write with its subresource; apply to the main resource owns no status', async () => {
    const nss = '/api/v1/namespaces';
    const name = uniqueName('ns-apply');
    const created = await gh.request('PATCH', `${nss}/${name}?fieldManager=tool`, {
      headers: APPLY,
      body: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { a: 'b' } },
        status: { phase: 'Terminating' },
      },
    });
    expect(created.status).to.equal(201);
    expect(created.json().status.phase).to.equal('Active');
    expect(entry(created.json(), 'tool')?.fieldsV1).to.deep.equal({ 'f:metadata': { 'f:labels': { 'f:a': {} } } });

    const current = created.json();
    const put = await gh.request('PUT', `${nss}/${name}?fieldManager=putter`, {
      body: { ...current, metadata: { ...current.metadata, annotations: { note: 'x' } } },
    });
    expect(put.status).to.equal(200);
    expect(entry(put.json(), 'putter', 'Update')?.fieldsV1).to.deep.equal({
      'f:metadata': { 'f:annotations': { '.': {}, 'f:note': {} } },
    });

    const status = await gh.request('PATCH', `${nss}/${name}/status?fieldManager=reporter`, {
      headers: MERGE,
      body: { status: { conditions: [{ type: 'Custom', status: 'True' }] } },
    });
    expect(status.status).to.equal(200);
    const reporter = entry(status.json(), 'reporter', 'Update') as Entry;
    expect(reporter.subresource).to.equal('status');
    expect(Object.keys(reporter.fieldsV1)).to.deep.equal(['f:status']);
  });

  it('applies to the status subresource, recording the subresource, and answers 404 there for a missing object', async () => {
    const nodes = '/api/v1/nodes';
    const name = uniqueName('status-apply');
    const missing = await gh.request('PATCH', `${nodes}/${name}/status?fieldManager=kubelet`, {
      headers: APPLY,
      body: { apiVersion: 'v1', kind: 'Node', metadata: { name } },
    });
    expectFailure(missing, 404, 'NotFound');
    expect(
      (await gh.request('POST', nodes, { body: { apiVersion: 'v1', kind: 'Node', metadata: { name } } })).status,
    ).to.equal(201);
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name },
      status: { conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const applied = await gh.request('PATCH', `${nodes}/${name}/status?fieldManager=kubelet`, { headers: APPLY, body });
    expect(applied.status).to.equal(200);
    const obj = applied.json();
    expect(obj.status.conditions.map((c: { type: string }) => c.type)).to.deep.equal(['Ready']);
    const kubelet = entry(obj, 'kubelet') as Entry;
    expect(kubelet.subresource).to.equal('status');
    expect(Object.keys(kubelet.fieldsV1)).to.deep.equal(['f:status']);
  });

  describe('an applier whose entry owns maps and list elements as a whole (FieldsV1 "." markers)', () => {
    /** Rewrites the manager's fieldsV1 by JSON patch, as kubectl does when it moves ownership from client-side apply. */
    const setFieldsV1 = async (path: string, obj: any, manager: string, fieldsV1: unknown) => {
      const index = (obj.metadata.managedFields as Entry[]).findIndex((e) => e.manager === manager);
      const res = await gh.request('PATCH', path, {
        headers: JSON_PATCH,
        body: [{ op: 'replace', path: `/metadata/managedFields/${index}/fieldsV1`, value: fieldsV1 }],
      });
      expect(res.status).to.equal(200);
      return res.json();
    };

    it('re-applying the same ConfigMap keeps data and labels, and the apply after it changes nothing', async () => {
      const name = uniqueName('dot');
      const body = cm(name, { a: '1' }, { app: 'x' });
      const created = (await apply(name, body, 'm1')).json();
      await setFieldsV1(`${cms}/${name}`, created, 'm1', {
        'f:data': { '.': {}, 'f:a': {} },
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
      });
      const again = await apply(name, body, 'm1');
      expect(again.status).to.equal(200);
      const obj = again.json();
      expect(obj.data).to.deep.equal({ a: '1' });
      expect(obj.metadata.labels).to.deep.equal({ app: 'x' });
      expect(entry(obj, 'm1')?.fieldsV1).to.deep.equal({
        'f:data': { 'f:a': {} },
        'f:metadata': { 'f:labels': { 'f:app': {} } },
      });
      const third = (await apply(name, body, 'm1')).json();
      expect(third.metadata.resourceVersion).to.equal(obj.metadata.resourceVersion);
    });

    it('still removes a map it owned as a whole once nothing in it is applied or owned', async () => {
      const name = uniqueName('dot-drop');
      const created = (await apply(name, cm(name, { a: '1' }), 'm1')).json();
      await setFieldsV1(`${cms}/${name}`, created, 'm1', { 'f:data': { '.': {}, 'f:a': {} } });
      const res = await apply(name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }, 'm1');
      expect(res.json().data).to.equal(undefined);
    });

    it('re-applying the same ReplicaSet succeeds and keeps the selector and template labels', async () => {
      const rss = `/apis/apps/v1/namespaces/${ns}/replicasets`;
      const name = uniqueName('rs-dot');
      const body = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, labels: { app: name } },
        spec: {
          replicas: 0,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } },
        },
      };
      const created = await gh.request('PATCH', `${rss}/${name}?fieldManager=m1`, { headers: APPLY, body });
      expect(created.status).to.equal(201);
      const owned = entry(created.json(), 'm1')!.fieldsV1 as any;
      const dotted = structuredClone(owned);
      dotted['f:metadata']['f:labels']['.'] = {};
      // The selector is atomic (owned as a whole already); the labels maps are granular.
      expect(owned['f:spec']['f:selector']).to.deep.equal({});
      dotted['f:spec']['f:template']['f:metadata']['f:labels']['.'] = {};
      await setFieldsV1(`${rss}/${name}`, created.json(), 'm1', dotted);
      for (let round = 0; round < 2; round++) {
        const again = await gh.request('PATCH', `${rss}/${name}?fieldManager=m1`, { headers: APPLY, body });
        expect(again.status, again.body).to.equal(200);
        const obj = again.json();
        expect(obj.spec.selector).to.deep.equal({ matchLabels: { app: name } });
        expect(obj.spec.template.metadata.labels).to.deep.equal({ app: name });
        expect(obj.metadata.labels).to.deep.equal({ app: name });
        expect(entry(obj, 'm1')?.fieldsV1).to.deep.equal(owned);
      }
    });
  });

  it('does not bump the object for an apply that changes nothing', async () => {
    const name = uniqueName('noop');
    const first = (await apply(name, cm(name, { a: '1' }), 'tool')).json();
    const again = (await apply(name, cm(name, { a: '1' }), 'tool')).json();
    expect(again.metadata.resourceVersion).to.equal(first.metadata.resourceVersion);
  });
});
