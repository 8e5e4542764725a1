// The one storage contract every backend implements (memory, embedded, PostgreSQL). Storage knows keys, revisions
// and JSON objects; it knows nothing of kinds, strategies or HTTP. The registry translates StorageError into
// StatusError.
//
// Resource versions: an integer revision (bigint) inside storage, an opaque decimal string on the wire. Every object
// a backend returns carries metadata.resourceVersion = the revision of its last write; a backend ignores whatever
// resourceVersion a caller passes in an object to write.
//
// Sharing: objects a backend returns (get, getList items, the results of create, guaranteedUpdate and delete, watch
// events and their objects, the object handed to DeleteOptions.validate) may be SHARED with the store and with other
// callers, and are then deep-frozen. Callers must not mutate returned objects; clone before changing
// (cloneJson, api/meta/clone.ts).
// This is what lets one event reach a thousand watchers, and a list or a get be served, without a copy per caller,
// and lets the gateway encode one event once for every watcher. A backend may return fresh objects instead (it
// decodes rows, say); the rule for callers is the same. The exception is TryUpdate: its callback always receives a
// private, mutable copy. Objects a caller passes in stay the caller's: a backend copies what it keeps.
import type { KObject } from '../api/meta/types.js';
import type { WatchCacheStats } from './watch-cache-stats.js';
import type { StorageStats } from './storage-stats.js';

export type StorageErrorCode =
  | 'NotFound' // key absent (at the requested revision)
  | 'KeyExists' // create on an existing key
  | 'Conflict' // precondition on resourceVersion failed
  | 'PreconditionUid' // precondition on uid failed
  | 'Expired' // revision below the history window (compacted) -> 410
  | 'TooLargeRevision' // revision above the newest one, did not appear in time -> 504
  | 'InvalidContinue' // malformed continue token -> 400
  | 'Unavailable' // backend down or not ready -> 503
  | 'Internal';

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    readonly key = '',
    readonly revision?: bigint,
    readonly current?: bigint,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export function isStorageError(e: unknown, code?: StorageErrorCode): e is StorageError {
  return e instanceof StorageError && (code === undefined || e.code === code);
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

/**
 * How a read picks its revision, after the handler resolved the spec's resourceVersion table:
 * - latest: a consistent read at the newest revision ("Most Recent");
 * - any: any revision, newest preferred ("Any", rv=0);
 * - notOlderThan: at least `revision`; waits briefly for it, then TooLargeRevision;
 * - exact: exactly `revision`; Expired when compacted, TooLargeRevision when not yet reached.
 */
export type ReadRevision =
  | { match: 'latest' }
  | { match: 'any' }
  | { match: 'notOlderThan'; revision: bigint }
  | { match: 'exact'; revision: bigint };

/** A filter the backend applies while paging, so `limit` counts matching items only. */
export interface SelectionPredicate {
  /** True when the predicate matches everything (then remainingItemCount may be reported). */
  readonly empty: boolean;
  matches(obj: KObject): boolean;
}

export const EVERYTHING: SelectionPredicate = { empty: true, matches: () => true };

export interface GetOptions {
  read?: ReadRevision;
}

export interface ListOptions {
  read?: ReadRevision;
  predicate?: SelectionPredicate;
  /** 0 or undefined: no limit. */
  limit?: number;
  /** A token a previous page of this backend returned; it fixes the revision (read is ignored then). */
  continue?: string;
}

export interface ListResult {
  items: KObject[];
  /** The snapshot revision the page was read at. */
  revision: bigint;
  /** Token for the next page; absent at the end. */
  continue?: string;
  /** Items after this page; only when the predicate is empty and more remain. */
  remainingItemCount?: number;
}

/**
 * Called with the current object (a private copy the callback may mutate); returns the object to store.
 * Returning the same serialized content as current makes guaranteedUpdate return without writing.
 * Throwing aborts the update and the error propagates.
 */
export type TryUpdate = (current: KObject) => KObject | Promise<KObject>;

export interface UpdateOptions {
  preconditions?: Preconditions;
  /** When the key is absent, call tryUpdate with this object (as for PUT-creates); otherwise NotFound. */
  createFrom?: () => KObject;
}

export interface DeleteOptions {
  preconditions?: Preconditions;
  /**
   * Re-validates the deletion against the newest object (may throw to refuse; the object is read-only, as every
   * returned object). Called again after each retry, so a finalizer added concurrently is seen.
   */
  validate?: (current: KObject) => void | Promise<void>;
}

export type StorageEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface StorageEvent {
  type: StorageEventType;
  /** Revision of the write, or for BOOKMARK the revision up to which everything was sent. */
  revision: bigint;
  key: string;
  /** ADDED/MODIFIED: the new object; DELETED: the last state, resourceVersion = the deletion revision. */
  object?: KObject;
  /** MODIFIED/DELETED: the state before this write (resourceVersion of that state). */
  prevObject?: KObject;
}

export interface WatchOptions {
  /** Deliver every event with revision > this. Expired when it is below the history window. */
  revision: bigint;
  /** Whether `key` is a prefix (collection) or one object. */
  recursive: boolean;
  /** Periodic BOOKMARK events (revision only) while idle; the handler decides whether clients see them. */
  progressNotify?: boolean;
}

export interface Storage {
  /** NotFound when absent at the read revision. */
  get(key: string, opts?: GetOptions): Promise<KObject>;
  /** Every object whose key starts with `prefix`, in key order. */
  getList(prefix: string, opts?: ListOptions): Promise<ListResult>;
  /** KeyExists when present. Returns the stored object with its resourceVersion. */
  create(key: string, obj: KObject): Promise<KObject>;
  /** Read-modify-write with retries on revision conflicts; preconditions are checked against each fresh read. */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, opts?: UpdateOptions): Promise<KObject>;
  /** Removes the key; returns the last state with resourceVersion = the deletion revision. */
  delete(key: string, opts?: DeleteOptions): Promise<KObject>;
  /**
   * Events after opts.revision, in revision order, none lost or duplicated. Ends when the signal aborts; ends by
   * throwing StorageError Expired when the watcher falls behind the history window.
   */
  watch(key: string, opts: WatchOptions, signal: AbortSignal): AsyncIterable<StorageEvent>;
  /** The newest committed revision. */
  currentRevision(): Promise<bigint>;
  /** The oldest revision still readable (history window start). */
  compactedRevision(): Promise<bigint>;
  count(prefix: string): Promise<number>;
  /** Throws (Unavailable) when the backend cannot serve. */
  readiness(): Promise<void>;
  close(): Promise<void>;
  /** What the backend's watch cache has done (watch-cache-stats.ts); absent for a backend that keeps none. */
  watchCacheStats?(): WatchCacheStats;
  /**
   * The backend's size and connection state (storage-stats.ts), for metrics. Optional: a backend with nothing to
   * report leaves it out. May query the database; callers bound how long they wait for it.
   */
  storageStats?(): Promise<StorageStats>;
}
