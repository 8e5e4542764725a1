// The informer behind the RBAC index and the aggregation controller: lists, follows the watch from the list's
// revision, and relists when the watch ends with Expired (410) or fails, without losing the consumer's state.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { StorageError, type StorageEvent, type WatchOptions } from '../../backends/storage.js';
import { startInformer } from '../../gateway/controllers/informer.js';
import type { ResourceStore } from '../../gateway/registry/store.js';
import { eventually } from '../helpers/api.js';

const obj = (name: string, rv: number): KObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'ns', resourceVersion: String(rv) },
});

/** Storage whose watches play scripted scenarios, one per call; the last one stays open until aborted. */
function fakeStore(
  lists: KObject[][],
  watches: Array<(opts: WatchOptions) => StorageEvent[] | Error>,
): { store: ResourceStore; watchedFrom: bigint[] } {
  const watchedFrom: bigint[] = [];
  let listCall = 0;
  let watchCall = 0;
  const storage = {
    async getList() {
      const items = lists[Math.min(listCall, lists.length - 1)];
      listCall++;
      return { items, revision: BigInt(10 * listCall) };
    },
    watch(_key: string, opts: WatchOptions, signal: AbortSignal): AsyncIterable<StorageEvent> {
      watchedFrom.push(opts.revision);
      const script = watches[Math.min(watchCall++, watches.length - 1)];
      return (async function* () {
        const result = script(opts);
        if (result instanceof Error) throw result;
        yield* result;
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      })();
    },
  };
  const store = {
    storage,
    groupResource: { group: '', resource: 'configmaps' },
    prefix: () => '/configmaps/',
  } as unknown as ResourceStore;
  return { store, watchedFrom };
}

describe('informer', () => {
  it("lists, then applies watch events from the list's revision in order", async () => {
    const state = new Map<string, string>();
    const { store, watchedFrom } = fakeStore(
      [[obj('a', 1)], [obj('a', 1), obj('c', 15)]],
      [
        () => [
          { type: 'ADDED', revision: 11n, key: 'k', object: obj('b', 11) },
          { type: 'DELETED', revision: 12n, key: 'k', object: obj('a', 12) },
        ],
      ],
    );
    let replaced = 0;
    const informer = startInformer(
      store,
      {
        replace(objects) {
          replaced++;
          state.clear();
          for (const o of objects) state.set(o.metadata.name as string, o.metadata.resourceVersion as string);
        },
        put: (o) => state.set(o.metadata.name as string, o.metadata.resourceVersion as string),
        removed: (o) => state.delete(o.metadata.name as string),
      },
      { log: () => {}, retryMs: 10 },
    );
    await informer.synced;
    // The first watch's events, then its end (the scripted stream stays open): a second script only runs on relist.
    await eventually('first events applied', async () => state.has('b') && !state.has('a'));
    await informer.stop();
    expect(watchedFrom[0]).to.equal(10n);
    expect(replaced).to.equal(1);
  });

  it('relists from a fresh revision when the watch is Expired or fails', async () => {
    const names: string[][] = [];
    const logs: string[] = [];
    const { store, watchedFrom } = fakeStore(
      [[obj('a', 1)], [obj('b', 2)], [obj('c', 3)]],
      [() => new StorageError('Expired', 'compacted'), () => new Error('connection reset'), () => []],
    );
    const informer = startInformer(
      store,
      {
        replace: (objects) => names.push(objects.map((o) => o.metadata.name as string)),
        put: () => {},
        removed: () => {},
      },
      { log: (l) => logs.push(l), retryMs: 10 },
    );
    await eventually('three lists', async () => names.length === 3);
    await informer.stop();
    expect(names).to.deep.equal([['a'], ['b'], ['c']]);
    expect(watchedFrom).to.deep.equal([10n, 20n, 30n]);
    // Expired is routine and relisted silently; another failure is logged.
    expect(logs).to.have.length(1);
    expect(logs[0]).to.contain('connection reset');
  });
});
