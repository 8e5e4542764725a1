// The params of policies, kept in memory by one informer per paramKind, as upstream's policy source does: an
// evaluation reads its params without a storage read, and a param written through any replica is seen as soon as
// that replica's watch delivers it. An informer runs while some policy names its kind, and stops when none does.
import type { KObject } from '../../../api/meta/types.js';
import { startInformer, type Informer } from '../../controllers/informer.js';
import type { ResourceStore } from '../../registry/store.js';

export interface ParamObjects {
  /**
   * True once a list is in memory. Before that, resolves with the informer's attempt at hand: false when it failed,
   * and upstream then answers that the kind is not yet synced (an error failurePolicy decides) rather than holding
   * the request while the informer retries.
   */
  ready(): Promise<boolean>;
  get(namespace: string, name: string): KObject | undefined;
  /** Every object of one namespace ('' for a cluster-scoped kind). */
  list(namespace: string): readonly KObject[];
}

export interface ParamCache {
  /** The objects of a paramKind's store; its informer is started if no policy named the kind before. */
  objectsOf(store: ResourceStore): ParamObjects;
  /** Keeps the informers of these stores, and stops the others. */
  retain(stores: ReadonlySet<ResourceStore>): void;
  stop(): Promise<void>;
}

const SYNCED = Promise.resolve(true);

const STOPPED: ParamObjects = { ready: () => Promise.resolve(false), get: () => undefined, list: () => [] };

interface Running extends ParamObjects {
  informer: Informer;
}

function startParamInformer(store: ResourceStore, opts: { log: (line: string) => void }): Running {
  const byNamespace = new Map<string, Map<string, KObject>>();
  const put = (obj: KObject) => {
    const namespace = obj.metadata.namespace ?? '';
    let objects = byNamespace.get(namespace);
    if (!objects) byNamespace.set(namespace, (objects = new Map()));
    objects.set(obj.metadata.name ?? '', obj);
  };
  let synced = false;
  let settle!: (listed: boolean) => void;
  let attempt: Promise<boolean>;
  const nextAttempt = () => {
    attempt = new Promise<boolean>((resolve) => {
      settle = resolve;
    });
  };
  nextAttempt();
  const informer = startInformer(
    store,
    {
      replace(objects) {
        byNamespace.clear();
        for (const obj of objects) put(obj);
        synced = true;
        settle(true);
      },
      put,
      removed(obj) {
        byNamespace.get(obj.metadata.namespace ?? '')?.delete(obj.metadata.name ?? '');
      },
    },
    {
      // The informer logs each failed list or watch before it retries; before the first list, that means not synced.
      log(line) {
        if (!synced) {
          settle(false);
          nextAttempt();
        }
        opts.log(line);
      },
    },
  );
  return {
    informer,
    ready: () => (synced ? SYNCED : attempt),
    get: (namespace, name) => byNamespace.get(namespace)?.get(name),
    list: (namespace) => [...(byNamespace.get(namespace)?.values() ?? [])],
  };
}

export function createParamCache(opts: { log: (line: string) => void }): ParamCache {
  const running = new Map<ResourceStore, Running>();
  const stopping = new Set<Promise<void>>();
  const stopOne = (store: ResourceStore, r: Running) => {
    running.delete(store);
    const done = r.informer.stop().finally(() => stopping.delete(done));
    stopping.add(done);
  };
  let stopped = false;
  return {
    objectsOf(store) {
      // A request still in flight when the server stops must not start an informer nobody would stop.
      if (stopped) return STOPPED;
      let r = running.get(store);
      if (!r) running.set(store, (r = startParamInformer(store, opts)));
      return r;
    },
    retain(stores) {
      for (const [store, r] of running) if (!stores.has(store)) stopOne(store, r);
      for (const store of stores) this.objectsOf(store);
    },
    async stop() {
      stopped = true;
      for (const [store, r] of running) stopOne(store, r);
      await Promise.all(stopping);
    },
  };
}
