// Watch fan-out for the memory backend. Commits reach the queue of every matching watcher (watcher-queue.ts) in
// revision order, so none can see revisions out of order, and after the writers were answered (deferred-fan-out.ts).
//
// Each write becomes one frozen StorageEvent that every watcher receives (the contract in storage.ts): with a
// thousand watchers an event costs one object, not a thousand copies, and the gateway can encode it once for all.
import type { StorageEvent } from '../storage.js';
import { createDeferredFanOut, type FanOutWatcher } from '../deferred-fan-out.js';
import { openWatcher, selects, type WatchSelector } from '../watcher-queue.js';
import type { LogEntry } from './revision-history.js';
import type { PrefixCounter } from '../watch-cache-stats.js';

export interface WatchHubOptions {
  bookmarkIntervalMs: number;
  /** Queued events per watcher before it is ended with Expired. */
  bufferLimit: number;
  currentRevision: () => bigint;
  /** Counts, by the watch's key, the watchers the buffer bound ended. */
  overflowed?: PrefixCounter;
}

export interface WatchRequest extends WatchSelector {
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
  /** Fans a committed write out to every matching watcher, once the current turn of the event loop ends. */
  publish(entry: LogEntry): void;
  /** Number of registered watchers. */
  size(): number;
  /** Ends every watch normally and stops the bookmark timer. */
  close(): void;
}

interface Watcher extends FanOutWatcher<LogEntry> {
  readonly request: WatchRequest;
}

// One event per log entry, made on first delivery and shared by every watcher (live or replaying) after that.
const events = new WeakMap<LogEntry, StorageEvent>();

function toEvent(item: LogEntry): StorageEvent {
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

export function createWatchHub(opts: WatchHubOptions): WatchHub {
  const watchers = new Set<Watcher>();
  let bookmarkTimer: NodeJS.Timeout | undefined;
  let notifying = 0;
  const fanOut = createDeferredFanOut<LogEntry>(watchers);

  function unregister(w: Watcher): void {
    if (!watchers.delete(w) || !w.request.progressNotify) return;
    notifying--;
    if (notifying === 0 && bookmarkTimer) {
      clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
    }
  }

  function tick(): void {
    const revision = fanOut.publishedUpTo(opts.currentRevision());
    for (const w of watchers) {
      // Only idle watchers need a progress mark; a busy one learns the revision from its events. A watch that
      // starts in the future gets none until the store reaches its start, so a client never resumes before it.
      if (w.request.progressNotify && w.queue.idle && revision >= w.position) {
        w.position = revision;
        w.queue.push({ bookmark: revision });
      }
    }
  }

  return {
    open(request, replay, signal) {
      const w = openWatcher<LogEntry, Watcher>(
        {
          key: request.key,
          bufferLimit: opts.bufferLimit,
          signal,
          onOverflow: () => opts.overflowed?.add(request.key),
        },
        (queue) => ({
          request,
          position: replay.length > 0 ? replay[replay.length - 1].revision : request.revision,
          queue,
        }),
        unregister,
      );
      if (w.queue.done) return w.queue.iterate(toEvent);
      for (const entry of replay) if (selects(request, entry.key)) w.queue.push(entry);
      if (w.queue.done) return w.queue.iterate(toEvent);
      watchers.add(w);
      if (request.progressNotify && notifying++ === 0) {
        bookmarkTimer = setInterval(tick, opts.bookmarkIntervalMs);
        bookmarkTimer.unref();
      }
      return w.queue.iterate(toEvent);
    },

    publish(entry) {
      // A watch that opens before the fan-out replays the entry from the history instead.
      if (watchers.size > 0) fanOut.publish([entry]);
    },

    size: () => watchers.size,

    close() {
      fanOut.clear();
      for (const w of [...watchers]) w.queue.end();
      if (bookmarkTimer) clearInterval(bookmarkTimer);
      bookmarkTimer = undefined;
      notifying = 0;
    },
  };
}
