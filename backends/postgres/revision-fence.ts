// The revision fence of consistent reads. A read at `latest` must see every write committed anywhere before it
// arrived, including writes through other replicas that this replica's log reader has not read yet; so it asks the
// database for its current revision (max(revision), one index probe) and is answered from the read cache once the
// cache has applied that revision. This is kube-apiserver's consistent read from cache: a fresh revision from the
// source of truth, then the cache at or past it.
//
// Concurrent reads share queries: a read arriving while a query is in flight cannot use that query's answer (the
// query may have taken its snapshot before the read's write committed), so it waits for the next query, which
// starts when the one in flight finishes and serves every read that arrived meanwhile. Under load that is one round
// trip per batch of reads instead of one per read, and never an answer older than the read's own arrival.
import { StorageError } from '../storage.js';
import type { LogReader } from './log-reader.js';
import type { Bounds } from './queries.js';
import type { ReadCache } from './read-cache.js';

export interface RevisionFenceOptions {
  /** The database's bounds, read fresh. */
  query: () => Promise<Bounds>;
  cache: ReadCache;
  reader: LogReader;
  /** How long a read waits for the log reader to bring the cache to the fence before Unavailable. */
  catchUpMs: number;
}

export interface RevisionFence {
  /** Bounds from a query that started after this call. Rejects as the query does (Unavailable when the database is down). */
  bounds(): Promise<Bounds>;
  /**
   * The revision a consistent read is answered at: the cache's current revision, once it reached the database's.
   * Rejects with Unavailable when the database cannot be asked or the cache does not catch up in time.
   */
  latest(key: string): Promise<bigint>;
  /** Resolves once the cache has applied `revision`, known committed; Unavailable after catchUpMs. */
  reach(revision: bigint, key: string): Promise<void>;
}

const noop = (): void => undefined;

export function createRevisionFence(opts: RevisionFenceOptions): RevisionFence {
  const { cache, reader } = opts;
  let inFlight: Promise<Bounds> | undefined;
  let next: Promise<Bounds> | undefined;

  function run(): Promise<Bounds> {
    const query = opts.query().then((bounds) => {
      // Every answer carries the compaction mark too: the cache's window follows other replicas' compactions.
      cache.compactTo(bounds.compacted);
      return bounds;
    });
    inFlight = query;
    const done = (): void => {
      if (inFlight === query) inFlight = undefined;
    };
    query.then(done, done);
    return query;
  }

  function bounds(): Promise<Bounds> {
    if (!inFlight) return run();
    // Settles after `done` above has cleared inFlight (its handler was attached first).
    next ??= inFlight.then(noop, noop).then(() => {
      next = undefined;
      return run();
    });
    return next;
  }

  async function reach(revision: bigint, key: string): Promise<void> {
    if (cache.current() >= revision) return;
    // The revision is committed: a scan now finds it without waiting for a notification or the poll.
    reader.wake(revision);
    if ((await reader.waitFor(revision, opts.catchUpMs)) && cache.current() >= revision) return;
    throw new StorageError(
      'Unavailable',
      `the read cache did not reach revision ${revision} within ${opts.catchUpMs} ms (at ${cache.current()})`,
      key,
    );
  }

  return {
    bounds,
    async latest(key) {
      const { current } = await bounds();
      await reach(current, key);
      return cache.current();
    },
    reach,
  };
}
