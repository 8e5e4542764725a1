// The one reader of the revision log per storage instance. It reads `revision > lastDelivered` in order, in chunks,
// and hands each chunk to its consumer (the read cache, then the watch hub, which fans it out to every local
// watcher); so the database serves one log scan per replica however many watchers and readers there are.
//
// Wake-ups: a NOTIFY from any replica (payload = a revision, a hint only), this replica's own commits (directly,
// without the NOTIFY round trip), every (re)connect of the LISTEN connection (catch-up after a lost connection:
// the scan resumes at lastDelivered, so nothing is lost or repeated), and a slow fallback poll for lost hints.
import postgres from 'postgres';
import { StorageError } from '../storage.js';
import { ipv6HostOptions, reconnectBackoff } from './errors.js';
import { readRetryingLostConnection } from './transaction.js';
import { readLogAfter, type Db, type LogRow } from './queries.js';
import { NOTIFY_CHANNEL } from './schema.js';

export interface LogReaderOptions {
  sql: Db;
  /** The URL for the dedicated LISTEN connection. */
  url: string;
  /** application_name of the LISTEN connection, so operators (and tests) can find it in pg_stat_activity. */
  listenName: string;
  /** The revision everything up to which counts as delivered (the revision the read cache was loaded at). */
  start: bigint;
  pollIntervalMs: number;
  /** Receives each chunk of rows in revision order (possibly none), with the compaction mark of its snapshot. */
  deliver: (rows: readonly LogRow[], compacted: bigint) => void;
  /**
   * Called when rows the reader had not delivered were compacted away: watchers must relist and the consumer must
   * reload. Resolves with the revision the consumer reloaded at, where the scan resumes.
   */
  lost: (compacted: bigint) => Promise<bigint>;
  log: (line: string) => void;
  chunkSize?: number;
}

export interface LogReader {
  /** Everything up to this revision has been delivered. */
  delivered(): bigint;
  /** Whether LISTEN is in effect on the reader's connection (false from its loss until LISTEN succeeds again). */
  listening(): boolean;
  /** Schedules a scan; `hint` (a committed revision) lets the reader skip one when it is already delivered. */
  wake(hint?: bigint): void;
  /**
   * Rows this replica has just committed, in revision order and contiguous. Delivered as they are when they
   * directly follow what was delivered and no scan is running (a single writer's usual case: no read-back round trip,
   * no second decoding of the values); otherwise a scan is scheduled, which reads them from the log.
   */
  offer(rows: readonly LogRow[]): void;
  /** Resolves true once `revision` is delivered, false after `ms`; rejects with Unavailable on close. */
  waitFor(revision: bigint, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Waiter {
  revision: bigint;
  done: (reached: boolean | StorageError) => void;
}

export async function createLogReader(opts: LogReaderOptions): Promise<LogReader> {
  const chunkSize = opts.chunkSize ?? 1000;
  let lastDelivered = opts.start;
  // The compaction mark of the newest chunk, handed along with offered rows (which carry none of their own).
  let lastCompacted = 0n;
  let scanning = false;
  let again = false;
  let closed = false;
  let failing = false;
  const waiters = new Set<Waiter>();

  function settle(): void {
    for (const w of waiters) if (w.revision <= lastDelivered) w.done(true);
  }

  async function scan(): Promise<void> {
    if (scanning) {
      again = true;
      return;
    }
    scanning = true;
    try {
      do {
        again = false;
        for (;;) {
          const chunk = await readRetryingLostConnection(() => readLogAfter(opts.sql, lastDelivered, chunkSize));
          if (closed) return;
          if (chunk.compacted > lastDelivered) {
            // Rows between lastDelivered and the compaction mark may be gone: nobody can be caught up from here.
            opts.log(
              `warning: postgres storage: log reader fell behind compaction (${lastDelivered} < ${chunk.compacted}); ending watches, reloading`,
            );
            const reloaded = await opts.lost(chunk.compacted);
            if (closed) return;
            lastDelivered = reloaded;
            settle();
            continue;
          }
          // Advanced only once the consumer took the chunk: if it throws, the next scan hands it the rows again.
          opts.deliver(chunk.rows, chunk.compacted);
          if (chunk.compacted > lastCompacted) lastCompacted = chunk.compacted;
          if (chunk.rows.length) lastDelivered = chunk.rows[chunk.rows.length - 1].revision;
          settle();
          if (chunk.rows.length < chunkSize) break;
        }
      } while (again && !closed);
      if (failing) opts.log('postgres storage: log reader recovered');
      failing = false;
    } catch (e) {
      // The database is unreachable: the poll timer and the LISTEN reconnect retry the scan.
      if (!failing && !closed)
        opts.log(`error: postgres storage: log reader cannot read the log: ${(e as Error).message}`);
      failing = true;
    } finally {
      scanning = false;
    }
  }

  function wake(hint?: bigint): void {
    if (closed || (hint !== undefined && hint <= lastDelivered)) return;
    void scan();
  }

  // A connection of its own, with LISTEN issued by hand: the driver's sql.listen() re-listens once after a lost
  // connection and silently gives up if that attempt fails (the database still restarting), so this reader
  // re-issues LISTEN itself until it succeeds, and catches up after every success.
  const onnotify = (channel: string, payload: string): void => {
    if (channel !== NOTIFY_CHANNEL) return;
    let hint: bigint | undefined;
    try {
      hint = BigInt(payload);
    } catch {
      hint = undefined;
    }
    wake(hint);
  };
  const listener = postgres(opts.url, {
    ...ipv6HostOptions(opts.url),
    max: 1,
    max_lifetime: 0,
    fetch_types: false,
    onnotice: () => undefined,
    connect_timeout: 5,
    backoff: reconnectBackoff,
    connection: { application_name: opts.listenName },
    onclose: () => void relisten(),
    // Not in the driver's typings, but its documented way to receive notifications on one's own connection.
    ...({ onnotify } as object),
  });
  let listening = false;
  let relistening: Promise<void> | undefined;
  let retryTimer: NodeJS.Timeout | undefined;

  function relisten(): Promise<void> {
    listening = false;
    relistening ??= (async () => {
      for (let attempt = 0; !closed && !listening; attempt++) {
        try {
          await listener.unsafe(`LISTEN ${NOTIFY_CHANNEL}`);
          listening = true;
          wake();
        } catch {
          await new Promise<void>((resolve) => {
            retryTimer = setTimeout(resolve, Math.min(100 * 2 ** attempt, 2_000));
            retryTimer.unref();
          });
        }
      }
    })().finally(() => (relistening = undefined));
    return relistening;
  }

  await listener.unsafe(`LISTEN ${NOTIFY_CHANNEL}`);
  listening = true;
  const poll = setInterval(() => wake(), opts.pollIntervalMs);
  poll.unref();
  await scan();

  function offer(rows: readonly LogRow[]): void {
    if (closed || rows.length === 0) return;
    const last = rows[rows.length - 1].revision;
    if (scanning || failing || rows[0].revision !== lastDelivered + 1n) {
      wake(last);
      return;
    }
    try {
      opts.deliver(rows, lastCompacted);
    } catch (e) {
      // As with a scanned chunk the consumer refused: the rows stay undelivered, and a scan hands them again.
      opts.log(`error: postgres storage: delivering committed rows failed: ${(e as Error).message}`);
      wake(last);
      return;
    }
    lastDelivered = last;
    settle();
  }

  return {
    delivered: () => lastDelivered,
    listening: () => listening && !closed,
    wake,
    offer,
    waitFor(revision, ms) {
      if (revision <= lastDelivered) return Promise.resolve(true);
      if (closed) return Promise.reject(new StorageError('Unavailable', 'storage is closed'));
      return new Promise<boolean>((resolve, reject) => {
        const timer = setTimeout(() => waiter.done(false), ms);
        const waiter: Waiter = {
          revision,
          done(outcome) {
            clearTimeout(timer);
            waiters.delete(waiter);
            if (outcome instanceof StorageError) reject(outcome);
            else resolve(outcome);
          },
        };
        waiters.add(waiter);
      });
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(poll);
      clearTimeout(retryTimer);
      for (const w of [...waiters]) w.done(new StorageError('Unavailable', 'storage is closed'));
      await listener.end({ timeout: 1 });
    },
  };
}
