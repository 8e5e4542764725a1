// The PostgreSQL backend against a real server that the tests start (test/helpers/postgres.ts): the shared storage
// conformance suite, then what one instance on its own database can get wrong: its cache and watchers after its own
// writes, batches of the group commit, stored text, persistence across instances, and a log reader that fell
// behind compaction. Several instances on one database: shared-database.test.ts; the database going away:
// database-outage.test.ts.
import { expect } from 'chai';
import postgres from 'postgres';
import { EVERYTHING, isStorageError } from '../storage.js';
import { configMap, dataOf, key, PREFIX, rv } from '../testing/conformance-harness.js';
import { describeStorageConformance, type ConformanceStorageOptions } from '../testing/conformance.js';
import { createLogReader } from './log-reader.js';
import type { Db } from './queries.js';
import { createReadCache } from './read-cache.js';
import { resourcePrefixOf } from '../watch-cache-stats.js';
import { createSessions } from './transaction.js';
import { dropDatabaseOf, freshDatabase, open, perTestInstances, sqlState } from './test-support.js';

describeStorageConformance(
  'postgres',
  async (opts: ConformanceStorageOptions) => open(await freshDatabase(), opts),
  dropDatabaseOf,
);

describe('postgres storage', function () {
  this.timeout(30_000);
  const { instance, watch } = perTestInstances();

  it("a replica's own writes are in its cache and reach its watchers as the log has them, without a read-back scan", async () => {
    const url = await freshDatabase();
    // No polling: only the writes themselves can bring their rows to the cache and the watchers.
    const a = await instance(url, { pollIntervalMs: 60_000 });
    const watcher = watch(a, PREFIX, await a.currentRevision());
    // A new watcher catches up from the table before it goes live, and a write landing meanwhile reaches it from
    // that read: once it has seen a first write, it is live.
    const first = await a.create(key('ns1', 'first'), configMap('first'));
    await watcher.until(rv(first));
    const created = await a.create(key('ns1', 'own'), configMap('own', { v: '1' }));
    // An `any` read is the cache as it is: the write is in it as soon as the write returned.
    expect(await a.get(key('ns1', 'own'), { read: { match: 'any' } })).to.deep.equal(created);
    const updated = await a.guaranteedUpdate(key('ns1', 'own'), (cur) => ({ ...cur, data: { v: '2' } }));
    const deleted = await a.delete(key('ns1', 'own'));
    await watcher.until(rv(updated) + 1n);
    const events = watcher.events.slice(1);
    expect(events.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED', 'DELETED']);
    expect(events[1].prevObject).to.deep.equal(created);
    expect(events[2].object).to.deep.equal(deleted);
    // Live events are made of the cache's own objects (the ones the writes answered), not parsed once more.
    expect(events[0].object).to.equal(created);
    expect(events[1].object).to.equal(updated);
    expect(events[1].prevObject).to.equal(created);
    expect(events[2].prevObject).to.equal(updated);
    // The same history as a fresh instance reads from the table.
    const b = await instance(url, { pollIntervalMs: 60_000 });
    const replayed = watch(b, PREFIX, rv(created) - 1n);
    await replayed.until(rv(updated) + 1n);
    expect(replayed.events).to.deep.equal(events);
  });

  it('counts a watcher the buffer bound ended in the watch-cache statistics, under its resource prefix', async () => {
    const a = await instance(await freshDatabase(), { pollIntervalMs: 60_000, watchBufferLimit: 2 });
    const start = await a.currentRevision();
    const slow = a.watch(`${PREFIX}ns1/`, { revision: start, recursive: true }, new AbortController().signal);
    const iterator = slow[Symbol.asyncIterator]();
    // The first step opens the watch; once the first write reached it, the watcher is live.
    const first = iterator.next();
    const keeping = watch(a, PREFIX, start);
    const o0 = await a.create(key('ns1', 'o0'), configMap('o0'));
    expect((await first).value).to.deep.include({ type: 'ADDED', key: key('ns1', 'o0') });
    await keeping.until(rv(o0));
    let last = 0n;
    for (let i = 1; i < 4; i++) last = rv(await a.create(key('ns1', `o${i}`), configMap(`o${i}`)));
    // The watcher that keeps up got these rows in the same fan-outs as the slow one: three queued, one past the bound.
    await keeping.until(last);
    expect(isStorageError(await iterator.next().catch((e: unknown) => e), 'Expired')).to.equal(true);
    expect(a.watchCacheStats?.().terminatedWatchers).to.deep.equal(new Map([[resourcePrefixOf(key('ns1', 'o0')), 1]]));
  });

  it('reaches a server at an IPv6 address: writes, reads and its log reader all connect', async () => {
    // The driver alone takes `[::1]:port` for the host `[`; the test server listens on ::1 too.
    const url = (await freshDatabase()).replace('@127.0.0.1:', '@[::1]:');
    const a = await instance(url, { pollIntervalMs: 60_000 });
    const watcher = watch(a, PREFIX, await a.currentRevision());
    const created = await a.create(key('ns1', 'v6'), configMap('v6'));
    await watcher.until(rv(created));
    expect(await a.get(key('ns1', 'v6'))).to.deep.equal(created);
  });

  it('writes of one key in one batch see each other: one create wins, the others find the key; a tombstone is re-created', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    await a.create(key('ns1', 'gone'), configMap('gone'));
    await a.delete(key('ns1', 'gone'));
    // All five are queued in one turn of the event loop, so they go as one batch.
    const ahead = a.create(key('ns1', 'ahead'), configMap('ahead'));
    const outcomes = await Promise.allSettled([
      a.create(key('ns1', 'dup'), configMap('dup', { n: '1' })),
      a.create(key('ns1', 'dup'), configMap('dup', { n: '2' })),
      a.create(key('ns1', 'gone'), configMap('gone', { v: 'again' })),
      a.create(key('ns1', 'dup'), configMap('dup', { n: '3' })),
    ]);
    await ahead;
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const o of outcomes)
      if (o.status === 'rejected') expect(isStorageError(o.reason, 'KeyExists'), String(o.reason)).to.equal(true);
    const [dup, , again] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
    expect(rv(again)).to.equal(rv(dup) + 1n);
    expect(dataOf(await a.get(key('ns1', 'dup')))).to.deep.equal({ n: '1' });
    expect(dataOf(await a.get(key('ns1', 'gone')))).to.deep.equal({ v: 'again' });
    const db = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const rows =
        await db`SELECT key, created, deleted FROM gatehouse_log WHERE key LIKE ${'%/dup'} OR key LIKE ${'%/gone'} ORDER BY revision`;
      expect(
        rows.map((r) => `${String(r.key).split('/').pop()} created=${r.created} deleted=${r.deleted}`),
      ).to.deep.equal([
        'gone created=true deleted=false',
        'gone created=false deleted=true',
        'dup created=true deleted=false',
        'gone created=true deleted=false',
      ]);
    } finally {
      await db.end();
    }
  });

  it('stored text survives the trip through the batch parameters exactly: a fresh instance reads what was written', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    // The writer nests each stored value in a JSON array parameter; the table must hold the value itself.
    const data = {
      q: 'say "hi"',
      b: 'C:\\x \\" \\\\',
      j: '{"a":"\\u0041"}',
      c: 'nul\u0000 tab\t',
      u: '日本 🚀 \u2028',
      lone: 'x\ud800y',
    };
    const created = await a.create(key('ns1', 'text'), configMap('text', data));
    const b = await instance(url, { pollIntervalMs: 60_000 });
    expect(await b.get(key('ns1', 'text'))).to.deep.equal(created);
    const [row] = await sqlState(url, rv(created));
    expect(dataOf(row)).to.deep.equal(data);
  });

  it('revisions and objects survive a new storage instance on the same database; history replays to its watchers', async () => {
    const url = await freshDatabase();
    const first = await open(url);
    const a1 = await first.create(key('ns1', 'a'), configMap('a', { v: '1' }));
    const a2 = await first.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
    const current = await first.currentRevision();
    await first.close();
    const second = await instance(url);
    expect(await second.currentRevision()).to.equal(current);
    expect(await second.get(key('ns1', 'a'))).to.deep.equal(a2);
    expect(await second.get(key('ns1', 'a'), { read: { match: 'exact', revision: rv(a1) } })).to.deep.equal(a1);
    const watcher = watch(second, PREFIX, rv(a1));
    const b = await second.create(key('ns1', 'b'), configMap('b'));
    expect(rv(b)).to.equal(current + 1n);
    await watcher.until(rv(b));
    expect(watcher.events.map((e) => [e.type, e.revision])).to.deep.equal([
      ['MODIFIED', rv(a2)],
      ['ADDED', rv(b)],
    ]);
  });

  it('a log reader that fell behind compaction reloads the read cache from a fresh snapshot and goes on from it', async () => {
    const url = await freshDatabase();
    let offset = 0;
    const a = await instance(url, { historyWindowMs: 50, now: () => Date.now() + offset });
    for (let i = 0; i < 5; i++) await a.create(key('ns1', `o${i}`), configMap(`o${i}`));
    await a.delete(key('ns1', 'o0'));
    offset += 10_000;
    const compacted = await a.compactedRevision();
    expect(compacted > 2n).to.equal(true);
    const sql: Db = postgres(url, { max: 2, onnotice: () => undefined, types: { bigint: postgres.BigInt } });
    const sessions = createSessions({ url });
    const cache = await createReadCache(sessions);
    const lost: bigint[] = [];
    // Started below the compaction mark, as a replica cut off from the database for longer than the window.
    const reader = await createLogReader({
      sql,
      url,
      listenName: 'gatehouse-listen-behind',
      start: 1n,
      pollIntervalMs: 60_000,
      deliver: (rows, mark) => cache.apply(rows, mark),
      lost: (mark) => {
        lost.push(mark);
        return cache.reload();
      },
      log: () => undefined,
    });
    try {
      expect(lost).to.deep.equal([compacted]);
      // A second fill; the rows it was filled with are no events received.
      expect(cache.stats()).to.deep.include({ initializations: 2, revision: await a.currentRevision() });
      expect(cache.stats().eventsReceived).to.deep.equal(new Map());
      expect(reader.delivered()).to.equal(await a.currentRevision());
      expect(
        cache.list({ prefix: PREFIX, start: PREFIX, revision: cache.current(), predicate: EVERYTHING, limit: Infinity })
          .items,
      ).to.deep.equal(await sqlState(url, cache.current()));
      const later = await a.create(key('ns1', 'later'), configMap('later'));
      reader.wake(rv(later));
      expect(await reader.waitFor(rv(later), 5_000)).to.equal(true);
      expect(cache.get(key('ns1', 'later'), rv(later))).to.deep.equal(later);
      expect(cache.stats().eventsReceived).to.deep.equal(new Map([[resourcePrefixOf(key('ns1', 'later')), 1]]));
    } finally {
      await reader.close();
      await sql.end();
      await sessions.close();
    }
  });
});
