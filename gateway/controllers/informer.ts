// A minimal informer: keeps a consumer in step with one resource through list + watch from the list's revision,
// relisting when the watch ends (history compacted → Expired, storage restarted, any error). The RBAC index and the
// role-aggregation controller are fed this way, so they answer from memory and see every change in order.
import type { KObject } from '../../api/meta/types.js';
import { isStorageError } from '../../backends/storage.js';
import type { ResourceStore } from '../registry/store.js';

export interface InformerHandler {
  /** The whole collection, at start and after every relist. */
  replace(objects: KObject[]): void;
  /** Added or modified. */
  put(obj: KObject): void;
  removed(obj: KObject): void;
}

export interface Informer {
  /** Resolves once the first list has been handed to replace(). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startInformer(
  store: ResourceStore,
  handler: InformerHandler,
  opts: { log: (line: string) => void; retryMs?: number },
): Informer {
  const abort = new AbortController();
  // The loop asks this rather than the signal: Node gives every AbortSignal a hidden class of its own, so reading
  // `aborted` turned megamorphic over the informers' relists.
  let stopped = false;
  const retryMs = opts.retryMs ?? 500;
  const what = store.groupResource.group
    ? `${store.groupResource.resource}.${store.groupResource.group}`
    : store.groupResource.resource;
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => {
    markSynced = resolve;
  });
  let timer: NodeJS.Timeout | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });

  const done = (async () => {
    while (!stopped) {
      try {
        const list = await store.storage.getList(store.prefix(''));
        handler.replace(list.items);
        markSynced();
        for await (const ev of store.storage.watch(
          store.prefix(''),
          { revision: list.revision, recursive: true },
          abort.signal,
        )) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') {
            if (ev.object) handler.put(ev.object);
          } else if (ev.type === 'DELETED') {
            const last = ev.object ?? ev.prevObject;
            if (last) handler.removed(last);
          }
        }
      } catch (e) {
        if (stopped) break;
        // A compacted revision is routine after a long disconnect: relist at once.
        if (isStorageError(e, 'Expired')) continue;
        opts.log(`informer ${what}: ${(e as Error).message}; relisting`);
        await pause(retryMs);
      }
    }
  })();

  return {
    synced,
    async stop() {
      stopped = true;
      abort.abort();
      await done;
    },
  };
}

/**
 * An informer for a consumer that keeps objects by name and only needs to hear of each put and each removal: a
 * relist becomes a put of every listed object and a removal of every name known before and missing from it.
 */
export function startNamedInformer(
  store: ResourceStore,
  handler: { put(obj: KObject): void; removed(name: string): void },
  opts: { log: (line: string) => void; retryMs?: number },
): Informer {
  const known = new Set<string>();
  const nameOf = (obj: KObject): string => obj.metadata.name ?? '';
  return startInformer(
    store,
    {
      replace(objects) {
        const listed = new Set(objects.map(nameOf));
        for (const name of [...known]) {
          if (listed.has(name)) continue;
          known.delete(name);
          handler.removed(name);
        }
        for (const obj of objects) {
          known.add(nameOf(obj));
          handler.put(obj);
        }
      },
      put(obj) {
        known.add(nameOf(obj));
        handler.put(obj);
      },
      removed(obj) {
        known.delete(nameOf(obj));
        handler.removed(nameOf(obj));
      },
    },
    opts,
  );
}
