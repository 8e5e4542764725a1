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
  /**
   * The consumer's side, called once: events in queue order until the end; `toEvent` turns a queued item into its
   * event. Breaking out of the iteration (return) ends the watcher.
   */
  iterate(toEvent: (item: T) => StorageEvent): AsyncIterableIterator<StorageEvent>;
}

type Step = IteratorResult<StorageEvent, undefined>;

/** The step of an ended watch, shared by every iterator over storage events. */
export const FINISHED: Step = Object.freeze({ done: true, value: undefined });

export function createWatcherQueue<T>(opts: {
  key: string;
  bufferLimit: number;
  onEnd: () => void;
  /** Called once when the bound ends the watcher (for the watch-cache statistics). */
  onOverflow?: () => void;
}): WatcherQueue<T> {
  let queue: (T | Bookmark)[] = [];
  // Index of the next queued item, so dequeueing is O(1) without shifting the array.
  let next = 0;
  let done = false;
  let error: StorageError | undefined;
  // The consumer's pending next(), when it asked before anything was queued. A push hands the item to it directly:
  // with a thousand watchers, the hops of an async generator (wake, resume, yield, the consumer's resume) were a
  // large share of what each event cost per watcher.
  let waiting: { resolve(step: Step): void; reject(e: unknown): void } | undefined;
  let toEvent: ((item: T) => StorageEvent) | undefined;

  const take = (): Step => {
    const item = queue[next++];
    if (next === queue.length) {
      queue = [];
      next = 0;
    }
    const value = isBookmark(item)
      ? Object.freeze({ type: 'BOOKMARK' as const, revision: item.bookmark, key: '' })
      : toEvent!(item);
    return { done: false, value };
  };

  /** The step a consumer gets once nothing is queued and the stream ended: the error once, then the end. */
  const settle = (w: NonNullable<typeof waiting>): void => {
    const e = error;
    error = undefined;
    if (e) w.reject(e);
    else w.resolve(FINISHED);
  };

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
        opts.onOverflow?.();
        self.end(
          new StorageError(
            'Expired',
            `watch fell behind: more than ${opts.bufferLimit} events buffered; relist and watch again`,
            opts.key,
          ),
        );
        return;
      }
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        try {
          w.resolve(take());
        } catch (e) {
          // An event that cannot be built ends the stream, as a throw ends a generator.
          self.end();
          w.reject(e);
        }
      }
    },
    end(err) {
      if (done) return;
      done = true;
      error = err;
      queue = [];
      next = 0;
      opts.onEnd();
      if (waiting) {
        const w = waiting;
        waiting = undefined;
        settle(w);
      }
    },
    iterate(convert) {
      toEvent = convert;
      const iterator: AsyncIterableIterator<StorageEvent> = {
        next() {
          if (waiting) {
            // A second next() before the first settled waits its turn, as a generator's would.
            const before = new Promise<void>((resolve) => {
              const w = waiting!;
              waiting = {
                resolve: (s) => {
                  w.resolve(s);
                  resolve();
                },
                reject: (e) => {
                  w.reject(e);
                  resolve();
                },
              };
            });
            return before.then(() => iterator.next());
          }
          if (next < queue.length) {
            try {
              return Promise.resolve(take());
            } catch (e) {
              self.end();
              return Promise.reject(e);
            }
          }
          if (done) {
            return new Promise<Step>((resolve, reject) => settle({ resolve, reject }));
          }
          return new Promise<Step>((resolve, reject) => {
            waiting = { resolve, reject };
          });
        },
        return() {
          self.end();
          error = undefined;
          return Promise.resolve(FINISHED);
        },
        throw(e?: unknown) {
          self.end();
          error = undefined;
          return Promise.reject(e);
        },
        [Symbol.asyncIterator]() {
          return iterator;
        },
      };
      return iterator;
    },
  };
  return self;
}

function isBookmark(item: unknown): item is Bookmark {
  return typeof item === 'object' && item !== null && 'bookmark' in item;
}

/**
 * The opening every watch hub shares: a watcher (built by `make` around its queue) whose queue the caller's abort
 * signal ends. Whenever the queue ends (abort, overflow, the hub closing) the listener is removed and `unregister`
 * runs, so neither the signal nor the hub keeps an ended watcher. When the signal has fired already the queue comes
 * back ended: the caller registers nothing.
 */
export function openWatcher<T, W extends { readonly queue: WatcherQueue<T> }>(
  opts: { key: string; bufferLimit: number; signal: AbortSignal; onOverflow?: () => void },
  make: (queue: WatcherQueue<T>) => W,
  unregister: (watcher: W) => void,
): W {
  const { signal } = opts;
  // Filled once `make` returns; the queue may end before that (never in practice), and then has no one to unregister.
  // Present from the start: a property added later takes a map V8 may drop at a collection and build anew, and the
  // read in onEnd then sees a new hidden class after every one.
  const opened: { watcher: W | undefined } = { watcher: undefined };
  // The listener methods come from EventTarget.prototype, not from the signal: Node gives every AbortSignal a hidden
  // class of its own, and reading them off each watch's signal made those sites megamorphic.
  const onAbort = (): void => queue.end();
  const queue = createWatcherQueue<T>({
    key: opts.key,
    bufferLimit: opts.bufferLimit,
    onOverflow: opts.onOverflow,
    onEnd: () => {
      EventTarget.prototype.removeEventListener.call(signal, 'abort', onAbort);
      if (opened.watcher) unregister(opened.watcher);
    },
  });
  const watcher = make(queue);
  opened.watcher = watcher;
  if (signal.aborted) queue.end();
  else EventTarget.prototype.addEventListener.call(signal, 'abort', onAbort, { once: true });
  return watcher;
}

/** An iterable that throws `error` on its first step: the contract surfaces watch failures through iteration. */
// eslint-disable-next-line require-yield -- throwing before any yield is the point
export async function* failedWatch(error: StorageError): AsyncGenerator<StorageEvent> {
  throw error;
}
