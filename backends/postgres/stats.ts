// The PostgreSQL backend's storageStats(): its connections, LISTEN state, size and the read cache's lag.
//
// The read pool's connection states are kept by this backend because the driver (postgres 3.4.9) keeps its own in
// closure-private queues and reports only a connection's close (the `onclose` option). Its rules for a statement
// are what this mirrors: an idle open connection takes it, else a connection not yet open is opened for it (up to
// `max`), else it is pipelined behind a busy connection's statements or queued. So the open connections are the
// peak of statements in flight since they opened, less those closed since; statements beyond `max` wait.
import type { StorageConnectionStats, StorageStats } from '../storage-stats.js';
import { readBounds, readStoredBytes, type Db } from './queries.js';
import type { Sessions } from './transaction.js';

/** How long the size and revision queries may take before the answer leaves them out. */
const STATS_QUERY_MS = 500;

export interface PoolTracker {
  /** `sql`, counting each statement it runs from the moment it is sent (its first then) until it settles. */
  wrap(sql: Db): Db;
  /** The driver's `onclose`: one connection closed (or failed to open). */
  closed(): void;
  stats(): StorageConnectionStats;
}

type Thenable = { then: (this: unknown, onFulfilled?: unknown, onRejected?: unknown) => unknown };

export function createPoolTracker(max: number): PoolTracker {
  let inFlight = 0;
  let open = 0;
  const settled = (): void => {
    inFlight--;
  };

  // A statement runs when first awaited (then, or catch and finally, which call then); one built only to be
  // embedded in another (a fragment) is never awaited and never counted.
  function track<T>(query: T): T {
    if (typeof query !== 'object' || query === null || typeof (query as Partial<Thenable>).then !== 'function')
      return query;
    const statement = query as unknown as Thenable;
    const then = statement.then;
    let sent = false;
    statement.then = function (onFulfilled, onRejected) {
      if (!sent) {
        sent = true;
        inFlight++;
        if (inFlight > open) open = Math.min(inFlight, max);
        then.call(this, settled, settled);
      }
      return then.call(this, onFulfilled, onRejected);
    };
    return query;
  }

  return {
    wrap(sql) {
      const call = (...args: unknown[]): unknown => track((sql as unknown as (...a: unknown[]) => unknown)(...args));
      return Object.assign(call, sql, {
        unsafe: (...args: Parameters<Db['unsafe']>) => track(sql.unsafe(...args)),
      });
    },
    closed() {
      if (open > 0) open--;
    },
    stats() {
      const busy = Math.min(inFlight, open);
      return { idle: open - busy, busy, waiting: Math.max(0, inFlight - max) };
    },
  };
}

export async function readStats(deps: {
  sql: Db;
  pool: PoolTracker;
  sessions: Sessions;
  /** Whether the log reader's LISTEN is in effect. */
  listening: () => boolean;
  /** The newest revision the read cache has applied. */
  cached: () => bigint;
}): Promise<StorageStats> {
  // Transactions run on sessions of their own (transaction.ts), one connection each, beside the read pool.
  const sessions = deps.sessions.stats();
  const pool = deps.pool.stats();
  const connections = { idle: pool.idle + sessions.idle, busy: pool.busy + sessions.busy, waiting: pool.waiting };
  const listenConnected = deps.listening();
  // The size and the database's revision need the database: while it is away or slow, the rest is still known, so
  // those two are left out after STATS_QUERY_MS rather than holding the answer.
  const [sizeBytes, bounds] = await withinMs(
    Promise.all([readStoredBytes(deps.sql).catch(() => undefined), readBounds(deps.sql).catch(() => undefined)]),
    STATS_QUERY_MS,
    [undefined, undefined],
  );
  const revisionLag = bounds && Math.max(0, Number(bounds.current - deps.cached()));
  return { sizeBytes, connections, listenConnected, revisionLag };
}

/** `work`'s outcome, or `fallback` when it takes longer than `ms`. */
async function withinMs<T>(work: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
