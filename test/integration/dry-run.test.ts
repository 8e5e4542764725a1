// dryRun=All over real HTTPS: every write verb runs its whole pipeline and answers as usual, yet nothing reaches
// storage. A watch opened before the dry runs proves it: the first event it delivers is a later real write.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { createNamespace as createNs, expectFailure, MERGE } from '../helpers/api.js';

describe('dry run', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const createNamespace = (prefix: string): Promise<string> => createNs(gh, prefix);

  const configMap = (name: string, data: Record<string, string> = { k: 'v' }, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'dry' }, ...extra },
    data,
  });

  async function createConfigMap(ns: string, name: string, extra: Record<string, unknown> = {}): Promise<any> {
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: configMap(name, { k: 'v' }, extra),
    });
    expect(res.status, res.body).to.equal(201);
    return res.json();
  }

  async function watchFromNow(ns: string): Promise<OpenWatch> {
    const rv = (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json().metadata.resourceVersion;
    const w = await openWatch(gh.url, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`, {
      ca: gh.ca,
      token: gh.adminToken,
    });
    expect(w.status).to.equal(200);
    return w;
  }

  const get = (ns: string, name: string) => gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);

  it('stores nothing for POST, PUT, PATCH and DELETE, and a watch sees none of them', async () => {
    const ns = await createNamespace('dry');
    const existing = await createConfigMap(ns, 'existing');
    const w = await watchFromNow(ns);
    try {
      // POST: a real-looking object comes back, but the name stays free.
      const post = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: configMap('fresh', { a: '1' }),
      });
      expect(post.status, post.body).to.equal(201);
      const posted = post.json();
      expect(posted).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1' } });
      expect(posted.metadata).to.include({ name: 'fresh', namespace: ns });
      expect(posted.metadata.uid).to.be.a('string').and.not.empty;
      expect(posted.metadata.creationTimestamp).to.be.a('string');
      expect((await get(ns, 'fresh')).status).to.equal(404);

      // generateName is honoured in the answer, and still nothing is stored.
      const generated = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'gen-' } },
      });
      expect(generated.status, generated.body).to.equal(201);
      expect(generated.json().metadata.name).to.match(/^gen-[a-z0-9]{5}$/);
      expect((await get(ns, generated.json().metadata.name)).status).to.equal(404);

      // PUT: the answer carries the change, the store does not.
      const put = await gh.request('PUT', `/api/v1/namespaces/${ns}/configmaps/existing?dryRun=All`, {
        body: { ...configMap('existing', { k: 'put' }), metadata: { ...existing.metadata } },
      });
      expect(put.status, put.body).to.equal(200);
      expect(put.json().data).to.deep.equal({ k: 'put' });
      expect(put.json().metadata.uid).to.equal(existing.metadata.uid);
      let stored = (await get(ns, 'existing')).json();
      expect(stored.data).to.deep.equal({ k: 'v' });
      expect(stored.metadata.resourceVersion).to.equal(existing.metadata.resourceVersion);

      // PATCH: the same.
      const patch = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/existing?dryRun=All`, {
        body: { data: { k: 'patched' }, metadata: { labels: { extra: 'yes' } } },
        headers: MERGE,
      });
      expect(patch.status, patch.body).to.equal(200);
      expect(patch.json().data).to.deep.equal({ k: 'patched' });
      expect(patch.json().metadata.labels).to.deep.equal({ app: 'dry', extra: 'yes' });
      stored = (await get(ns, 'existing')).json();
      expect(stored.data).to.deep.equal({ k: 'v' });
      expect(stored.metadata.labels).to.deep.equal({ app: 'dry' });
      expect(stored.metadata.resourceVersion).to.equal(existing.metadata.resourceVersion);

      // DELETE: answered as a real delete would be, and the object is still there.
      const del = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/existing?dryRun=All`);
      expect(del.status, del.body).to.equal(200);
      expect(del.json()).to.include({ kind: 'Status', status: 'Success' });
      stored = (await get(ns, 'existing')).json();
      expect(stored.metadata.resourceVersion).to.equal(existing.metadata.resourceVersion);
      expect(stored.metadata.deletionTimestamp).to.equal(undefined);

      // deletecollection too.
      const dc = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?dryRun=All&labelSelector=app%3Ddry`);
      expect(dc.status, dc.body).to.equal(200);
      expect((await get(ns, 'existing')).status).to.equal(200);

      // A real write now: if any dry run had reached storage, its event would come before this one.
      await createConfigMap(ns, 'real');
      const ev = await w.next();
      expect(ev.type).to.equal('ADDED');
      expect(ev.object.metadata?.name).to.equal('real');
    } finally {
      w.close();
    }
  });

  it('does not start the deletion of an object with finalizers', async () => {
    const ns = await createNamespace('dryfin');
    const held = await createConfigMap(ns, 'held', { finalizers: ['example.platform.io/hold'] });
    const w = await watchFromNow(ns);
    try {
      const del = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/held?dryRun=All`);
      expect(del.status, del.body).to.equal(200);
      // The answer shows what a real delete would do: the object, now terminating.
      expect(del.json().metadata.deletionTimestamp).to.be.a('string');
      const stored = (await get(ns, 'held')).json();
      expect(stored.metadata.deletionTimestamp).to.equal(undefined);
      expect(stored.metadata.resourceVersion).to.equal(held.metadata.resourceVersion);

      await createConfigMap(ns, 'after');
      const ev = await w.next();
      expect(ev.type).to.equal('ADDED');
      expect(ev.object.metadata?.name).to.equal('after');
    } finally {
      w.close();
    }
  });

  it('refuses an unknown dryRun value with 422 naming the options field, as kube-apiserver does', async () => {
    const ns = await createNamespace('drybogus');
    await createConfigMap(ns, 'c');
    const post = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=Bogus`, {
      body: configMap('nope'),
    });
    expect(expectFailure(post, 422, 'Invalid').message).to.contain('dryRun');
    expect((await get(ns, 'nope')).status).to.equal(404);
    const patch = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=Bogus`, {
      body: { data: { k: 'x' } },
      headers: MERGE,
    });
    expect(expectFailure(patch, 422, 'Invalid').message).to.contain('dryRun');
    expect((await get(ns, 'c')).json().data).to.deep.equal({ k: 'v' });
  });

  it('fails a dry-run create of an existing name with 409 AlreadyExists', async () => {
    const ns = await createNamespace('dryexists');
    await createConfigMap(ns, 'taken');
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
      body: configMap('taken'),
    });
    const status = expectFailure(res, 409, 'AlreadyExists');
    expect(status.details).to.include({ name: 'taken', kind: 'configmaps' });
  });

  it('fails a dry-run create of an invalid object with 422 Invalid', async () => {
    const ns = await createNamespace('dryinvalid');
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
      body: configMap('Not_A_Valid_Name'),
    });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.details.causes.map((c: any) => c.field)).to.include('metadata.name');
    // A ReplicaSet whose selector does not match its template is refused the same way.
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'rs' },
      spec: {
        selector: { matchLabels: { app: 'a' } },
        template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image: 'img' }] } },
      },
    };
    const bad = await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets?dryRun=All`, { body: rs });
    expect(expectFailure(bad, 422, 'Invalid').details.causes.map((c: any) => c.field)).to.include(
      'spec.template.metadata.labels',
    );
  });

  it('fails a dry-run update with a stale resourceVersion with 409 Conflict', async () => {
    const ns = await createNamespace('drystale');
    const cm = await createConfigMap(ns, 'c');
    const bump = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, {
      body: { data: { k: 'v2' } },
      headers: MERGE,
    });
    expect(bump.status, bump.body).to.equal(200);
    const res = await gh.request('PUT', `/api/v1/namespaces/${ns}/configmaps/c?dryRun=All`, {
      body: { ...configMap('c', { k: 'v3' }), metadata: { name: 'c', resourceVersion: cm.metadata.resourceVersion } },
    });
    expectFailure(res, 409, 'Conflict');
  });
});
