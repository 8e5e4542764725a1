// Deletion over real HTTPS: the two phases with finalizers (seen through GET and a watch), what a delete answers,
// preconditions, option validation, namespace termination with its content, and deletecollection by label.
import { expect } from 'chai';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { MERGE, createNamespace as createNs, eventually, expectFailure } from '../helpers/api.js';

const FINALIZER = 'example.platform.io/hold';

describe('deletion', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const createNamespace = (prefix: string): Promise<string> => createNs(gh, prefix);

  async function create(path: string, body: Record<string, unknown>): Promise<any> {
    const res = await gh.request('POST', path, { body });
    expect(res.status, `${path}: ${res.body}`).to.equal(201);
    return res.json();
  }

  /**
   * DELETE with DeleteOptions in the body. Node sends a DELETE body without framing unless Content-Length is given
   * (DELETE is not chunked by default), and the shared request helper does not set it, so it is set here.
   */
  function deleteWith(path: string, options: Record<string, unknown>): Promise<GatehouseResponse> {
    const body = JSON.stringify(options);
    return gh.request('DELETE', path, {
      body,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
    });
  }

  const configMap = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...extra },
    data: { k: 'v' },
  });

  async function watchConfigMaps(ns: string): Promise<OpenWatch> {
    const rv = (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json().metadata.resourceVersion;
    const w = await openWatch(gh.url, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`, {
      ca: gh.ca,
      token: gh.adminToken,
    });
    expect(w.status).to.equal(200);
    return w;
  }

  describe('finalizers', () => {
    it('marks an object with a finalizer as deleting, and removes it when the last finalizer goes', async () => {
      const ns = await createNamespace('fin');
      const w = await watchConfigMaps(ns);
      try {
        const created = await create(
          `/api/v1/namespaces/${ns}/configmaps`,
          configMap('held', { finalizers: [FINALIZER] }),
        );
        expect((await w.next()).type).to.equal('ADDED');

        const del = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/held`);
        expect(del.status, del.body).to.equal(200);
        const deleting = del.json();
        // The answer is the object itself, now terminating, not a Success Status.
        expect(deleting.kind).to.equal('ConfigMap');
        expect(deleting.metadata.deletionTimestamp).to.be.a('string');
        expect(deleting.metadata.finalizers).to.deep.equal([FINALIZER]);
        expect(deleting.metadata.uid).to.equal(created.metadata.uid);

        const still = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`);
        expect(still.status).to.equal(200);
        expect(still.json().metadata.deletionTimestamp).to.equal(deleting.metadata.deletionTimestamp);
        const modified = await w.next();
        expect(modified.type).to.equal('MODIFIED');
        expect((modified.object.metadata as any).deletionTimestamp).to.be.a('string');

        // A second delete changes nothing: the deletion is already under way.
        const again = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/held`);
        expect(again.status, again.body).to.equal(200);
        expect(again.json().metadata.deletionTimestamp).to.equal(deleting.metadata.deletionTimestamp);

        const release = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, {
          body: { metadata: { finalizers: null } },
          headers: MERGE,
        });
        expect(release.status, release.body).to.equal(200);
        expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`)).status).to.equal(404);
        // The watch may show the finalizer removal as a MODIFIED first; the object must end DELETED.
        let ev = await w.next();
        if (ev.type === 'MODIFIED') ev = await w.next();
        expect(ev.type).to.equal('DELETED');
        expect(ev.object.metadata?.name).to.equal('held');
      } finally {
        w.close();
      }
    });
  });

  describe('what a delete answers', () => {
    it('answers a Success Status with details for an object without finalizers', async () => {
      const ns = await createNamespace('plain');
      const cm = await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('gone'));
      const res = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/gone`);
      expect(res.status, res.body).to.equal(200);
      const status = res.json();
      expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
      expect(status.details).to.include({ name: 'gone', kind: 'configmaps', uid: cm.metadata.uid });
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/gone`)).status).to.equal(404);
      expectFailure(await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/gone`), 404, 'NotFound');
    });

    it('answers the ResourceQuota object for a ResourceQuota', async () => {
      const ns = await createNamespace('quota');
      await create(`/api/v1/namespaces/${ns}/resourcequotas`, {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'q' },
        spec: { hard: { pods: '5' } },
      });
      const res = await gh.request('DELETE', `/api/v1/namespaces/${ns}/resourcequotas/q`);
      expect(res.status, res.body).to.equal(200);
      expect(res.json()).to.deep.include({ kind: 'ResourceQuota', apiVersion: 'v1' });
      expect(res.json().metadata.name).to.equal('q');
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).status).to.equal(404);
    });

    it('accepts gracePeriodSeconds in the query and in the body, and refuses a non-integer', async () => {
      const ns = await createNamespace('grace');
      await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('a'));
      await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('b'));
      expect(
        (await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/a?gracePeriodSeconds=0`)).status,
      ).to.equal(200);
      const body = await deleteWith(`/api/v1/namespaces/${ns}/configmaps/b`, {
        kind: 'DeleteOptions',
        apiVersion: 'v1',
        gracePeriodSeconds: 30,
        propagationPolicy: 'Background',
      });
      expect(body.status, body.body).to.equal(200);
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/b`)).status).to.equal(404);
      await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('c'));
      expectFailure(
        await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/c?gracePeriodSeconds=soon`),
        400,
        'BadRequest',
      );
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status).to.equal(200);
    });

    it('refuses propagationPolicy Bogus with 422 Invalid naming the field', async () => {
      const ns = await createNamespace('policy');
      await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('p'));
      for (const res of [
        await deleteWith(`/api/v1/namespaces/${ns}/configmaps/p`, { propagationPolicy: 'Bogus' }),
        await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/p?propagationPolicy=Bogus`),
      ]) {
        const status = expectFailure(res, 422, 'Invalid');
        expect(status.message).to.contain('propagationPolicy');
        expect(status.details.causes.map((c: any) => c.field)).to.include('propagationPolicy');
      }
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/p`)).status).to.equal(200);
      for (const policy of ['Orphan', 'Foreground']) {
        await create(`/api/v1/namespaces/${ns}/configmaps`, configMap(`ok-${policy.toLowerCase()}`));
        const ok = await deleteWith(`/api/v1/namespaces/${ns}/configmaps/ok-${policy.toLowerCase()}`, {
          propagationPolicy: policy,
        });
        expect(ok.status, `${policy}: ${ok.body}`).to.equal(200);
      }
    });
  });

  describe('preconditions', () => {
    it('refuses a wrong uid or a stale resourceVersion with 409 Conflict and keeps the object', async () => {
      const ns = await createNamespace('pre');
      const cm = await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('c'));
      const wrongUid = await deleteWith(`/api/v1/namespaces/${ns}/configmaps/c`, { preconditions: { uid: 'wrong' } });
      expectFailure(wrongUid, 409, 'Conflict');

      const updated = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/c`, {
        body: { data: { k: 'v2' } },
        headers: MERGE,
      });
      expect(updated.status, updated.body).to.equal(200);
      const stale = await deleteWith(`/api/v1/namespaces/${ns}/configmaps/c`, {
        preconditions: { resourceVersion: cm.metadata.resourceVersion },
      });
      expectFailure(stale, 409, 'Conflict');
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/c`)).status).to.equal(200);

      // Matching preconditions delete.
      const current = updated.json();
      const ok = await deleteWith(`/api/v1/namespaces/${ns}/configmaps/c`, {
        preconditions: { uid: current.metadata.uid, resourceVersion: current.metadata.resourceVersion },
      });
      expect(ok.status, ok.body).to.equal(200);
    });
  });

  describe('namespaces', () => {
    const content = (ns: string) => [
      { path: `/api/v1/namespaces/${ns}/configmaps`, body: configMap('cm') },
      {
        path: `/api/v1/namespaces/${ns}/secrets`,
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'sec' }, stringData: { p: 'w' } },
      },
      {
        path: `/apis/apps/v1/namespaces/${ns}/replicasets`,
        body: {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          metadata: { name: 'rs' },
          spec: {
            selector: { matchLabels: { app: 'a' } },
            template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'img' }] } },
          },
        },
      },
      {
        path: `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles`,
        body: { apiVersion: 'rbac.authorization.platform.io/v1', kind: 'Role', metadata: { name: 'role' }, rules: [] },
      },
    ];
    const itemPath = (c: { path: string; body: any }) => `${c.path}/${c.body.metadata.name}`;
    const gone = async (path: string) => (await gh.request('GET', path)).status === 404;

    it('answers the Namespace, Terminating, and removes the content and then the namespace', async () => {
      const ns = await createNamespace('term');
      const items = content(ns);
      for (const c of items) await create(c.path, c.body);
      const res = await gh.request('DELETE', `/api/v1/namespaces/${ns}`);
      expect(res.status, res.body).to.equal(200);
      const answered = res.json();
      expect(answered.kind).to.equal('Namespace');
      expect(answered.status.phase).to.equal('Terminating');
      expect(answered.metadata.deletionTimestamp).to.be.a('string');
      for (const c of items) await eventually(`${itemPath(c)} removed`, () => gone(itemPath(c)));
      await eventually(`namespace ${ns} removed`, () => gone(`/api/v1/namespaces/${ns}`));
    });

    it('keeps a terminating namespace while an object in it has a finalizer, refusing new content', async () => {
      const ns = await createNamespace('hold');
      const items = content(ns);
      for (const c of items) await create(c.path, c.body);
      await create(`/api/v1/namespaces/${ns}/configmaps`, configMap('held', { finalizers: [FINALIZER] }));
      expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}`)).status).to.equal(200);

      for (const c of items) await eventually(`${itemPath(c)} removed`, () => gone(itemPath(c)));
      const held = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/held`);
      expect(held.status).to.equal(200);
      expect(held.json().metadata.deletionTimestamp).to.be.a('string');
      const nsNow = await gh.request('GET', `/api/v1/namespaces/${ns}`);
      expect(nsNow.status).to.equal(200);
      expect(nsNow.json().status.phase).to.equal('Terminating');

      const refused = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('late') });
      expect(expectFailure(refused, 403, 'Forbidden').message).to.contain('being terminated');

      const release = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/held`, {
        body: { metadata: { finalizers: null } },
        headers: MERGE,
      });
      expect(release.status, release.body).to.equal(200);
      await eventually(`namespace ${ns} removed`, () => gone(`/api/v1/namespaces/${ns}`));
      // The name is free again.
      expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(
        201,
      );
    });

    it('refuses to delete default with 403', async () => {
      const res = await gh.request('DELETE', '/api/v1/namespaces/default');
      expectFailure(res, 403, 'Forbidden');
      const ns = await gh.request('GET', '/api/v1/namespaces/default');
      expect(ns.status).to.equal(200);
      expect(ns.json().metadata.deletionTimestamp).to.equal(undefined);
    });
  });

  describe('deletecollection', () => {
    it('deletes exactly the objects matching the label selector and answers a Status', async () => {
      const ns = await createNamespace('dc');
      const other = await createNamespace('dc-other');
      for (const [name, labels] of [
        ['m1', { tier: 'x' }],
        ['m2', { tier: 'x' }],
        ['keep', { tier: 'y' }],
        ['bare', undefined],
      ] as const) {
        await create(`/api/v1/namespaces/${ns}/configmaps`, configMap(name, labels ? { labels } : {}));
      }
      // The same label in another namespace is out of scope for a namespaced deletecollection.
      await create(`/api/v1/namespaces/${other}/configmaps`, configMap('m1', { labels: { tier: 'x' } }));

      const res = await gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps?labelSelector=tier%3Dx`);
      expect(res.status, res.body).to.equal(200);
      expect(res.json()).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
      const left = (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`))
        .json()
        .items.map((i: any) => i.metadata.name);
      expect(left.sort()).to.deep.equal(['bare', 'keep']);
      expect((await gh.request('GET', `/api/v1/namespaces/${other}/configmaps/m1`)).status).to.equal(200);
    });
  });
});
