// The PostgreSQL backend against a real server that this file starts (test/helpers/postgres.ts): the shared
// conformance suite, then what only a shared database can get wrong: several instances on one database, commit
// order under concurrency, a lost LISTEN connection, persistence, and the database going away.
import { expect } from 'chai';
import postgres from 'postgres';
import type { KObject } from '../../api/meta/types.js';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { EVERYTHING, isStorageError, type Storage, type StorageEvent } from '../storage.js';
import { configMap, dataOf, key, PREFIX, rv, within } from '../testing/conformance-harness.js';
import { describeStorageConformance, type ConformanceStorageOptions } from '../testing/conformance.js';
import { createPostgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
import { createLogReader } from './log-reader.js';
import { decodeObject, type Db } from './queries.js';
import { createReadCache } from './read-cache.js';
import { createSessions } from './transaction.js';

let pg: TestPostgres | undefined;
let admin: postgres.Sql | undefined;
let databases = 0;
const databaseOf = new Map<Storage, string>();

async function cluster(): Promise<{ pg: TestPostgres; admin: postgres.Sql }> {
  if (!pg) {
    pg = await startPostgres({ fast: true });
    admin = postgres(pg.url, { max: 2, onnotice: () => undefined });
  }
  return { pg, admin: admin! };
}

/** A fresh, empty database on the shared cluster; its URL. */
async function freshDatabase(): Promise<string> {
  const c = await cluster();
  const name = `gh_${process.pid}_${++databases}`;
  await c.admin.unsafe(`CREATE DATABASE ${name}`);
  return c.pg.url.replace(/\/postgres$/, `/${name}`);
}

async function dropDatabase(name: string): Promise<void> {
  await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

async function open(url: string, opts: Partial<PostgresStorageOptions> = {}): Promise<Storage> {
  const storage = await createPostgresStorage({ url, pollIntervalMs: 200, ...opts });
  databaseOf.set(storage, new URL(url).pathname.slice(1));
  return storage;
}

after(async function () {
  this.timeout(30_000);
  await admin?.end({ timeout: 1 });
  await pg?.stop();
});

describeStorageConformance(
  'postgres',
  async (opts: ConformanceStorageOptions) => open(await freshDatabase(), opts),
  async (storage) => {
    const name = databaseOf.get(storage);
    databaseOf.delete(storage);
    if (name) await dropDatabase(name);
  },
);

interface Collector {
  events: StorageEvent[];
  /** Resolves once an event with at least this revision arrived. */
  until(revision: bigint, ms?: number): Promise<void>;
  stop(): void;
}

/** Collects a watch's events in the background, so a test can keep writing while it watches. */
function collect(storage: Storage, prefix: string, from: bigint): Collector {
  const controller = new AbortController();
  const events: StorageEvent[] = [];
  let notify: (() => void) | undefined;
  let failure: unknown;
  void (async () => {
    try {
      for await (const e of storage.watch(prefix, { revision: from, recursive: true }, controller.signal)) {
        events.push(e);
        notify?.();
      }
    } catch (e) {
      failure = e;
      notify?.();
    }
  })();
  return {
    events,
    async until(revision, ms = 5_000) {
      const reached = async (): Promise<void> => {
        while (!(events.length && events[events.length - 1].revision >= revision)) {
          if (failure) throw failure;
          await new Promise<void>((resolve) => (notify = resolve));
        }
      };
      await within(reached(), ms, `watch events up to revision ${revision}`);
    },
    stop: () => controller.abort(),
  };
}

function expectContiguous(events: StorageEvent[], expected: bigint[]): void {
  expect(events.map((e) => e.revision)).to.deep.equal(expected);
  for (const e of events) expect(rv(e.object)).to.equal(e.revision);
}

/** The live objects at `revision` straight from the log table: what the SQL read path answered before the cache. */
async function sqlState(url: string, revision: bigint): Promise<KObject[]> {
  const db = postgres(url, { max: 1, onnotice: () => undefined, types: { bigint: postgres.BigInt } });
  try {
    const rows = await db<{ key: string; revision: bigint; deleted: boolean; value: string }[]>`
      SELECT DISTINCT ON (key) key, revision, deleted, value FROM gatehouse_log
      WHERE revision <= ${revision.toString()}::bigint ORDER BY key, revision DESC`;
    // JavaScript string order, as the cache's: byte order for the ASCII keys of these tests.
    rows.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
    return rows.filter((r) => !r.deleted).map((r) => decodeObject(r.value, r.revision));
  } finally {
    await db.end();
  }
}

const sortRevisions = (list: bigint[]): bigint[] => [...list].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));

describe('postgres storage', function () {
  this.timeout(30_000);
  const opened: Storage[] = [];
  const collectors: Collector[] = [];
  async function instance(url: string, opts: Partial<PostgresStorageOptions> = {}): Promise<Storage> {
    const s = await open(url, opts);
    opened.push(s);
    return s;
  }
  afterEach(async () => {
    for (const c of collectors.splice(0)) c.stop();
    for (const s of opened.splice(0)) await s.close();
  });

  it('two instances on one database: a write through A reaches a watcher on B; A and B share one revision counter', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url, { pollIntervalMs: 60_000 });
    const watcher = collect(b, PREFIX, await b.currentRevision());
    collectors.push(watcher);
    const created = await a.create(key('ns1', 'x'), configMap('x', { v: '1' }));
    await watcher.until(rv(created));
    expect(watcher.events[0]).to.deep.include({ type: 'ADDED', revision: rv(created) });
    expect(watcher.events[0].object).to.deep.equal(created);
    // A consistent read on B right after the write on A sees it.
    expect(await b.get(key('ns1', 'x'))).to.deep.equal(created);
    const fromB = await b.create(key('ns1', 'y'), configMap('y'));
    expect(rv(fromB)).to.equal(rv(created) + 1n);
  });

  it("a replica's own writes are in its cache and reach its watchers as the log has them, without a read-back scan", async () => {
    const url = await freshDatabase();
    // No polling: only the writes themselves can bring their rows to the cache and the watchers.
    const a = await instance(url, { pollIntervalMs: 60_000 });
    const watcher = collect(a, PREFIX, await a.currentRevision());
    collectors.push(watcher);
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
    const replayed = collect(b, PREFIX, rv(created) - 1n);
    collectors.push(replayed);
    await replayed.until(rv(updated) + 1n);
    expect(replayed.events).to.deep.equal(events);
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
      (i % 2 ? a : b).guaranteedUpdate(key('ns1', 'c'), (cur) => ({ ...cur, data: { n: String((Number(dataOf(cur).n) || 0) + 1) } })),
    );
    const results = await Promise.all(increments);
    expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).to.equal(30);
    expect(dataOf(await b.get(key('ns1', 'c'))).n).to.equal('30');
  });

  it('writes of one key in one batch see each other: one create wins, the others find the key; a tombstone is re-created', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    await a.create(key('ns1', 'gone'), configMap('gone'));
    await a.delete(key('ns1', 'gone'));
    // The first write is in flight while the next four queue behind it, so those four go as one batch.
    const ahead = a.create(key('ns1', 'ahead'), configMap('ahead'));
    const outcomes = await Promise.allSettled([
      a.create(key('ns1', 'dup'), configMap('dup', { n: '1' })),
      a.create(key('ns1', 'dup'), configMap('dup', { n: '2' })),
      a.create(key('ns1', 'gone'), configMap('gone', { v: 'again' })),
      a.create(key('ns1', 'dup'), configMap('dup', { n: '3' })),
    ]);
    await ahead;
    expect(outcomes.map((o) => o.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    for (const o of outcomes) if (o.status === 'rejected') expect(isStorageError(o.reason, 'KeyExists'), String(o.reason)).to.equal(true);
    const [dup, , again] = outcomes.map((o) => (o.status === 'fulfilled' ? o.value : undefined));
    expect(rv(again!)).to.equal(rv(dup!) + 1n);
    expect(dataOf(await a.get(key('ns1', 'dup')))).to.deep.equal({ n: '1' });
    expect(dataOf(await a.get(key('ns1', 'gone')))).to.deep.equal({ v: 'again' });
    const db = postgres(url, { max: 1, onnotice: () => undefined });
    try {
      const rows = await db`SELECT key, created, deleted FROM gatehouse_log WHERE key LIKE ${'%/dup'} OR key LIKE ${'%/gone'} ORDER BY revision`;
      expect(rows.map((r) => `${String(r.key).split('/').pop()} created=${r.created} deleted=${r.deleted}`)).to.deep.equal([
        'gone created=true deleted=false', 'gone created=false deleted=true', 'dup created=true deleted=false', 'gone created=true deleted=false',
      ]);
    } finally {
      await db.end();
    }
  });

  it('stored text survives the trip through the batch parameters exactly: a fresh instance reads what was written', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    // The writer nests each stored value in a JSON array parameter; the table must hold the value itself.
    const data = { q: 'say "hi"', b: 'C:\\x \\" \\\\', j: '{"a":"\\u0041"}', c: 'nul\u0000 tab\t', u: '日本 🚀 \u2028', lone: 'x\ud800y' };
    const created = await a.create(key('ns1', 'text'), configMap('text', data));
    const b = await instance(url, { pollIntervalMs: 60_000 });
    expect(await b.get(key('ns1', 'text'))).to.deep.equal(created);
    const [row] = await sqlState(url, rv(created));
    expect(dataOf(row)).to.deep.equal(data);
  });

  it('a watcher never sees a revision before a lower one: writes held behind a slow transaction arrive in order', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    const start = await a.currentRevision();
    const watcher = collect(b, PREFIX, start);
    collectors.push(watcher);
    // A raw transaction holding the write lock stands in for a writer whose commit is late.
    const raw = postgres(url, { max: 1, onnotice: () => undefined });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const slow = raw.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${(0x6761746502n).toString()}::bigint)`;
      locked();
      await held;
    });
    await lockTaken;
    const writes = Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).create(key(`w${i % 4}`, `o${i}`), configMap(`o${i}`, {}, {}, `w${i % 4}`)));
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
    const watcher = collect(b, PREFIX, await b.currentRevision());
    collectors.push(watcher);
    const written: bigint[] = [];
    const { admin } = await cluster();
    const database = new URL(url).pathname.slice(1);
    // The server's view is the only sign of the reconnect (it backs off a little), so it is polled, boundedly.
    const listening = async (): Promise<number[]> => {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const rows = await admin<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE application_name = 'gatehouse-listen-b' AND datname = ${database}`;
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
    const watcher = collect(second, PREFIX, rv(a1));
    collectors.push(watcher);
    const b = await second.create(key('ns1', 'b'), configMap('b'));
    expect(rv(b)).to.equal(current + 1n);
    await watcher.until(rv(b));
    expect(watcher.events.map((e) => [e.type, e.revision])).to.deep.equal([['MODIFIED', rv(a2)], ['ADDED', rv(b)]]);
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
    await Promise.all(Array.from({ length: 8 }, async (_, w) => {
      const s = w % 2 ? a : b;
      for (let i = 0; i < 25; i++) {
        const k = key(`ns${i % 3}`, `o${(w * 7 + i) % 30}`);
        const op = (w + i) % 4;
        try {
          if (op === 0) await s.delete(k);
          else await s.guaranteedUpdate(k, (cur) => ({ ...cur, data: { by: String(w), i: String(i) } }), { createFrom: () => configMap(`o${(w * 7 + i) % 30}`, {}, {}, `ns${i % 3}`) });
        } catch (e) {
          if (!isStorageError(e, 'NotFound')) throw e;
        }
      }
    }));
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

  it('serves the pages of a list at the first page\'s revision while writes continue through both instances', async () => {
    const url = await freshDatabase();
    const a = await instance(url);
    const b = await instance(url);
    for (let i = 0; i < 60; i++) await a.create(key('ns1', `o${String(i).padStart(2, '0')}`), configMap(`o${i}`, { v: '0' }));
    let writing = true;
    const writes = (async () => {
      for (let i = 0; writing; i++) {
        const s = i % 2 ? a : b;
        const k = key('ns1', `o${String(i % 60).padStart(2, '0')}`);
        if (i % 5 === 4) await s.delete(k).catch(() => undefined);
        else await s.guaranteedUpdate(k, (cur) => ({ ...cur, data: { v: String(i) } }), { createFrom: () => configMap(`o${i % 60}`) });
      }
    })();
    try {
      for (const reader of [a, b]) {
        const first = await reader.getList(PREFIX, { limit: 7 });
        const items = [...first.items];
        let page = first;
        while (page.continue) {
          // A write lands between every two pages.
          await a.guaranteedUpdate(key('ns1', 'o00'), (cur) => ({ ...cur, data: { v: 'between' } }), { createFrom: () => configMap('o00') });
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
      expect(reader.delivered()).to.equal(await a.currentRevision());
      expect(cache.list({ prefix: PREFIX, start: PREFIX, revision: cache.current(), predicate: EVERYTHING, limit: Infinity }).items)
        .to.deep.equal(await sqlState(url, cache.current()));
      const later = await a.create(key('ns1', 'later'), configMap('later'));
      reader.wake(rv(later));
      expect(await reader.waitFor(rv(later), 5_000)).to.equal(true);
      expect(cache.get(key('ns1', 'later'), rv(later))).to.deep.equal(later);
    } finally {
      await reader.close();
      await sql.end();
      await sessions.close();
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

  // Last: it stops the shared server.
  it('fails fast with Unavailable while the server is down, and recovers by itself with the watch intact', async () => {
    const url = await freshDatabase();
    const s = await instance(url, { pollIntervalMs: 60_000 });
    const before = await s.create(key('ns1', 'a'), configMap('a'));
    const watcher = collect(s, PREFIX, rv(before));
    collectors.push(watcher);
    const { pg, admin } = await cluster();
    // The fast cluster commits asynchronously: make what was committed durable before the crash.
    await admin`CHECKPOINT`;
    await pg.kill();
    const calls = [
      () => s.readiness(),
      () => s.get(key('ns1', 'a')),
      () => s.getList(PREFIX),
      () => s.count(PREFIX),
      () => s.currentRevision(),
      () => s.create(key('ns1', 'b'), configMap('b')),
    ];
    for (const call of calls) {
      const started = Date.now();
      let caught: unknown;
      await call().catch((e: unknown) => (caught = e));
      expect(isStorageError(caught, 'Unavailable'), String(caught)).to.equal(true);
      expect(Date.now() - started).to.be.below(2_000);
    }
    // Consistent reads fail, as the cache cannot be proven current; reads at any revision answer from the cache.
    expect(await s.get(key('ns1', 'a'), { read: { match: 'any' } })).to.deep.equal(before);
    expect((await s.getList(PREFIX, { read: { match: 'any' } })).items).to.deep.equal([before]);
    expect(await s.get(key('ns1', 'a'), { read: { match: 'exact', revision: rv(before) } })).to.deep.equal(before);
    await pg.restart();
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        await s.readiness();
        break;
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const after = await s.create(key('ns1', 'c'), configMap('c'));
    await watcher.until(rv(after));
    expect(watcher.events.map((e) => e.revision)).to.deep.equal([rv(after)]);
  });
});

// Writes that reach the group-commit writer while the database restarts: the driver's pool once leaked its
// connections to waiters that had already failed (every later write then hung), and a connection lost while being
// set up ended the process with an unhandled rejection. A cluster of its own: the suite above stops the shared one.
describe('postgres storage writes while the database goes away', function () {
  this.timeout(120_000);
  const BOUND_MS = 5_000;

  it('create, update and delete fail fast with Unavailable while it is down, nothing crashes, and writes recover', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const own = await startPostgres({ fast: true });
    const s = await createPostgresStorage({ url: own.url, pollIntervalMs: 200 });
    const node = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    const nodeKey = (name: string): string => `/registry/nodes/${name}`;
    const slow: string[] = [];
    const wrong: string[] = [];
    let acked = 0;
    let seq = 0;
    let stopped = false;

    /** One write, timed; a failure must be Unavailable. */
    async function attempt(label: string, write: () => Promise<unknown>): Promise<boolean> {
      const started = Date.now();
      try {
        await write();
        return true;
      } catch (e) {
        if (!isStorageError(e, 'Unavailable')) wrong.push(`${label}: ${String(e)}`);
        return false;
      } finally {
        const ms = Date.now() - started;
        if (ms >= BOUND_MS) slow.push(`${label}: ${ms} ms`);
      }
    }

    // Creates, updates and deletes of cluster-scoped keys (no namespace check in front of them), many at once so
    // that batches and fresh connections are in flight whenever the database goes.
    async function loop(id: number): Promise<void> {
      while (!stopped) {
        const name = `n${id}-${++seq}`;
        let ok = await attempt(`create ${name}`, () => s.create(nodeKey(name), node(name)));
        if (ok) ok = await attempt(`update ${name}`, () => s.guaranteedUpdate(nodeKey(name), (o) => ({ ...o, metadata: { ...o.metadata, labels: { u: '1' } } })));
        if (ok) ok = await attempt(`delete ${name}`, () => s.delete(nodeKey(name)));
        if (ok) acked++;
        else await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }

    /** While the database is down: each kind of write, one by one, fails with Unavailable within the bound. */
    async function expectDown(): Promise<void> {
      await s.create(nodeKey('kept'), node('kept')).catch(() => undefined);
      const calls: [string, () => Promise<unknown>][] = [
        ['create', () => s.create(nodeKey(`down-${++seq}`), node('down'))],
        ['guaranteedUpdate', () => s.guaranteedUpdate(nodeKey('kept'), (o) => o, { createFrom: () => node('kept') })],
        ['delete', () => s.delete(nodeKey('kept'))],
      ];
      for (const [name, call] of calls) {
        const started = Date.now();
        let caught: unknown;
        await call().catch((e: unknown) => (caught = e));
        expect(isStorageError(caught, 'Unavailable'), `${name}: ${String(caught)}`).to.equal(true);
        expect(Date.now() - started, name).to.be.below(BOUND_MS);
      }
    }

    async function progress(count: number): Promise<void> {
      const target = acked + count;
      const deadline = Date.now() + 20_000;
      while (acked < target) {
        if (Date.now() > deadline) expect.fail(`only ${acked} of ${target} write rounds acknowledged after the database returned`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    const loops = Array.from({ length: 12 }, (_, i) => loop(i));
    try {
      await progress(50);
      for (let round = 0; round < 3; round++) {
        // A crash stop, long enough to probe, then the ordinary restart (a fast shutdown) under the same load.
        await own.kill();
        await expectDown();
        await own.restart();
        await progress(50);
        await own.restart();
        await progress(50);
      }
    } finally {
      stopped = true;
      // Bounded, so that a write that hangs fails the assertions below rather than the test's timeout.
      await Promise.race([Promise.all(loops), new Promise((resolve) => setTimeout(resolve, 2 * BOUND_MS))]);
      process.off('unhandledRejection', onUnhandled);
      await s.close();
      await own.stop();
    }
    expect(unhandled.map(String), 'unhandled rejections').to.deep.equal([]);
    expect(wrong, 'failures other than Unavailable').to.deep.equal([]);
    expect(slow, 'writes slower than the bound').to.deep.equal([]);
  });
});
