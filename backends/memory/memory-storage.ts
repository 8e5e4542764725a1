// The in-memory MVCC backend: the reference implementation of the storage contract, used by tests and by
// single-process deployments that need no persistence. History lives in revision-history.ts, watch fan-out in
// watch-hub.ts; this file maps the contract onto them.
//
// Every read and write path is synchronous between its awaits, so a commit, its log entry and its fan-out happen
// as one step. Compaction is lazy: each call first drops what left the history window, so no timer is needed.
import type { KObject } from '../../api/meta/types.js';
import { isObject } from '../../api/meta/types.js';
import { decodeContinue, encodeContinue } from '../continue-token.js';
import {
  EVERYTHING,
  StorageError,
  type DeleteOptions,
  type GetOptions,
  type ListOptions,
  type ListResult,
  type Preconditions,
  type ReadRevision,
  type Storage,
  type StorageEvent,
  type TryUpdate,
  type UpdateOptions,
  type WatchOptions,
} from '../storage.js';
import { createRevisionHistory, type LogEntry } from './revision-history.js';
import { createWatchHub, failedWatch } from './watch-hub.js';

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
}

interface RevisionWaiter {
  revision: bigint;
  resolve: () => void;
  reject: (error: StorageError) => void;
}

/** Content equality ignoring resourceVersion: an update that changes nothing else is not a write. */
function sameContent(a: KObject, b: KObject): boolean {
  const strip = (o: KObject): string => JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
  return strip(a) === strip(b);
}

/** A private, writable copy of a caller's object; its resourceVersion is replaced on commit. */
function intake(obj: KObject): KObject {
  const copy = structuredClone(obj);
  if (!isObject(copy.metadata)) copy.metadata = {};
  return copy;
}

function checkPreconditions(key: string, current: KObject | undefined, pre: Preconditions | undefined): void {
  if (!pre) return;
  const meta = current?.metadata ?? {};
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    throw new StorageError('PreconditionUid', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`, key);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw new StorageError(
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
      key,
    );
  }
}

function notFound(key: string, revision?: bigint): StorageError {
  return new StorageError('NotFound', `key not found: ${key}`, key, revision);
}

export function createMemoryStorage(opts: MemoryStorageOptions = {}): Storage {
  const historyWindowMs = opts.historyWindowMs ?? 5 * 60_000;
  const notOlderThanWaitMs = opts.notOlderThanWaitMs ?? 3_000;
  const now = opts.now ?? Date.now;
  const history = createRevisionHistory();
  const hub = createWatchHub({
    bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 5_000,
    bufferLimit: opts.watchBufferLimit ?? 10_000,
    currentRevision: () => history.current(),
  });
  const waiters = new Set<RevisionWaiter>();
  let closed = false;

  /** Checks the store is open and applies lazy compaction; every entry point calls it first. */
  function enter(key = ''): void {
    if (closed) throw new StorageError('Unavailable', 'storage is closed', key);
    history.compact(now() - historyWindowMs);
  }

  function expired(key: string, revision: bigint): StorageError {
    return new StorageError(
      'Expired',
      `too old resource version: ${revision} (${history.compacted()})`,
      key,
      revision,
      history.current(),
    );
  }

  function commit(key: string, object: KObject | null): LogEntry {
    const entry = history.commit(key, object, now());
    hub.publish(entry);
    for (const w of waiters) if (w.revision <= entry.revision) w.resolve();
    return entry;
  }

  function waitForRevision(revision: bigint, key: string): Promise<void> | undefined {
    if (history.current() >= revision) return undefined;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        const current = history.current();
        reject(new StorageError('TooLargeRevision', `Too large resource version: ${revision}, current: ${current}`, key, revision, current));
      }, notOlderThanWaitMs);
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
    if (!read || read.match === 'latest' || read.match === 'any') return history.current();
    if (read.match === 'exact' && read.revision < history.compacted()) throw expired(key, read.revision);
    await waitForRevision(read.revision, key);
    enter(key);
    if (read.match === 'notOlderThan') return history.current();
    if (read.revision < history.compacted()) throw expired(key, read.revision);
    return read.revision;
  }

  async function get(key: string, getOpts: GetOptions = {}): Promise<KObject> {
    const revision = await readAt(getOpts.read, key);
    const object = history.at(key, revision);
    if (!object) throw notFound(key, revision);
    return structuredClone(object);
  }

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
    const predicate = listOpts.predicate ?? EVERYTHING;
    const limit = listOpts.limit && listOpts.limit > 0 ? listOpts.limit : Infinity;
    const items: KObject[] = [];
    let lastKey = '';
    let more = false;
    let remaining = 0;
    history.scan(prefix, start, revision, (key, object) => {
      if (!predicate.matches(object)) return true;
      if (items.length < limit) {
        items.push(structuredClone(object));
        lastKey = key;
        return true;
      }
      more = true;
      remaining++;
      // Counting the rest is only worth it when it can be reported.
      return predicate.empty;
    });
    const result: ListResult = { items, revision };
    if (more) {
      result.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
      if (predicate.empty) result.remainingItemCount = remaining;
    }
    return result;
  }

  async function create(key: string, obj: KObject): Promise<KObject> {
    enter(key);
    if (history.latest(key)) throw new StorageError('KeyExists', `key exists: ${key}`, key, history.keyRevision(key));
    return structuredClone(commit(key, intake(obj)).object);
  }

  async function guaranteedUpdate(key: string, tryUpdate: TryUpdate, updateOpts: UpdateOptions = {}): Promise<KObject> {
    for (;;) {
      enter(key);
      const seen = history.keyRevision(key);
      const current = history.latest(key);
      if (!current && !updateOpts.createFrom) throw notFound(key);
      checkPreconditions(key, current, updateOpts.preconditions);
      const base = current ? structuredClone(current) : intake(updateOpts.createFrom!());
      const next = await tryUpdate(base);
      enter(key);
      // Someone wrote the key while tryUpdate ran: its result was computed from a stale state, so start over.
      if (history.keyRevision(key) !== seen) continue;
      if (current && sameContent(current, next)) return structuredClone(current);
      return structuredClone(commit(key, intake(next)).object);
    }
  }

  async function remove(key: string, deleteOpts: DeleteOptions = {}): Promise<KObject> {
    for (;;) {
      enter(key);
      const seen = history.keyRevision(key);
      const current = history.latest(key);
      if (!current) throw notFound(key);
      checkPreconditions(key, current, deleteOpts.preconditions);
      if (deleteOpts.validate) {
        await deleteOpts.validate(structuredClone(current));
        enter(key);
        if (history.keyRevision(key) !== seen) continue;
      }
      return structuredClone(commit(key, null).object);
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
    const request = { key, recursive: watchOpts.recursive, progressNotify: watchOpts.progressNotify ?? false, revision: watchOpts.revision };
    return hub.open(request, history.entriesAfter(watchOpts.revision), signal);
  }

  async function count(prefix: string): Promise<number> {
    enter(prefix);
    let n = 0;
    history.scan(prefix, prefix, history.current(), () => {
      n++;
      return true;
    });
    return n;
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
      return history.current();
    },
    async compactedRevision() {
      enter();
      return history.compacted();
    },
    async readiness() {
      if (closed) throw new StorageError('Unavailable', 'storage is closed');
    },
    async close() {
      if (closed) return;
      closed = true;
      hub.close();
      for (const w of [...waiters]) w.reject(new StorageError('Unavailable', 'storage is closed'));
    },
  } satisfies Storage;
}
