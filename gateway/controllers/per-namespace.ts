// The shape shared by controllers that keep one object in every active namespace (the `default` ServiceAccount,
// the `kube-root-ca.crt` ConfigMap): namespaces are watched so a new one gets its object, the object's kind is
// watched so a deleted or edited one is put back, and each namespace is reconciled from fresh reads by one worker,
// so bursts of events collapse. Every replica runs the same loop: the reconcile must be idempotent (a create that
// meets 409 AlreadyExists, an update guarded by resourceVersion).
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import type { Controller } from './namespace-lifecycle.js';
import { runWatchLoop } from './watch-loop.js';

export interface PerNamespaceOptions {
  /** Names the controller in log lines. */
  name: string;
  /** The store of the kept object's kind. */
  target: ResourceStore;
  /** The kept object's name: events of other objects of the kind are ignored. */
  objectName: string;
  /** Brings one active namespace in line; may throw a 409 (retried at once) or anything else (retried later). */
  reconcile(namespace: string): Promise<void>;
  log: (line: string) => void;
  retryMs?: number;
}

/** A create that another replica (or an earlier round) already made, or that the namespace no longer admits. */
export function settledCreate(e: unknown): boolean {
  return (
    isStatusError(e) && (e.code === 409 || e.code === 404 || (e.code === 403 && e.message.includes('being terminated')))
  );
}

const isActive = (ns: KObject): boolean =>
  !ns.metadata.deletionTimestamp && (ns.status as { phase?: string } | undefined)?.phase !== 'Terminating';

export function startPerNamespaceController(registry: Registry, opts: PerNamespaceOptions): Controller {
  const namespaces = registry.byKind('', 'Namespace');
  if (!namespaces) return { async stop() {} };
  const retryMs = opts.retryMs ?? 500;
  const abort = new AbortController();
  const queue = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let working: Promise<void> | undefined;

  function enqueue(namespace: string | undefined): void {
    if (!namespace || abort.signal.aborted) return;
    queue.add(namespace);
    working ??= drain().finally(() => {
      working = undefined;
    });
  }

  function retryLater(namespace: string): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      enqueue(namespace);
    }, retryMs);
    timers.add(timer);
  }

  async function drain(): Promise<void> {
    while (queue.size > 0 && !abort.signal.aborted) {
      const [namespace] = queue;
      queue.delete(namespace);
      try {
        const ns = await namespaces!.get('', namespace).catch((e: unknown) => {
          if (isStatusError(e) && e.code === 404) return undefined;
          throw e;
        });
        if (ns && isActive(ns)) await opts.reconcile(namespace);
      } catch (e) {
        if (abort.signal.aborted) return;
        // Changed underneath (another replica, a client): read again at once.
        if (isStatusError(e) && e.code === 409) {
          queue.add(namespace);
          continue;
        }
        opts.log(`error: ${opts.name}: ${namespace}: ${(e as Error).message}`);
        retryLater(namespace);
      }
    }
  }

  const active = new Set<string>();
  const namespaceLoop = runWatchLoop({
    storage: namespaces.storage,
    prefix: namespaces.prefix(''),
    signal: abort.signal,
    name: `${opts.name} (namespaces)`,
    log: opts.log,
    retryMs,
    onList: (items) => {
      active.clear();
      for (const ns of items) if (isActive(ns)) active.add(ns.metadata.name ?? '');
      for (const name of active) enqueue(name);
    },
    onEvent: (event) => {
      const name = (event.object ?? event.prevObject)?.metadata.name ?? '';
      if (event.type !== 'DELETED' && event.object && isActive(event.object)) {
        active.add(name);
        enqueue(name);
      } else {
        active.delete(name);
      }
    },
  });
  const targetLoop = runWatchLoop({
    storage: opts.target.storage,
    prefix: opts.target.prefix(''),
    signal: abort.signal,
    name: `${opts.name} (${opts.target.groupResource.resource})`,
    log: opts.log,
    retryMs,
    // A relist may follow missed deletions: look at every namespace again.
    onList: () => {
      for (const name of active) enqueue(name);
    },
    onEvent: (event) => {
      const obj = event.object ?? event.prevObject;
      if (obj?.metadata.name === opts.objectName && event.type !== 'ADDED') enqueue(obj.metadata.namespace);
    },
  });

  return {
    async stop() {
      abort.abort();
      for (const t of timers) clearTimeout(t);
      await Promise.all([namespaceLoop, targetLoop, working]);
    },
  };
}
