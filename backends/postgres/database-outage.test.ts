// The PostgreSQL backend while its server goes away and comes back. Each test runs a cluster of its own, since it
// stops it: reads and writes fail fast with Unavailable instead of hanging, nothing crashes, and the storage
// recovers by itself with its watches intact.
import { expect } from 'chai';
import postgres from 'postgres';
import type { KObject } from '../../api/meta/types.js';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import { isStorageError } from '../storage.js';
import { configMap, key, PREFIX, rv } from '../testing/conformance-harness.js';
import { createPostgresStorage } from './postgres-storage.js';
import { perTestInstances } from './test-support.js';

describe('postgres storage while the server is down', function () {
  this.timeout(30_000);
  const { instance, watch } = perTestInstances();

  let own: TestPostgres | undefined;
  after(async function () {
    this.timeout(30_000);
    await own?.stop();
  });

  it('fails fast with Unavailable while the server is down, and recovers by itself with the watch intact', async () => {
    own = await startPostgres({ fast: true });
    const pg = own;
    const s = await instance(pg.url, { pollIntervalMs: 60_000 });
    const before = await s.create(key('ns1', 'a'), configMap('a'));
    const watcher = watch(s, PREFIX, rv(before));
    // The fast cluster commits asynchronously: make what was committed durable before the crash.
    const admin = postgres(pg.url, { max: 1, onnotice: () => undefined });
    try {
      await admin`CHECKPOINT`;
    } finally {
      await admin.end();
    }
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
    // Polled: the storage reconnects on its own schedule to a database in another process, and announces nothing.
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
// set up ended the process with an unhandled rejection.
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
    const progressWaiters = new Set<() => void>();
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
        if (ok)
          ok = await attempt(`update ${name}`, () =>
            s.guaranteedUpdate(nodeKey(name), (o) => ({ ...o, metadata: { ...o.metadata, labels: { u: '1' } } })),
          );
        if (ok) ok = await attempt(`delete ${name}`, () => s.delete(nodeKey(name)));
        if (ok) {
          acked++;
          for (const check of [...progressWaiters]) check();
        } else {
          // Pacing, not a wait: failures would otherwise spin against the database that is down.
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
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

    /** Resolves once `count` more write rounds were acknowledged; fails past a deadline. */
    function progress(count: number): Promise<void> {
      const target = acked + count;
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (acked < target) return;
          progressWaiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          progressWaiters.delete(check);
          reject(new Error(`only ${acked} of ${target} write rounds acknowledged after the database returned`));
        }, 20_000);
        progressWaiters.add(check);
        check();
      });
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
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(loops),
        new Promise((resolve) => {
          bound = setTimeout(resolve, 2 * BOUND_MS);
        }),
      ]);
      clearTimeout(bound);
      process.off('unhandledRejection', onUnhandled);
      await s.close();
      await own.stop();
    }
    expect(unhandled.map(String), 'unhandled rejections').to.deep.equal([]);
    expect(wrong, 'failures other than Unavailable').to.deep.equal([]);
    expect(slow, 'writes slower than the bound').to.deep.equal([]);
  });
});
