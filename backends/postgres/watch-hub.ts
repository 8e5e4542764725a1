// Watch fan-out for the PostgreSQL backend. A new watcher first catches up from the database (its own chunked scan
// of the log from its start revision), then goes live: from then on the log reader's chunks are pushed into its
// queue synchronously. The switch happens without an await once the watcher's position has reached what the reader
// delivered, and live rows at or below the position are skipped, so the seam loses and repeats nothing.
//
// A row the log reader fans out is decoded once into one deep-frozen event that every live watcher receives (the
// sharing contract in storage.ts): a thousand watchers cost one JSON.parse per event, and the gateway can encode the
// event once for all of them. Catch-up rows are each watcher's own query results, decoded for that watcher alone.
import { StorageError, type StorageEvent } from '../storage.js';
import { decodeObject, type LogChunk, type LogRow } from './queries.js';

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
  /** Queued events per watcher before it is ended with Expired (the client relists). */
  bufferLimit: number;
  /** What the log reader has delivered: the hand-off point from catch-up to live. */
  delivered: () => bigint;
  /** One catch-up chunk: rows after `after` under `prefix`, with the compaction mark of the same snapshot. */
  readLog: (after: bigint, limit: number, prefix: string) => Promise<LogChunk>;
}

export interface WatchRequest {
  key: string;
  recursive: boolean;
  progressNotify: boolean;
  revision: bigint;
}

export interface WatchHub {
  open(request: WatchRequest, signal: AbortSignal): AsyncIterable<StorageEvent>;
  /** Fans a chunk of log rows (in revision order) out to every live watcher. */
  publish(rows: readonly LogRow[]): void;
  /** Ends every watcher with `error` (log rows were lost to compaction) or normally (no error). */
  endAll(error?: StorageError): void;
  size(): number;
}

type Queued = LogRow | { readonly bookmark: bigint };

interface Watcher {
  readonly request: WatchRequest;
  /** Highest revision handed to this watcher's queue (or skipped as not matching). */
  position: bigint;
  live: boolean;
  queue: Queued[];
  next: number;
  done: boolean;
  error?: StorageError;
  wake?: () => void;
}

const CATCH_UP_CHUNK = 500;

function matches(request: WatchRequest, key: string): boolean {
  return request.recursive ? key.startsWith(request.key) : key === request.key;
}

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
  const type = row.deleted ? 'DELETED' : row.created ? 'ADDED' : 'MODIFIED';
  const fresh: StorageEvent = { type, revision: row.revision, key: row.key, object: decodeObject(row.value, row.revision) };
  if (type !== 'ADDED' && row.prev_value !== null) fresh.prevObject = decodeObject(row.prev_value, row.prev_revision);
  event = deepFreeze(fresh);
  decoded.set(row, event);
  return event;
}

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const live = new Set<Watcher>();
  const all = new Set<Watcher>();
  let bookmarkTimer: NodeJS.Timeout | undefined;

  function push(w: Watcher, item: Queued): void {
    if (w.done) return;
    w.queue.push(item);
    if (w.queue.length - w.next > opts.bufferLimit) {
      end(w, new StorageError('Expired', `watch fell behind: more than ${opts.bufferLimit} events buffered; relist and watch again`, w.request.key));
      return;
    }
    w.wake?.();
  }

  function end(w: Watcher, error?: StorageError): void {
    if (w.done) return;
    w.done = true;
    w.error = error;
    w.queue = [];
    w.next = 0;
    live.delete(w);
    all.delete(w);
    if (all.size === 0 && bookmarkTimer) {
      clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
    }
    w.wake?.();
  }

  function tick(): void {
    const revision = opts.delivered();
    for (const w of live) {
      if (w.request.progressNotify && w.next === w.queue.length && revision >= w.request.revision && revision >= w.position) {
        w.position = revision;
        push(w, { bookmark: revision });
      }
    }
  }

  /** Reads the database until the watcher reaches what the reader delivered, then registers it live. */
  async function catchUp(w: Watcher): Promise<void> {
    const prefix = w.request.key;
    while (!w.done && !w.live) {
      const target = opts.delivered();
      const chunk = await opts.readLog(w.position, CATCH_UP_CHUNK, prefix);
      if (w.done) return;
      if (chunk.compacted > w.position) {
        end(w, new StorageError('Expired', `too old resource version: ${w.request.revision} (${chunk.compacted})`, prefix, w.request.revision));
        return;
      }
      for (const row of chunk.rows) {
        if (matches(w.request, row.key)) push(w, row);
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

  async function* iterate(w: Watcher, signal: AbortSignal, onAbort: () => void): AsyncGenerator<StorageEvent> {
    const catching = catchUp(w).catch((e: unknown) => end(w, e instanceof StorageError ? e : new StorageError('Unavailable', `watch catch-up failed: ${(e as Error).message}`, w.request.key)));
    try {
      for (;;) {
        if (w.next < w.queue.length) {
          const item = w.queue[w.next++];
          if (w.next === w.queue.length) {
            w.queue = [];
            w.next = 0;
          }
          if ('bookmark' in item) yield Object.freeze({ type: 'BOOKMARK', revision: item.bookmark, key: '' });
          else yield toEvent(item);
          continue;
        }
        if (w.error) throw w.error;
        if (w.done) return;
        await new Promise<void>((resolve) => (w.wake = resolve));
        w.wake = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      end(w);
      // A catch-up query still in flight finishes on its own and finds the watcher done.
      void catching;
    }
  }

  return {
    open(request, signal) {
      const w: Watcher = { request, position: request.revision, live: false, queue: [], next: 0, done: false };
      const onAbort = (): void => end(w);
      if (signal.aborted) {
        w.done = true;
        return iterate(w, signal, onAbort);
      }
      all.add(w);
      signal.addEventListener('abort', onAbort, { once: true });
      if (request.progressNotify && !bookmarkTimer) {
        bookmarkTimer = setInterval(tick, opts.bookmarkIntervalMs);
        bookmarkTimer.unref();
      }
      return iterate(w, signal, onAbort);
    },

    publish(rows) {
      if (live.size === 0) return;
      for (const row of rows) {
        for (const w of live) {
          if (row.revision <= w.position) continue;
          w.position = row.revision;
          if (matches(w.request, row.key)) push(w, row);
        }
      }
    },

    endAll(error) {
      for (const w of [...all]) end(w, error);
    },

    size: () => all.size,
  };
}
