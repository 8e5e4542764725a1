// The in-memory MVCC backend: the reference implementation of the storage contract, used by tests and by
// single-process deployments that need no persistence. History lives in revision-history.ts, watch fan-out in
// watch-hub.ts; this file maps the contract onto them.
//
// Every read and write path is synchronous between its awaits, so a commit, its log entry and its fan-out happen
// as one step. Compaction is lazy: each call first drops what left the history window, so no timer is needed.
//
// With `persist` (the embedded backend) a commit is first made durable and only then revealed: readers, watchers and
// currentRevision see revisions up to `visible`, which trails the history's own counter by the writes still on
// their way to disk. A crash can therefore only lose writes nobody has seen, and their revisions are never observed
// twice. Without `persist` a commit is revealed at once and `visible` equals the current revision.
//
// Reads hand out the history's own deep-frozen objects, shared by every caller (see the contract in storage.ts): a
// get, a page of a list and an event fanned out to a thousand watchers cost no copy at all.
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
import { createHistoryLister } from './history-lists.js';
import {
  createRevisionHistory,
  type HistorySnapshot,
  type LogEntry,
  type RevisionHistory,
} from './revision-history.js';
import { failedWatch } from '../watcher-queue.js';
import { createWatchHub } from './watch-hub.js';
import { checkPreconditions, contentJson, intake, notFound } from '../storage-support.js';
import { cloneJson } from '../../api/meta/clone.js';
import { PrefixCounter, type WatchCacheStats } from '../watch-cache-stats.js';

export interface MemoryStorageOptions {
  /** How long writes stay readable at their revision and replayable to watchers. Default 5 minutes. */
  historyWindowMs?: number;
  /** Interval of progress BOOKMARK events to idle watchers that asked for them. Default 5 s. */
  bookmarkIntervalMs?: number;
  /** How long a read at a future revision waits for it before TooLargeRevision. Default 3 s. */
  notOlderThanWaitMs?: number;
  /** Events a watcher may have queued before it is ended with Expired. Default 10,000. */
  watchBufferLimit?: number;
  /** Clock for the history window; injectable so tests can expire history without sleeping. */
  now?: () => number;
  /**
   * Makes commits durable: called synchronously with each committed entry, in revision order; resolves once the
   * entry and every earlier one are on disk. Until then the write stays invisible and its writer, and writers of the
   * same key, wait. A rejection breaks the store (Unavailable from then on): memory and disk no longer agree.
   */
  persist?: (entry: LogEntry) => Promise<void>;
  /** Fills the empty history before the store serves, with the revisions and write times of a durable copy. */
  seed?: (history: Pick<RevisionHistory, 'restore' | 'replay'>) => void;
}

export interface MemoryStorage extends Storage {
  /** What a durable copy must hold to rebuild the store: base state at the compacted revision, writes up to `upTo`. */
  snapshot(upTo: bigint): HistorySnapshot;
  /** The compaction mark, after compacting to the history window: what snapshot() would take as its base now. */
  compactedNow(): bigint;
  watchCacheStats(): WatchCacheStats;
}

interface RevisionWaiter {
  revision: bigint;
  resolve: () => void;
  reject: (error: StorageError) => void;
}

/** Content equality ignoring resourceVersion: an update that changes nothing else is not a write. */
function sameContent(a: KObject, b: KObject): boolean {
  return contentJson(a) === contentJson(b);
}

/** A private, writable copy of a caller's object; its resourceVersion is replaced on commit. */

export function createMemoryStorage(opts: MemoryStorageOptions = {}): MemoryStorage {
  const historyWindowMs = opts.historyWindowMs ?? 5 * 60_000;
  const notOlderThanWaitMs = opts.notOlderThanWaitMs ?? 3_000;
  const now = opts.now ?? Date.now;
  const persist = opts.persist;
  const history = createRevisionHistory();
  opts.seed?.(history);
  let visible = history.current();
  // Committed entries waiting for disk, oldest first, and the newest revision known to be durable.
  const unrevealed: LogEntry[] = [];
  let durable = visible;
  // The store is its own watch cache, filled once (from the durable copy, for the embedded backend) when it opens.
  const received = new PrefixCounter();
  const overflowed = new PrefixCounter();
  const hub = createWatchHub({
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5_000,
    bufferLimit: opts.watchBufferLimit ?? 10_000,
    currentRevision: () => visible,
    overflowed,
  });
  const waiters = new Set<RevisionWaiter>();
  const lister = createHistoryLister(history);
  let closed = false;
  let broken: StorageError | undefined;

  /** Checks the store is open and applies lazy compaction; every entry point calls it first. */
  function enter(key = ''): void {
    if (broken) throw new StorageError('Unavailable', broken.message, key);
    if (closed) throw new StorageError('Unavailable', 'storage is closed', key);
    history.compact(now() - historyWindowMs, visible);
  }

  function expired(key: string, revision: bigint): StorageError {
    return new StorageError(
      'Expired',
      `too old resource version: ${revision} (${history.compacted()})`,
      key,
      revision,
      visible,
    );
  }

  function reveal(entry: LogEntry): void {
    visible = entry.revision;
    received.add(entry.key);
    hub.publish(entry);
    for (const w of waiters) if (w.revision <= entry.revision) w.resolve();
  }

  function fail(error: unknown): StorageError {
    if (!broken) {
      broken = new StorageError(
        'Unavailable',
        `storage failed, restart to recover from disk: ${error instanceof Error ? error.message : String(error)}`,
      );
      hub.close();
      for (const w of [...waiters]) w.reject(broken);
    }
    return broken;
  }

  /** Commits synchronously (so the caller's compare-and-swap holds); resolves with the object once it is revealed. */
  function commit(key: string, object: KObject | null): Promise<KObject> {
    const entry = history.commit(key, object, now());
    if (!persist) {
      reveal(entry);
      return Promise.resolve(entry.object);
    }
    unrevealed.push(entry);
    return persist(entry).then(
      () => {
        if (entry.revision > durable) durable = entry.revision;
        // Resolutions may come in any order; revealing stays in revision order.
        while (unrevealed.length > 0 && unrevealed[0].revision <= durable && !broken) reveal(unrevealed.shift()!);
        if (broken) throw broken;
        return entry.object;
      },
      (error: unknown) => {
        throw fail(error);
      },
    );
  }

  /** Waits until the key's newest write is revealed, so writers decide on state that survives a crash. */
  function pendingWrite(key: string): Promise<void> | undefined {
    const revision = history.keyRevision(key);
    return revision !== undefined && revision > visible ? waitForRevision(revision, key, Infinity) : undefined;
  }

  function waitForRevision(revision: bigint, key: string, waitMs = notOlderThanWaitMs): Promise<void> | undefined {
    if (visible >= revision) return undefined;
    return new Promise<void>((resolve, reject) => {
      const timer =
        waitMs === Infinity
          ? undefined
          : setTimeout(() => {
              waiters.delete(waiter);
              reject(
                new StorageError(
                  'TooLargeRevision',
                  `Too large resource version: ${revision}, current: ${visible}`,
                  key,
                  revision,
                  visible,
                ),
              );
            }, waitMs);
      const waiter: RevisionWaiter = {
        revision,
        resolve: () => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(error);
        },
      };
      waiters.add(waiter);
    });
  }

  /** The revision a read is served at; the caller reads at it without awaiting in between. */
  async function readAt(read: ReadRevision | undefined, key: string): Promise<bigint> {
    enter(key);
    if (!read || read.match === 'latest' || read.match === 'any') return visible;
    if (read.match === 'exact' && read.revision < history.compacted()) throw expired(key, read.revision);
    await waitForRevision(read.revision, key);
    enter(key);
    if (read.match === 'notOlderThan') return visible;
    if (read.revision < history.compacted()) throw expired(key, read.revision);
    return read.revision;
  }

  function readNow(key: string, revision: bigint): KObject {
    const object = history.at(key, revision);
    if (!object) throw notFound(key, revision);
    return object;
  }

  function get(key: string, getOpts: GetOptions = {}): Promise<KObject> {
    const read = getOpts.read;
    // The common read needs no wait: answering without an await saves the promise hops of readAt.
    if (!read || read.match === 'latest' || read.match === 'any') {
      try {
        enter(key);
        return Promise.resolve(readNow(key, visible));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return readAt(read, key).then((revision) => readNow(key, revision));
  }

  /** Every live object under `prefix` at `revision`, which each page of a list with an empty predicate slices. */
  async function getList(prefix: string, listOpts: ListOptions = {}): Promise<ListResult> {
    let start = prefix;
    let read = listOpts.read;
    if (listOpts.continue) {
      enter(prefix);
      const position = decodeContinue(listOpts.continue, prefix, history.compacted());
      start = position.start;
      read = { match: 'exact', revision: position.revision };
    }
    const revision = await readAt(read, prefix);
    const limit = listOpts.limit && listOpts.limit > 0 ? listOpts.limit : Infinity;
    return lister.list({ prefix, start, revision, predicate: listOpts.predicate ?? EVERYTHING, limit });
  }

  async function create(key: string, obj: KObject): Promise<KObject> {
    for (;;) {
      enter(key);
      const pending = pendingWrite(key);
      if (pending) {
        await pending;
        continue;
      }
      if (history.latest(key)) throw new StorageError('KeyExists', `key exists: ${key}`, key, history.keyRevision(key));
      return commit(key, intake(obj));
    }
  }

  async function guaranteedUpdate(key: string, tryUpdate: TryUpdate, updateOpts: UpdateOptions = {}): Promise<KObject> {
    for (;;) {
      enter(key);
      const pending = pendingWrite(key);
      if (pending) {
        await pending;
        continue;
      }
      const seen = history.keyRevision(key);
      const current = history.latest(key);
      if (!current && !updateOpts.createFrom) throw notFound(key);
      checkPreconditions(key, current, updateOpts.preconditions);
      const base = current ? cloneJson(current) : intake(updateOpts.createFrom!());
      const next = await tryUpdate(base);
      enter(key);
      // Someone wrote the key while tryUpdate ran: its result was computed from a stale state, so start over.
      if (history.keyRevision(key) !== seen) continue;
      if (current && sameContent(current, next)) return current;
      return commit(key, intake(next));
    }
  }

  async function remove(key: string, deleteOpts: DeleteOptions = {}): Promise<KObject> {
    for (;;) {
      enter(key);
      const pending = pendingWrite(key);
      if (pending) {
        await pending;
        continue;
      }
      const seen = history.keyRevision(key);
      const current = history.latest(key);
      if (!current) throw notFound(key);
      checkPreconditions(key, current, deleteOpts.preconditions);
      if (deleteOpts.validate) {
        await deleteOpts.validate(current);
        enter(key);
        if (history.keyRevision(key) !== seen) continue;
      }
      return commit(key, null);
    }
  }

  function watch(key: string, watchOpts: WatchOptions, signal: AbortSignal): AsyncIterable<StorageEvent> {
    try {
      enter(key);
    } catch (e) {
      return failedWatch(e as StorageError);
    }
    if (watchOpts.revision < history.compacted()) return failedWatch(expired(key, watchOpts.revision));
    // A revision beyond the current one is accepted, as etcd does: the watch simply starts once writes reach it.
    const request = {
      key,
      recursive: watchOpts.recursive,
      progressNotify: watchOpts.progressNotify ?? false,
      revision: watchOpts.revision,
    };
    // Entries still on their way to disk are published when revealed, so the replay stops at `visible`.
    const replay = history.entriesAfter(watchOpts.revision);
    while (replay.length > 0 && replay[replay.length - 1].revision > visible) replay.pop();
    return hub.open(request, replay, signal);
  }

  async function count(prefix: string): Promise<number> {
    enter(prefix);
    return lister.count(prefix, visible);
  }

  return {
    get,
    getList,
    create,
    guaranteedUpdate,
    delete: remove,
    watch,
    count,
    async currentRevision() {
      enter();
      return visible;
    },
    async compactedRevision() {
      enter();
      return history.compacted();
    },
    async readiness() {
      enter();
    },
    snapshot(upTo) {
      history.compact(now() - historyWindowMs, visible);
      return history.snapshot(upTo);
    },
    compactedNow() {
      history.compact(now() - historyWindowMs, visible);
      return history.compacted();
    },
    watchCacheStats: () => ({
      revision: visible,
      initializations: 1,
      eventsReceived: received.counts,
      terminatedWatchers: overflowed.counts,
    }),
    async close() {
      if (closed) return;
      closed = true;
      hub.close();
      for (const w of [...waiters]) w.reject(new StorageError('Unavailable', 'storage is closed'));
    },
  } satisfies MemoryStorage;
}
