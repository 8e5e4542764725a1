// Two gateway processes on one PostgreSQL database: what a client of either replica must not be able to tell apart
// from one server. Writes through one replica are seen by lists and watches on the other at once, compare-and-swap
// holds across replicas, and a watch sees concurrent writes through both exactly once and in revision order.
import { expect } from 'chai';
import { replicasOnPostgres, type Replica, watchFromList as watchCollection } from '../helpers/replicas.js';
import type { OpenWatch, WatchEventJSON } from '../helpers/watch-client.js';
import { createNamespace, eventually } from '../helpers/api.js';

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

interface Item {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
}

describe('two gateway replicas on one PostgreSQL database', function () {
  this.timeout(60_000);
  // Durability is not under test here: the fast cluster keeps the run short.
  const env = replicasOnPostgres({ fast: true, names: ['a', 'b'] });
  let a: Replica;
  let b: Replica;
  const opened: OpenWatch[] = [];

  const namespace = (through: Replica): Promise<string> => createNamespace(through, 'rep');

  async function create(through: Replica, ns: string, body: object): Promise<Item> {
    const res = await through.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body });
    expect(res.status, `${through.name}: ${res.body}`).to.equal(201);
    return res.json();
  }

  async function watchFromList(through: Replica, ns: string): Promise<OpenWatch> {
    const w = await watchCollection(through, `/api/v1/namespaces/${ns}/configmaps`);
    opened.push(w);
    return w;
  }

  before(() => {
    [a, b] = env.cluster.replicas;
  });

  afterEach(() => {
    for (const w of opened.splice(0)) w.close();
  });

  it('a write through A reaches a watcher on B opened before it', async () => {
    const ns = await namespace(a);
    const w = await watchFromList(b, ns);
    const created = await create(a, ns, cm('from-a', { k: 'v' }));
    const event = await w.next(5_000);
    expect(event.type).to.equal('ADDED');
    expect(event.object.metadata?.name).to.equal('from-a');
    expect(event.object.metadata?.resourceVersion).to.equal(created.metadata.resourceVersion);
    expect((event.object as { data?: Record<string, string> }).data).to.deep.equal({ k: 'v' });
  });

  it('a list on B right after a create on A sees it, 20 times in a row', async () => {
    const ns = await namespace(a);
    for (let i = 0; i < 20; i++) {
      const created = await create(a, ns, cm(`seen-${i}`));
      const list = await b.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
      expect(list.status, list.body).to.equal(200);
      const body = list.json() as { metadata: { resourceVersion: string }; items: Item[] };
      expect(
        body.items.map((item) => item.metadata.name),
        `round ${i}`,
      ).to.include(`seen-${i}`);
      expect(body.items).to.have.length(i + 1);
      const listedAt = BigInt(body.metadata.resourceVersion);
      expect(
        listedAt >= BigInt(created.metadata.resourceVersion),
        `list at ${listedAt} before the create at ${created.metadata.resourceVersion}`,
      ).to.equal(true);
    }
  });

  it('conflicting updates through A and B with one resourceVersion: exactly one 200 and one 409, 10 times', async () => {
    const ns = await namespace(a);
    const path = `/api/v1/namespaces/${ns}/configmaps/contended`;
    await create(a, ns, cm('contended', { round: '-1' }));
    for (let round = 0; round < 10; round++) {
      const read = (await b.request('GET', path)).json() as Item;
      const put = (through: Replica) =>
        through.request('PUT', path, { body: { ...read, data: { round: String(round), by: through.name } } });
      const [fromA, fromB] = await Promise.all([put(a), put(b)]);
      const statuses = [fromA.status, fromB.status].sort();
      expect(statuses, `round ${round}: ${fromA.body} / ${fromB.body}`).to.deep.equal([200, 409]);
      const loser = fromA.status === 409 ? fromA : fromB;
      expect(loser.json()).to.include({ kind: 'Status', reason: 'Conflict', code: 409 });
      const winner = (fromA.status === 200 ? fromA : fromB).json() as Item;
      // The stored state is the winner's, read back through either replica.
      for (const through of [a, b]) {
        const now = (await through.request('GET', path)).json() as Item;
        expect(now.metadata.resourceVersion).to.equal(winner.metadata.resourceVersion);
        expect(now.data).to.deep.equal(winner.data);
      }
    }
  });

  it('a watch on B sees every write of concurrent writers through A and B exactly once, in order', async () => {
    const ns = await namespace(a);
    const w = await watchFromList(b, ns);
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    // name -> the resourceVersions its ADDED and MODIFIED events must carry; DELETED answers a Status without one.
    const acked = new Map<string, { added: string; modified: string }>();

    async function writer(through: Replica, id: string, rounds: number): Promise<void> {
      for (let i = 0; i < rounds; i++) {
        const name = `${id}-${i}`;
        const created = await create(through, ns, cm(name, { v: '0' }));
        const updated = await through.request('PUT', `${base}/${name}`, { body: { ...created, data: { v: '1' } } });
        expect(updated.status, updated.body).to.equal(200);
        const deleted = await through.request('DELETE', `${base}/${name}`);
        expect(deleted.status, deleted.body).to.equal(200);
        acked.set(name, {
          added: created.metadata.resourceVersion,
          modified: (updated.json() as Item).metadata.resourceVersion,
        });
      }
    }

    const writers = [a, b].flatMap((r) => [0, 1, 2].map((n) => writer(r, `${r.name}${n}`, 10)));
    await Promise.all(writers);
    const expected = acked.size * 3;
    const events: WatchEventJSON[] = await w.take(expected, 10_000);

    const revisions = events.map((e) => BigInt(e.object.metadata?.resourceVersion ?? '0'));
    for (let i = 1; i < revisions.length; i++)
      expect(revisions[i] > revisions[i - 1], `event ${i}: ${revisions[i]} after ${revisions[i - 1]}`).to.equal(true);
    const byName = new Map<string, WatchEventJSON[]>();
    for (const e of events) {
      const name = e.object.metadata?.name ?? '';
      byName.set(name, [...(byName.get(name) ?? []), e]);
    }
    expect([...byName.keys()].sort()).to.deep.equal([...acked.keys()].sort());
    for (const [name, rvs] of acked) {
      const seen = byName.get(name)!;
      expect(
        seen.map((e) => e.type),
        name,
      ).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
      expect(seen[0].object.metadata?.resourceVersion, name).to.equal(rvs.added);
      expect(seen[1].object.metadata?.resourceVersion, name).to.equal(rvs.modified);
    }
    // Nothing beyond the acknowledged writes: no duplicate trails the expected ones.
    await w.next(300).then(
      (extra) => expect.fail(`unexpected extra event ${extra.type} ${extra.object.metadata?.name}`),
      (e: Error) => expect(e.message).to.match(/no watch event/),
    );
  });

  it('a namespace deleted through A is emptied and removed with namespace controllers on both replicas', async () => {
    const ns = await namespace(a);
    for (let i = 0; i < 6; i++) await create(i % 2 ? a : b, ns, cm(`content-${i}`, { i: String(i) }));
    for (let i = 0; i < 3; i++) {
      const res = await b.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: { metadata: { name: `secret-${i}` }, type: 'Opaque' },
      });
      expect(res.status, res.body).to.equal(201);
    }
    const deleting = await a.request('DELETE', `/api/v1/namespaces/${ns}`);
    expect(deleting.status, deleting.body).to.equal(200);
    expect((deleting.json() as { status?: { phase?: string } }).status?.phase).to.equal('Terminating');

    await eventually(
      `namespace ${ns} removed`,
      async () => {
        const [fromA, fromB] = await Promise.all([
          a.request('GET', `/api/v1/namespaces/${ns}`),
          b.request('GET', `/api/v1/namespaces/${ns}`),
        ]);
        return fromA.status === 404 && fromB.status === 404;
      },
      20_000,
    );
    for (const resource of ['configmaps', 'secrets']) {
      const left = await b.request('GET', `/api/v1/${resource}?fieldSelector=metadata.namespace%3D${ns}`);
      expect(left.status, left.body).to.equal(200);
      expect(left.json().items, resource).to.deep.equal([]);
    }
    expect(a.alive() && b.alive(), 'both replicas still running').to.equal(true);
  });

  it('two replicas running the per-namespace controllers keep one default ServiceAccount and one root CA map, and fail nothing', async () => {
    // Started last: A and B run without these controllers, so the collections the tests above count stay theirs.
    const [c, d] = await Promise.all([
      env.cluster.start('c', ['--controllers=*']),
      env.cluster.start('d', ['--controllers=*']),
    ]);
    const ns = await namespace(c);
    const both = async (path: string) => {
      const [fromC, fromD] = await Promise.all([c.request('GET', path), d.request('GET', path)]);
      return fromC.status === 200 && fromD.status === 200 ? fromD.json() : undefined;
    };
    const saPath = `/api/v1/namespaces/${ns}/serviceaccounts/default`;
    const caPath = `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`;
    await eventually('the default ServiceAccount', () => both(saPath));
    const first = await eventually('the root CA map', () => both(caPath));
    // Both replicas race to put a deleted map back: exactly one of their creates wins.
    expect((await c.request('DELETE', caPath)).status).to.equal(200);
    const again = await eventually('the root CA map again', async () => {
      const got = await both(caPath);
      return got && got.metadata.uid !== first.metadata.uid ? got : undefined;
    });
    expect(again.data).to.deep.equal({ 'ca.crt': env.cluster.ca });
    const edited = await d.request('PATCH', caPath, {
      body: { data: { 'ca.crt': 'forged' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(edited.status, edited.body).to.equal(200);
    await eventually('the CA restored', async () => (await both(caPath))?.data['ca.crt'] === env.cluster.ca);
    const maps = await d.request('GET', `/api/v1/namespaces/${ns}/configmaps`);
    expect(maps.json().items.map((m: { metadata: { name: string } }) => m.metadata.name)).to.deep.equal([
      'kube-root-ca.crt',
    ]);
    const accounts = await d.request('GET', `/api/v1/namespaces/${ns}/serviceaccounts`);
    expect(accounts.json().items.map((m: { metadata: { name: string } }) => m.metadata.name)).to.deep.equal([
      'default',
    ]);
    for (const replica of [c, d])
      expect(replica.output(), replica.name).to.not.match(/serviceaccount controller: |root-ca-cert-publisher: /);
  });
});
