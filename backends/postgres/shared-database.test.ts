// Several PostgreSQL storage instances on one database, as the gateway's replicas run: a write through one reaches
// the other's watchers and consistent reads, compare-and-swap decides between them, commit order holds under
// concurrency and a late commit, a lost LISTEN connection loses nothing, their caches agree with the table, paged
// lists stay at their snapshot, and instances that migrate one fresh database at once all start.
import { expect } from 'chai';
import postgres from 'postgres';
import { isStorageError } from '../storage.js';
import { configMap, dataOf, key, PREFIX, rv } from '../testing/conformance-harness.js';
import { cluster, expectContiguous, freshDatabase, perTestInstances, sortRevisions, sqlState } from './test-support.js';

describe('postgres storage: instances sharing a database', function () {
  this.timeout(30_000);
  const { instance, watch } = perTestInstances();

  it('two instances on one database: a write through A reaches a watcher on B; A and B share one revision counter', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url, { pollIntervalMs: 60_000 });
    const watcher = watch(b, PREFIX, await b.currentRevision());
    const created = await a.create(key('ns1', 'x'), configMap('x', { v: '1' }));
    await watcher.until(rv(created));
    expect(watcher.events[0]).to.deep.include({ type: 'ADDED', revision: rv(created) });
    expect(watcher.events[0].object).to.deep.equal(created);
    // A consistent read on B right after the write on A sees it.
    expect(await b.get(key('ns1', 'x'))).to.deep.equal(created);
    const fromB = await b.create(key('ns1', 'y'), configMap('y'));
    expect(rv(fromB)).to.equal(rv(created) + 1n);
  });

  it('conflicting writes through A and B: exactly one wins per revision, concurrent increments all land', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const base = await a.create(key('ns1', 'c'), configMap('c', { n: '0' }));
    const pre = { preconditions: { resourceVersion: base.metadata.resourceVersion } };
    const outcomes = await Promise.allSettled([
      a.guaranteedUpdate(key('ns1', 'c'), (cur) => ({ ...cur, data: { n: 'a' } }), pre),
      b.guaranteedUpdate(key('ns1', 'c'), (cur) => ({ ...cur, data: { n: 'b' } }), pre),
    ]);
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).to.have.length(1);
    expect(lost).to.have.length(1);
    expect(isStorageError(lost[0].reason, 'Conflict')).to.equal(true);

    const increments = Array.from({ length: 30 }, (_, i) =>
      (i % 2 ? a : b).guaranteedUpdate(key('ns1', 'c'), (cur) => ({
        ...cur,
        data: { n: String((Number(dataOf(cur).n) || 0) + 1) },
      })),
    );
    const results = await Promise.all(increments);
    expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).to.equal(30);
    expect(dataOf(await b.get(key('ns1', 'c'))).n).to.equal('30');
  });

  it('a watcher never sees a revision before a lower one: writes held behind a slow transaction arrive in order', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const start = await a.currentRevision();
    const watcher = watch(b, PREFIX, start);
    // A raw transaction holding the write lock stands in for a writer whose commit is late.
    const raw = postgres(url, { max: 1, onnotice: () => undefined });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const slow = raw.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${0x6761746502n.toString()}::bigint)`;
      locked();
      await held;
    });
    await lockTaken;
    const writes = Array.from({ length: 40 }, (_, i) =>
      (i % 2 ? a : b).create(key(`w${i % 4}`, `o${i}`), configMap(`o${i}`, {}, {}, `w${i % 4}`)),
    );
    const extra = a.create(key('late', 'x'), configMap('x', {}, {}, 'late'));
    release();
    await slow;
    await raw.end();
    const revisions = sortRevisions([...(await Promise.all(writes)).map(rv), rv(await extra)]);
    expect(revisions).to.deep.equal(Array.from({ length: 41 }, (_, i) => start + 1n + BigInt(i)));
    await watcher.until(revisions[revisions.length - 1]);
    expectContiguous(watcher.events, revisions);
  });

  it('after pg_terminate_backend of the LISTEN connection, the watcher misses nothing and sees nothing twice', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    // No fallback poll within the test: recovery must come from the reconnect's catch-up.
    const b = await instance(url, { pollIntervalMs: 60_000, listenName: 'gatehouse-listen-b' });
    const watcher = watch(b, PREFIX, await b.currentRevision());
    const written: bigint[] = [];
    const { admin } = await cluster();
    const database = new URL(url).pathname.slice(1);
    // The server's view is the only sign of the reconnect (it backs off a little), so it is polled, boundedly.
    const listening = async (): Promise<number[]> => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const rows = await admin<
          { pid: number }[]
        >`SELECT pid FROM pg_stat_activity WHERE application_name = 'gatehouse-listen-b' AND datname = ${database}`;
        if (rows.length > 0 || Date.now() > deadline) return rows.map((r) => r.pid);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    for (let i = 0; i < 60; i++) {
      written.push(rv(await a.create(key('ns1', `o${i}`), configMap(`o${i}`))));
      if (i === 20 || i === 40) {
        const pids = await listening();
        expect(pids.length, 'LISTEN connections found').to.equal(1);
        await admin`SELECT pg_terminate_backend(${pids[0]})`;
      }
    }
    await watcher.until(written[written.length - 1]);
    expectContiguous(watcher.events, written);
    expect((await listening()).length, 'LISTEN connection re-established').to.equal(1);
  });

  it('a consistent read on B right after a write on A sees it, also when B has not been told of the write', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    // No fallback poll: only the notification or the revision fence can bring B's cache forward.
    const b = await instance(url, { pollIntervalMs: 60_000 });
    for (let i = 0; i < 20; i++) {
      const created = await a.create(key('ns1', `o${i}`), configMap(`o${i}`, { i: String(i) }));
      expect(await b.get(key('ns1', `o${i}`))).to.deep.equal(created);
      const list = await b.getList(PREFIX);
      expect(list.items).to.have.length(i + 1);
      expect(list.revision >= rv(created)).to.equal(true);
      const updated = await b.guaranteedUpdate(key('ns1', `o${i}`), (cur) => ({ ...cur, data: { i: `${i}b` } }));
      expect(await a.get(key('ns1', `o${i}`))).to.deep.equal(updated);
      expect(await a.count(PREFIX)).to.equal(i + 1);
    }
  });

  it('the caches of two instances agree with SQL after a burst of concurrent writes through both', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const start = await a.currentRevision();
    await Promise.all(
      Array.from({ length: 8 }, async (_, w) => {
        const s = w % 2 ? a : b;
        for (let i = 0; i < 25; i++) {
          const k = key(`ns${i % 3}`, `o${(w * 7 + i) % 30}`);
          const op = (w + i) % 4;
          try {
            if (op === 0) await s.delete(k);
            else
              await s.guaranteedUpdate(k, (cur) => ({ ...cur, data: { by: String(w), i: String(i) } }), {
                createFrom: () => configMap(`o${(w * 7 + i) % 30}`, {}, {}, `ns${i % 3}`),
              });
          } catch (e) {
            if (!isStorageError(e, 'NotFound')) throw e;
          }
        }
      }),
    );
    const end = await a.currentRevision();
    expect(end > start + 100n).to.equal(true);
    for (const s of [a, b]) {
      const latest = await s.getList(PREFIX);
      expect(latest.revision).to.equal(end);
      expect(latest.items, 'latest').to.deep.equal(await sqlState(url, end));
      for (const at of [start + 1n, (start + end) / 2n, end - 1n]) {
        const exact = await s.getList(PREFIX, { read: { match: 'exact', revision: at } });
        expect(exact.items, `at ${at}`).to.deep.equal(await sqlState(url, at));
      }
    }
  });

  it("serves the pages of a list at the first page's revision while writes continue through both instances", async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    for (let i = 0; i < 60; i++)
      await a.create(key('ns1', `o${String(i).padStart(2, '0')}`), configMap(`o${i}`, { v: '0' }));
    let writing = true;
    const writes = (async () => {
      for (let i = 0; writing; i++) {
        const s = i % 2 ? a : b;
        const k = key('ns1', `o${String(i % 60).padStart(2, '0')}`);
        if (i % 5 === 4) await s.delete(k).catch(() => undefined);
        else
          await s.guaranteedUpdate(k, (cur) => ({ ...cur, data: { v: String(i) } }), {
            createFrom: () => configMap(`o${i % 60}`),
          });
      }
    })();
    try {
      for (const reader of [a, b]) {
        const first = await reader.getList(PREFIX, { limit: 7 });
        const items = [...first.items];
        let page = first;
        while (page.continue) {
          // A write lands between every two pages.
          await a.guaranteedUpdate(key('ns1', 'o00'), (cur) => ({ ...cur, data: { v: 'between' } }), {
            createFrom: () => configMap('o00'),
          });
          page = await (page === first ? b : reader).getList(PREFIX, { limit: 7, continue: page.continue });
          expect(page.revision).to.equal(first.revision);
          items.push(...page.items);
        }
        expect(items).to.deep.equal(await sqlState(url, first.revision));
        expect(first.remainingItemCount).to.equal(items.length - first.items.length);
      }
    } finally {
      writing = false;
      await writes;
    }
  });

  it('several instances migrating one fresh database at once all start', async () => {
    const url = await freshDatabase();
    const stores = await Promise.all([instance(url), instance(url), instance(url)]);
    for (const s of stores) await s.readiness();
    const db = postgres(url, { max: 1 });
    const versions = await db`SELECT version FROM gatehouse_schema_migrations`;
    await db.end();
    expect(versions.map((r) => r.version).sort()).to.deep.equal([1, 2]);
  });
});
