// The live half of a watch hub: committed writes reach the watchers' queues on the next turn of the event loop
// (setImmediate), after the writers were answered. kube-apiserver's watch cache dispatches apart from the write too;
// with a thousand watchers the fan-out takes milliseconds of the one thread, which no writer should wait for.
//
// A watcher remembers the newest revision it was handed (`position`), so one that started in between, whose replay
// or catch-up already holds a pending write, skips it; and a hub's progress bookmark must not name a revision
// still pending (`publishedUpTo`), or a client would be told of a revision before its event.
import { selects, type WatcherQueue, type WatchSelector } from './watcher-queue.js';

export interface FanOutWatcher<T> {
  readonly request: WatchSelector;
  readonly queue: WatcherQueue<T>;
  /** Newest revision handed to the queue, or skipped as not matching; the watch's start revision at first. */
  position: bigint;
}

export interface DeferredFanOut<T> {
  /** Queues committed writes (in revision order) for the next turn of the event loop. */
  publish(items: Iterable<T>): void;
  /** The newest revision every watcher has been handed, or `current` when nothing is pending. */
  publishedUpTo(current: bigint): bigint;
  /** Drops what is pending (the watchers are ending). */
  clear(): void;
}

export function createDeferredFanOut<T extends { readonly revision: bigint; readonly key: string }>(
  watchers: Iterable<FanOutWatcher<T>>,
): DeferredFanOut<T> {
  let pending: T[] = [];
  let flushing: NodeJS.Immediate | undefined;

  function flush(): void {
    flushing = undefined;
    const items = pending;
    pending = [];
    for (const item of items) {
      for (const w of watchers) {
        if (item.revision <= w.position) continue;
        w.position = item.revision;
        if (selects(w.request, item.key)) w.queue.push(item);
      }
    }
  }

  return {
    publish(items) {
      for (const item of items) pending.push(item);
      if (pending.length > 0) flushing ??= setImmediate(flush);
    },
    publishedUpTo: (current) => (pending.length > 0 ? pending[0].revision - 1n : current),
    clear() {
      pending = [];
      if (flushing) clearImmediate(flushing);
      flushing = undefined;
    },
  };
}
