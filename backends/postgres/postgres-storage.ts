// The PostgreSQL backend: the storage contract over an append-only revision log shared by every gateway replica.
// Writes go through the group-commit writer (writer.ts); one log reader per instance (log-reader.ts) keeps an
// in-memory read cache (read-cache.ts) current and fans the same rows out to watchers (watch-hub.ts); the
// compactor keeps the history window (compactor.ts). The schema is migrated on start (schema.ts).
//
// Gets, lists and counts are answered from the read cache. Reads at `latest` stay consistent across replicas: the
// revision fence (revision-fence.ts) asks the database for its current revision and waits until the cache has
// applied it, so a read sees every write committed before it arrived, on any replica, and fails with Unavailable
// rather than answer from a cache it cannot prove current. `any` reads answer from the cache at once, even while the
// database is away. Writes read the key's newest row by SQL: their preconditions must hold against the database.
import postgres from 'postgres';
import type { KObject } from '../../api/meta/types.js';
import { decodeContinue } from '../continue-token.js';
import {
  EVERYTHING,
  StorageError,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ListResult,
  type ReadRevision,
  type Storage,
  type StorageEvent,
  type TryUpdate,
  type UpdateOptions,
  type WatchOptions,
} from '../storage.js';
import { createCompactor } from './compactor.js';
import { ipv6HostOptions, redactUrl, toStorageError } from './errors.js';
import { createLogReader } from './log-reader.js';
import { decodeObject, encodeObject, readBounds, readKey, readLogAfter, type KeyRow } from './queries.js';
import { createPoolTracker, readStats } from './stats.js';
import { createReadCache, type ReadCache } from './read-cache.js';
import { createRevisionFence } from './revision-fence.js';
import { migrate } from './schema.js';
import { clientOptions, createSessions, readRetryingLostConnection } from './transaction.js';
import { createWatchHub } from './watch-hub.js';
import { createWriter } from './writer.js';
import { isObject } from '../../api/meta/types.js';
import { checkPreconditions, intake, notFound, watchOpenedOnFirstStep } from '../storage-support.js';
import { PrefixCounter } from '../watch-cache-stats.js';

export interface PostgresStorageOptions {
  /** postgres://user:password@host:port/database; never logged with its password. */
  url: string;
  /** How long writes stay readable at their revision and replayable to watchers. Default 5 minutes. */
  historyWindowMs?: number;
  /** How long a read at a future revision waits for it before TooLargeRevision. Default 3 s. */
  notOlderThanWaitMs?: number;
  /** Interval of progress BOOKMARK events to idle watchers that asked for them. Default 5 s. */
  bookmarkIntervalMs?: number;
  /** The fallback log poll for lost notifications. Default 1 s. */
  pollIntervalMs?: number;
  /** Clock for written_at and the history window; injectable so tests can expire history without sleeping. */
  now?: () => number;
  log?: (line: string) => void;
  /** Pool size for reads and writes (the LISTEN connection is extra). Default 20. */
  maxConnections?: number;
  /** application_name of the LISTEN connection. Default 'gatehouse-listen'. */
  listenName?: string;
  /** Writes committed per transaction by the group-commit writer. Default 256; 1 disables batching (benchmarks). */
  maxWriteBatch?: number;
  /** Events a watcher may have queued before it is ended with Expired. Default 10,000. */
  watchBufferLimit?: number;
}

const READINESS_TIMEOUT_MS = 1_500;
// How long a consistent read waits for the log reader to bring the cache to the database's revision: one log scan,
// normally a millisecond; the bound keeps a reader that cannot read the log from hanging requests.
const CATCH_UP_MS = 2_000;

function live(row: KeyRow | undefined): row is KeyRow {
  return row !== undefined && !row.deleted;
}

export async function createPostgresStorage(opts: PostgresStorageOptions): Promise<Storage> {
  const historyWindowMs = opts.historyWindowMs ?? 5 * 60_000;
  const notOlderThanWaitMs = opts.notOlderThanWaitMs ?? 3_000;
  const now = opts.now ?? Date.now;
  const log = opts.log ?? (() => undefined);
  // Reads and NOTIFYs; never a transaction or a reserved connection (transaction.ts), which take sessions.
  const maxConnections = opts.maxConnections ?? 20;
  const pool = createPoolTracker(maxConnections);
  const sql = pool.wrap(
    postgres(opts.url, {
      ...clientOptions('gatehouse'),
      ...ipv6HostOptions(opts.url),
      max: maxConnections,
      onclose: () => pool.closed(),
    }),
  );
  const sessions = createSessions({ url: opts.url, applicationName: 'gatehouse' });

  let closed = false;
  let cache: ReadCache;
  try {
    await migrate(sessions, log);
    cache = await createReadCache(sessions);
  } catch (e) {
    await Promise.all([sql.end({ timeout: 1 }), sessions.close()]);
    const error = toStorageError(e);
    throw error instanceof StorageError
      ? new StorageError(error.code, `postgres storage at ${redactUrl(opts.url)}: ${error.message}`)
      : error;
  }

  const overflowed = new PrefixCounter();
  const hub = createWatchHub({
    overflowed,
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5_000,
    bufferLimit: opts.watchBufferLimit ?? 10_000,
    delivered: () => reader.delivered(),
    async readLog(after, limit, prefix) {
      // A watcher catching up stops at what the reader delivered (the reader's fan-out brings the rest), so it
      // never sees an event the read cache does not have yet.
      const chunk = await readLogAfter(sql, after, limit, prefix);
      const delivered = reader.delivered();
      const end = chunk.rows.findIndex((row) => row.revision > delivered);
      return end < 0 ? chunk : { compacted: chunk.compacted, rows: chunk.rows.slice(0, end) };
    },
  });
  const reader = await createLogReader({
    sql,
    url: opts.url,
    listenName: opts.listenName ?? 'gatehouse-listen',
    start: cache.current(),
    pollIntervalMs: opts.pollIntervalMs ?? 1_000,
    // The cache first: whoever learns of a revision from a watch event finds it in the cache.
    deliver(rows, compacted) {
      const entries = cache.apply(rows, compacted);
      hub.publish(rows, entries);
    },
    lost(compacted) {
      hub.endAll(
        new StorageError(
          'Expired',
          `watch fell behind the history window (compacted to ${compacted}); relist and watch again`,
        ),
      );
      return cache.reload();
    },
    log,
  });
  const writer = createWriter({
    sql,
    sessions,
    now,
    log,
    maxBatch: opts.maxWriteBatch,
    onCommit: (_revision, rows) => reader.offer(rows),
  });
  const compactor = createCompactor({
    sessions,
    historyWindowMs,
    now,
    log,
    compacted: (mark) => cache.compactTo(mark),
  });
  const fence = createRevisionFence({
    query: () => readRetryingLostConnection(() => readBounds(sql)),
    cache,
    reader,
    catchUpMs: CATCH_UP_MS,
  });

  /**
   * Every entry point: refuses calls after close and applies compaction that is due by the (injectable) clock. A
   * failed pass does not fail the call (the timer retries it): `any` reads are answered from the cache even while
   * the database is away, and whatever else needs the database fails on its own query.
   */
  async function enter(key = ''): Promise<void> {
    if (closed) throw new StorageError('Unavailable', 'storage is closed', key);
    await compactor.maybeCompact().catch((e: unknown) => {
      const error = toStorageError(e);
      if (!(error instanceof StorageError && error.code === 'Unavailable'))
        log(`error: postgres storage: compaction failed: ${(e as Error).message}`);
    });
  }

  /** Runs an entry point with driver errors mapped to the storage catalog; a caller's own errors pass through. */
  async function guard<T>(key: string, fn: () => Promise<T>): Promise<T> {
    try {
      await enter(key);
      return await fn();
    } catch (e) {
      throw toStorageError(e, key);
    }
  }

  function expired(key: string, revision: bigint): StorageError {
    return new StorageError(
      'Expired',
      `too old resource version: ${revision} (${cache.compacted()})`,
      key,
      revision,
      cache.current(),
    );
  }

  /** Waits for a future revision to be committed and cached; TooLargeRevision when it is not within notOlderThanWaitMs. */
  async function waitForRevision(revision: bigint, key: string): Promise<void> {
    if (await reader.waitFor(revision, notOlderThanWaitMs)) return fence.reach(revision, key);
    // The reader may lag (a lost hint between polls): the database has the last word.
    const { current } = await fence.bounds();
    if (current < revision)
      throw new StorageError(
        'TooLargeRevision',
        `Too large resource version: ${revision}, current: ${current}`,
        key,
        revision,
        current,
      );
    await fence.reach(revision, key);
  }

  async function chooseRevision(spec: ReadRevision | undefined, key: string): Promise<bigint> {
    if (!spec || spec.match === 'latest') return fence.latest(key);
    if (spec.match === 'any') return cache.current();
    if (spec.match === 'exact' && spec.revision < cache.compacted()) throw expired(key, spec.revision);
    if (spec.revision > cache.current()) await waitForRevision(spec.revision, key);
    return spec.match === 'notOlderThan' ? cache.current() : spec.revision;
  }

  /**
   * Runs `read` on the cache at the revision `spec` asks for, in the same synchronous step as the check against the
   * window: a compaction mark learned during the waits may have moved it.
   */
  async function readAt<T>(spec: ReadRevision | undefined, key: string, read: (revision: bigint) => T): Promise<T> {
    const revision = await chooseRevision(spec, key);
    if (revision < cache.compacted()) throw expired(key, revision);
    return read(revision);
  }

  async function readHead(key: string): Promise<KeyRow | undefined> {
    return (await readKey(sql, key, null)).row;
  }

  function get(key: string, getOpts: GetOptions = {}): Promise<KObject> {
    return guard(key, async () => {
      return readAt(getOpts.read, key, (revision) => {
        const object = cache.get(key, revision);
        if (!object) throw notFound(key, revision);
        return object;
      });
    });
  }

  function getList(prefix: string, listOpts: ListOptions = {}): Promise<ListResult> {
    return guard(prefix, async () => {
      let start = prefix;
      let spec = listOpts.read;
      if (listOpts.continue) {
        const position = decodeContinue(listOpts.continue, prefix, cache.compacted());
        start = position.start;
        spec = { match: 'exact', revision: position.revision };
      }
      const predicate = listOpts.predicate ?? EVERYTHING;
      const limit = listOpts.limit && listOpts.limit > 0 ? listOpts.limit : Infinity;
      return readAt(spec, prefix, (revision) => cache.list({ prefix, start, revision, predicate, limit }));
    });
  }

  /**
   * The object a write committed: the read cache's (shared, frozen) when its rows already reached the cache, as they
   * do when the writer hands them over (log-reader offer), which saves decoding the value once more; later reads of
   * the same version then share it too. Decoded from the row otherwise.
   */
  function committed(key: string, result: { revision: bigint; value: string }): KObject {
    const cached =
      cache.current() >= result.revision && result.revision >= cache.compacted()
        ? cache.get(key, result.revision)
        : undefined;
    return cached ?? decodeObject(result.value, result.revision);
  }

  function create(key: string, obj: KObject): Promise<KObject> {
    return guard(key, async () => {
      // Encoded as it is: a private copy first (intake) would only be stringified and dropped.
      const result = await writer.write({
        key,
        expect: 'absent',
        value: encodeObject(isObject(obj.metadata) ? obj : { ...obj, metadata: {} }),
      });
      if (!result.ok) throw new StorageError('KeyExists', `key exists: ${key}`, key, result.head?.revision);
      return committed(key, result);
    });
  }

  function guaranteedUpdate(key: string, tryUpdate: TryUpdate, updateOpts: UpdateOptions = {}): Promise<KObject> {
    return guard(key, async () => {
      let head = await readHead(key);
      for (;;) {
        if (!live(head) && !updateOpts.createFrom) throw notFound(key);
        const current = live(head) ? decodeObject(head.value, head.revision) : undefined;
        checkPreconditions(key, current, updateOpts.preconditions);
        const base = live(head) ? decodeObject(head.value, head.revision) : intake(updateOpts.createFrom!());
        const value = encodeObject(await tryUpdate(base));
        await enter(key);
        if (live(head) && value === head.value) return current!;
        const result = await writer.write({ key, expect: live(head) ? head.revision : 'absent', value });
        if (result.ok) return committed(key, result);
        // Someone wrote the key since it was read: start over from the newest row the writer saw.
        head = result.head;
      }
    });
  }

  function remove(key: string, deleteOpts: DeleteOptions = {}): Promise<KObject> {
    return guard(key, async () => {
      let head = await readHead(key);
      for (;;) {
        if (!live(head)) throw notFound(key);
        checkPreconditions(key, decodeObject(head.value, head.revision), deleteOpts.preconditions);
        if (deleteOpts.validate) {
          await deleteOpts.validate(decodeObject(head.value, head.revision));
          await enter(key);
        }
        const result = await writer.write({ key, expect: head.revision, value: null });
        if (result.ok) return decodeObject(result.value, result.revision);
        head = result.head;
      }
    });
  }

  function watch(key: string, watchOpts: WatchOptions, signal: AbortSignal): AsyncIterable<StorageEvent> {
    return watchOpenedOnFirstStep(async () => {
      if (signal.aborted) return undefined;
      await guard(key, async () => undefined);
      // close() ended every watcher while this one awaited the guard: end it too, as close ends open watches.
      if (closed) return undefined;
      // Expired (start below the compaction mark) surfaces from the watcher's first catch-up read.
      const request = {
        key,
        recursive: watchOpts.recursive,
        progressNotify: watchOpts.progressNotify ?? false,
        revision: watchOpts.revision,
      };
      return hub.open(request, signal);
    });
  }

  return {
    get,
    getList,
    create,
    guaranteedUpdate,
    delete: remove,
    watch,
    count: (prefix) => guard(prefix, () => readAt(undefined, prefix, (revision) => cache.count(prefix, revision))),
    currentRevision: () => guard('', async () => (await fence.bounds()).current),
    compactedRevision: () => guard('', async () => (await fence.bounds()).compacted),
    async readiness() {
      if (closed) throw new StorageError('Unavailable', 'storage is closed');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new StorageError('Unavailable', `database did not answer within ${READINESS_TIMEOUT_MS} ms`)),
          READINESS_TIMEOUT_MS,
        );
      });
      try {
        await Promise.race([sql`SELECT 1`, timeout]);
      } catch (e) {
        const error = toStorageError(e);
        throw error instanceof StorageError
          ? error
          : new StorageError('Unavailable', `database not ready: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    },
    watchCacheStats: () => ({ ...cache.stats(), terminatedWatchers: overflowed.counts }),
    storageStats: () =>
      readStats({ sql, pool, sessions, listening: () => reader.listening(), cached: () => cache.current() }),
    async close() {
      if (closed) return;
      closed = true;
      writer.close();
      compactor.close();
      hub.endAll();
      await reader.close();
      await Promise.all([sql.end({ timeout: 2 }), sessions.close()]);
    },
  } satisfies Storage;
}
