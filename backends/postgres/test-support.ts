// What the PostgreSQL backend's test files share: one throwaway cluster per test process (started on first use,
// stopped after the last test), a fresh database per test, and a way to watch in the background while a test keeps
// writing. Test files only; nothing in the backend imports this.
import { expect } from 'chai';
import postgres from 'postgres';
import type { KObject } from '../../api/meta/types.js';
import { releaseAtFileEnd } from '../../test/helpers/leak-check.js';
import { startPostgres, type TestPostgres } from '../../test/helpers/postgres.js';
import type { Storage, StorageEvent } from '../storage.js';
import { rv, within } from '../testing/conformance-harness.js';
import { createPostgresStorage, type PostgresStorageOptions } from './postgres-storage.js';
import { decodeObject } from './queries.js';

let pg: TestPostgres | undefined;
let admin: postgres.Sql | undefined;
let databases = 0;
const databaseOf = new Map<Storage, string>();

/** The cluster every file of this process shares, and a connection to it for administration. */
export async function cluster(): Promise<{ pg: TestPostgres; admin: postgres.Sql }> {
  pg ??= await startPostgres({ fast: true, sharedByFiles: true });
  admin ??= postgres(pg.url, { max: 2, onnotice: () => undefined });
  return { pg, admin };
}

// Starting a cluster takes seconds, opening a pool does not: the pool's connections are each file's own.
releaseAtFileEnd(async () => {
  const pool = admin;
  admin = undefined;
  await pool?.end({ timeout: 1 });
});

after(async function () {
  this.timeout(30_000);
  await admin?.end({ timeout: 1 });
  await pg?.stop();
});

/** A fresh, empty database on the shared cluster; its URL. */
export async function freshDatabase(): Promise<string> {
  const c = await cluster();
  const name = `gh_${process.pid}_${++databases}`;
  await c.admin.unsafe(`CREATE DATABASE ${name}`);
  return c.pg.url.replace(/\/postgres$/, `/${name}`);
}

/** Opens a storage instance; the fallback poll is short unless the test sets it, so that nothing waits long. */
export async function open(url: string, opts: Partial<PostgresStorageOptions> = {}): Promise<Storage> {
  const storage = await createPostgresStorage({ url, pollIntervalMs: 200, ...opts });
  databaseOf.set(storage, new URL(url).pathname.slice(1));
  return storage;
}

/** Drops the database `storage` was opened on (the conformance suite's per-test cleanup). */
export async function dropDatabaseOf(storage: Storage): Promise<void> {
  const name = databaseOf.get(storage);
  databaseOf.delete(storage);
  if (name) await admin?.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

export interface Collector {
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
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value as it came
          if (failure) throw failure;
          await new Promise<void>((resolve) => (notify = resolve));
        }
      };
      await within(reached(), ms, `watch events up to revision ${revision}`);
    },
    stop: () => controller.abort(),
  };
}

/**
 * For the describe block it is called in: storage instances and background watches that are closed after each
 * test, whatever the test's outcome.
 */
export function perTestInstances(): {
  instance: (url: string, opts?: Partial<PostgresStorageOptions>) => Promise<Storage>;
  watch: (storage: Storage, prefix: string, from: bigint) => Collector;
} {
  const opened: Storage[] = [];
  const collectors: Collector[] = [];
  afterEach(async () => {
    for (const c of collectors.splice(0)) c.stop();
    for (const s of opened.splice(0)) await s.close();
  });
  return {
    async instance(url, opts = {}) {
      const s = await open(url, opts);
      opened.push(s);
      return s;
    },
    watch(storage, prefix, from) {
      const c = collect(storage, prefix, from);
      collectors.push(c);
      return c;
    },
  };
}

/** The events carry exactly these revisions, in this order, each on an object of that resourceVersion. */
export function expectContiguous(events: StorageEvent[], expected: bigint[]): void {
  expect(events.map((e) => e.revision)).to.deep.equal(expected);
  for (const e of events) expect(rv(e.object)).to.equal(e.revision);
}

/** The live objects at `revision` straight from the log table: what the SQL read path answered before the cache. */
export async function sqlState(url: string, revision: bigint): Promise<KObject[]> {
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

export const sortRevisions = (list: bigint[]): bigint[] => [...list].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
