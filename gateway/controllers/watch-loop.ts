// The list-then-watch loop controllers run on one collection, as an informer does: list, hand every item over, then
// follow the watch from the list's revision; when the watch ends (history window passed, backend restart) list again
// after a pause. Handlers are synchronous and only record or schedule work, so a slow reconcile never stalls the
// stream.
import type { KObject } from '../../api/meta/types.js';
import type { Storage, StorageEvent } from '../../backends/storage.js';

export interface WatchLoopOptions {
  storage: Storage;
  /** Collection prefix (ResourceStore.prefix(namespace)). */
  prefix: string;
  signal: AbortSignal;
  /** Every object of a (re)list, before the events that follow it. */
  onList(items: readonly KObject[]): void;
  onEvent(event: StorageEvent): void;
  log: (line: string) => void;
  /** Names the loop in log lines. */
  name: string;
  retryMs?: number;
}

/** Resolves once the signal aborts. */
export async function runWatchLoop(opts: WatchLoopOptions): Promise<void> {
  const retryMs = opts.retryMs ?? 500;
  while (!opts.signal.aborted) {
    try {
      const list = await opts.storage.getList(opts.prefix);
      opts.onList(list.items);
      for await (const event of opts.storage.watch(
        opts.prefix,
        { revision: list.revision, recursive: true },
        opts.signal,
      )) {
        if (event.type !== 'BOOKMARK') opts.onEvent(event);
      }
    } catch (e) {
      if (opts.signal.aborted) break;
      opts.log(`${opts.name}: watch ended: ${(e as Error).message}; relisting`);
    }
    if (opts.signal.aborted) break;
    await new Promise<void>((resolve) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        opts.signal.removeEventListener('abort', onAbort);
        resolve();
      }, retryMs);
      opts.signal.addEventListener('abort', onAbort, { once: true });
    });
  }
}
