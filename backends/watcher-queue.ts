// One watcher's buffered stream, shared by every backend's watch fan-out. Writers push synchronously and never wait;
// the watcher drains at its own pace. A watcher whose buffer passes the bound is ended with Expired (the client
// relists), as kube-apiserver's cacher does with consumers that cannot keep up.
import { StorageError, type StorageEvent } from './storage.js';

/** What a watch request selects: one key, or every key under a prefix. */
export interface WatchSelector {
  key: string;
  recursive: boolean;
}

export function selects(selector: WatchSelector, key: string): boolean {
  return selector.recursive ? key.startsWith(selector.key) : key === selector.key;
}

export interface Bookmark {
  readonly bookmark: bigint;
}

export interface WatcherQueue<T> {
  readonly done: boolean;
  /** True when everything queued has been handed to the consumer. */
  readonly idle: boolean;
  /** Queues an item (or a progress bookmark); ends the watcher with Expired past the bound. */
  push(item: T | Bookmark): void;
  /** Ends the stream, dropping what is queued: normally, or with `error` thrown to the consumer. */
  end(error?: StorageError): void;
  /** The consumer's side: events in queue order until the end; `toEvent` turns a queued item into its event. */
  iterate(toEvent: (item: T) => StorageEvent): AsyncGenerator<StorageEvent>;
}

export function createWatcherQueue<T>(opts: { key: string; bufferLimit: number; onEnd: () => void }): WatcherQueue<T> {
  let queue: (T | Bookmark)[] = [];
  // Index of the next queued item, so dequeueing is O(1) without shifting the array.
  let next = 0;
  let done = false;
  let error: StorageError | undefined;
  let wake: (() => void) | undefined;

  const self: WatcherQueue<T> = {
    get done() {
      return done;
    },
    get idle() {
      return next === queue.length;
    },
    push(item) {
      if (done) return;
      queue.push(item);
      if (queue.length - next > opts.bufferLimit) {
        self.end(new StorageError('Expired', `watch fell behind: more than ${opts.bufferLimit} events buffered; relist and watch again`, opts.key));
        return;
      }
      wake?.();
    },
    end(err) {
      if (done) return;
      done = true;
      error = err;
      queue = [];
      next = 0;
      opts.onEnd();
      wake?.();
    },
    async *iterate(toEvent) {
      try {
        for (;;) {
          if (next < queue.length) {
            const item = queue[next++];
            if (next === queue.length) {
              queue = [];
              next = 0;
            }
            yield isBookmark(item) ? Object.freeze({ type: 'BOOKMARK', revision: item.bookmark, key: '' }) : toEvent(item);
            continue;
          }
          if (error) throw error;
          if (done) return;
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
      } finally {
        self.end();
      }
    },
  };
  return self;
}

function isBookmark(item: unknown): item is Bookmark {
  return typeof item === 'object' && item !== null && 'bookmark' in item;
}

/** An iterable that throws `error` on its first step: the contract surfaces watch failures through iteration. */
export async function* failedWatch(error: StorageError): AsyncGenerator<StorageEvent> {
  throw error;
}
