// Watch fan-out for the PostgreSQL backend. A new watcher first catches up from the database (its own chunked scan
// of the log from its start revision), then goes live: from then on the log reader's chunks reach its queue through
// the fan-out, which runs after the writers were answered (deferred-fan-out.ts). The switch happens without an await
// once the watcher's position has reached what the reader delivered, and live rows at or below the position (those
// it caught up on while they waited for the fan-out among them) are skipped, so the seam loses and repeats nothing.
//
// A row the log reader fans out becomes one deep-frozen event that every live watcher receives (the sharing contract
// in storage.ts), made of the read cache's own objects for the row (the cache parsed the row just before), so a
// write costs one JSON.parse however many watch it, and the gateway can encode the event once for all of them.
// Catch-up rows are each watcher's own query results, decoded for that watcher alone.
import { StorageError, type StorageEvent } from '../storage.js';
import { createDeferredFanOut, type FanOutWatcher } from '../deferred-fan-out.js';
import { openWatcher, selects, type WatchSelector } from '../watcher-queue.js';
import { decodeObject, type LogChunk, type LogRow } from './queries.js';
import type { LogEntry } from '../memory/revision-history.js';
import type { PrefixCounter } from '../watch-cache-stats.js';

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
  /** Queued events per watcher before it is ended with Expired (the client relists). */
  bufferLimit: number;
  /** What the log reader has delivered: the hand-off point from catch-up to live. */
  delivered: () => bigint;
  /** One catch-up chunk: rows after `after` under `prefix`, with the compaction mark of the same snapshot. */
  readLog: (after: bigint, limit: number, prefix: string) => Promise<LogChunk>;
  /** Counts, by the watch's key, the watchers the buffer bound ended. */
  overflowed?: PrefixCounter;
}

export interface WatchRequest extends WatchSelector {
  progressNotify: boolean;
  revision: bigint;
}

export interface WatchHub {
  open(request: WatchRequest, signal: AbortSignal): AsyncIterableIterator<StorageEvent>;
  /**
   * Fans a chunk of log rows (in revision order) out to every live watcher, once the current turn of the event loop
   * ends. `entries` are the read cache's entries for the rows, where it has them, whose objects the events share.
   */
  publish(rows: readonly LogRow[], entries?: readonly (LogEntry | undefined)[]): void;
  /** Ends every watcher with `error` (log rows were lost to compaction) or normally (no error). */
  endAll(error?: StorageError): void;
  size(): number;
}

interface Watcher extends FanOutWatcher<LogRow> {
  readonly request: WatchRequest;
  live: boolean;
}

const CATCH_UP_CHUNK = 500;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

const decoded = new WeakMap<LogRow, StorageEvent>();

/** The row's event, decoded and frozen on first delivery and shared by every watcher the same row reaches. */
export function toEvent(row: LogRow): StorageEvent {
  let event = decoded.get(row);
  if (event) return event;
  const type = typeOf(row);
  const fresh: StorageEvent = {
    type,
    revision: row.revision,
    key: row.key,
    object: decodeObject(row.value, row.revision),
  };
  if (type !== 'ADDED' && row.prev_value !== null) fresh.prevObject = decodeObject(row.prev_value, row.prev_revision);
  event = deepFreeze(fresh);
  decoded.set(row, event);
  return event;
}

function typeOf(row: LogRow): StorageEvent['type'] {
  return row.deleted ? 'DELETED' : row.created ? 'ADDED' : 'MODIFIED';
}

/**
 * The row's event made of the cache entry's objects (already parsed, stamped and frozen), the same event toEvent
 * would decode; left to toEvent when the entry does not describe the row alike.
 */
function adoptEntry(row: LogRow, entry: LogEntry | undefined): void {
  const type = typeOf(row);
  if (!entry || entry.revision !== row.revision || entry.type !== type || decoded.has(row)) return;
  const wantsPrev = type !== 'ADDED' && row.prev_value !== null;
  if (wantsPrev && !entry.prevObject) return;
  const event: StorageEvent = { type, revision: row.revision, key: row.key, object: entry.object };
  if (wantsPrev) event.prevObject = entry.prevObject;
  decoded.set(row, Object.freeze(event));
}

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const live = new Set<Watcher>();
  const all = new Set<Watcher>();
  let bookmarkTimer: NodeJS.Timeout | undefined;
  const fanOut = createDeferredFanOut<LogRow>(live);

  function unregister(w: Watcher): void {
    live.delete(w);
    all.delete(w);
    if (all.size === 0 && bookmarkTimer) {
      clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
    }
  }

  function tick(): void {
    const revision = fanOut.publishedUpTo(opts.delivered());
    for (const w of live) {
      if (w.request.progressNotify && w.queue.idle && revision >= w.request.revision && revision >= w.position) {
        w.position = revision;
        w.queue.push({ bookmark: revision });
      }
    }
  }

  /** Reads the database until the watcher reaches what the reader delivered, then registers it live. */
  async function catchUp(w: Watcher): Promise<void> {
    const prefix = w.request.key;
    while (!w.queue.done && !w.live) {
      const target = opts.delivered();
      const chunk = await opts.readLog(w.position, CATCH_UP_CHUNK, prefix);
      if (w.queue.done) return;
      if (chunk.compacted > w.position) {
        w.queue.end(
          new StorageError(
            'Expired',
            `too old resource version: ${w.request.revision} (${chunk.compacted})`,
            prefix,
            w.request.revision,
          ),
        );
        return;
      }
      for (const row of chunk.rows) {
        if (selects(w.request, row.key)) w.queue.push(row);
        w.position = row.revision;
      }
      if (chunk.rows.length < CATCH_UP_CHUNK && target > w.position) w.position = target;
      // No await between this check and registering: the reader cannot deliver in between.
      if (w.position >= opts.delivered()) {
        w.live = true;
        live.add(w);
      }
    }
  }

  return {
    open(request, signal) {
      const w = openWatcher<LogRow, Watcher>(
        {
          key: request.key,
          bufferLimit: opts.bufferLimit,
          signal,
          onOverflow: () => opts.overflowed?.add(request.key),
        },
        (queue) => ({
          request,
          position: request.revision,
          live: false,
          queue,
        }),
        unregister,
      );
      if (w.queue.done) return w.queue.iterate(toEvent);
      all.add(w);
      if (request.progressNotify && !bookmarkTimer) {
        bookmarkTimer = setInterval(tick, opts.bookmarkIntervalMs);
        bookmarkTimer.unref();
      }
      // A catch-up query still in flight when the watcher ends finishes on its own and finds it done.
      catchUp(w).catch((e: unknown) =>
        w.queue.end(
          e instanceof StorageError
            ? e
            : new StorageError('Unavailable', `watch catch-up failed: ${(e as Error).message}`, request.key),
        ),
      );
      return w.queue.iterate(toEvent);
    },

    publish(rows, entries) {
      // Watchers still catching up read these rows from the database.
      if (live.size === 0) return;
      if (entries) rows.forEach((row, i) => adoptEntry(row, entries[i]));
      fanOut.publish(rows);
    },

    endAll(error) {
      fanOut.clear();
      for (const w of [...all]) w.queue.end(error);
    },

    size: () => all.size,
  };
}
