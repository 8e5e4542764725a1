// Watch fan-out for the memory backend. A commit is pushed synchronously into the queue of every matching watcher,
// so one write wakes all of them and none can see revisions out of order. Writers never wait for readers: each
// watcher buffers on its own, and a watcher whose buffer passes the bound is ended with Expired (the client relists),
// as kube-apiserver's cacher does with consumers that cannot keep up.
//
// Each write becomes one frozen StorageEvent that every watcher receives (the contract in storage.ts): with a
// thousand watchers an event costs one object, not a thousand copies, and the gateway can encode it once for all.
import { StorageError, type StorageEvent } from '../storage.js';
import type { LogEntry } from './revision-history.js';

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
  /** Queued events per watcher before it is ended with Expired. */
  bufferLimit: number;
  currentRevision: () => bigint;
}

export interface WatchRequest {
  key: string;
  recursive: boolean;
  progressNotify: boolean;
  /** Events after this revision are delivered. */
  revision: bigint;
}

export interface WatchHub {
  /**
   * Registers a watcher whose queue starts with `replay` (history after the requested revision). The caller must
   * call this synchronously after reading the replay so no commit can slip between the two.
   */
  open(request: WatchRequest, replay: readonly LogEntry[], signal: AbortSignal): AsyncIterable<StorageEvent>;
  /** Fans a committed write out to every matching watcher. */
  publish(entry: LogEntry): void;
  /** Number of registered watchers. */
  size(): number;
  /** Ends every watch normally and stops the bookmark timer. */
  close(): void;
}

type Queued = LogEntry | { readonly bookmark: bigint };

interface Watcher {
  readonly request: WatchRequest;
  queue: Queued[];
  /** Index of the next queued item, so dequeueing is O(1) without shifting the array. */
  next: number;
  done: boolean;
  error?: StorageError;
  wake?: () => void;
}

function matches(request: WatchRequest, key: string): boolean {
  return request.recursive ? key.startsWith(request.key) : key === request.key;
}

// One event per log entry, made on first delivery and shared by every watcher (live or replaying) after that.
const events = new WeakMap<LogEntry, StorageEvent>();

function toEvent(item: Queued): StorageEvent {
  if ('bookmark' in item) return Object.freeze({ type: 'BOOKMARK', revision: item.bookmark, key: '' });
  let event = events.get(item);
  if (!event) {
    // The entry's objects are the history's frozen copies already; only the envelope is new.
    const fresh: StorageEvent = { type: item.type, revision: item.revision, key: item.key, object: item.object };
    if (item.type !== 'ADDED' && item.prevObject) fresh.prevObject = item.prevObject;
    event = Object.freeze(fresh);
    events.set(item, event);
  }
  return event;
}

/** An iterable that throws `error` on its first step: the contract surfaces watch failures through iteration. */
export async function* failedWatch(error: StorageError): AsyncGenerator<StorageEvent> {
  throw error;
}

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const watchers = new Set<Watcher>();
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let notifying = 0;

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
    unregister(w);
    w.wake?.();
  }

  function unregister(w: Watcher): void {
    if (!watchers.delete(w) || !w.request.progressNotify) return;
    notifying--;
    if (notifying === 0 && bookmarkTimer) {
      clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
    }
  }

  function tick(): void {
    const revision = opts.currentRevision();
    for (const w of watchers) {
      // Only idle watchers need a progress mark; a busy one learns the revision from its events. A watch that
      // starts in the future gets none until the store reaches its start, so a client never resumes before it.
      if (w.request.progressNotify && w.next === w.queue.length && revision >= w.request.revision) push(w, { bookmark: revision });
    }
  }

  async function* iterate(w: Watcher, signal: AbortSignal, onAbort: () => void): AsyncGenerator<StorageEvent> {
    try {
      for (;;) {
        if (w.next < w.queue.length) {
          const item = w.queue[w.next++];
          if (w.next === w.queue.length) {
            w.queue = [];
            w.next = 0;
          }
          yield toEvent(item);
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
    }
  }

  return {
    open(request, replay, signal) {
      const w: Watcher = { request, queue: [], next: 0, done: false };
      const onAbort = (): void => end(w);
      if (signal.aborted) {
        w.done = true;
        return iterate(w, signal, onAbort);
      }
      for (const entry of replay) if (matches(request, entry.key)) push(w, entry);
      if (w.done) return iterate(w, signal, onAbort);
      watchers.add(w);
      signal.addEventListener('abort', onAbort, { once: true });
      if (request.progressNotify && notifying++ === 0) {
        bookmarkTimer = setInterval(tick, opts.bookmarkIntervalMs);
        bookmarkTimer.unref();
      }
      return iterate(w, signal, onAbort);
    },

    publish(entry) {
      // A watch may start at a future revision; it gets only the writes after it.
      for (const w of watchers) if (entry.revision > w.request.revision && matches(w.request, entry.key)) push(w, entry);
    },

    size: () => watchers.size,

    close() {
      for (const w of [...watchers]) end(w);
      if (bookmarkTimer) clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
      notifying = 0;
    },
  };
}
