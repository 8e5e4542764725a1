// The quota controller (upstream's resourcequota-controller): keeps every ResourceQuota's status.hard equal to
// spec.hard and status.used equal to what its namespace holds. It follows every served namespaced kind (those of
// CustomResourceDefinitions as they come and go) with a list-then-watch loop and recomputes a namespace (debounced)
// when something there changes:
// - a quota appears, goes away, or its spec.hard changes (status.hard lags behind spec.hard): full recount;
// - an object is deleted: full recount, which gives the quota back (upstream's replenishment);
// - an object is added: recount that only raises used. Creates through the API are charged by admission before
//   they are stored, so a recount that lowered used could undo a charge whose object is not stored yet and let a
//   later create through; raising covers objects the server itself created (admission does not charge those).
// A periodic full resync (upstream's --resource-quota-sync-period, 5 minutes) repairs what a lost race left.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import type { StorageEvent } from '../../backends/storage.js';
import { asStrMap, specOf, statusOf } from '../../api/common/validation-helpers.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { computeQuotaStatus } from '../quota/evaluate.js';
import { sameResourceList } from '../quota/quantities.js';
import { countedNames, isUnservedEvaluatorName } from '../quota/resource-names.js';
import type { Controller } from './namespace-lifecycle.js';
import { runWatchLoop } from './watch-loop.js';
import { setMaxListeners } from 'node:events';
import { cloneJson } from '../../api/meta/clone.js';

export interface ResourceQuotaControllerOptions {
  log: (line: string) => void;
  /** Changes within this window are folded into one recount per namespace. */
  debounceMs?: number;
  /** Full recount of every namespace with a quota. */
  resyncMs?: number;
  retryMs?: number;
}

/** Full recount, or one that may only raise recorded usage (see the header). */
type Mode = 'full' | 'raise';

function namespaceOf(obj: KObject | undefined): string | undefined {
  return obj?.metadata?.namespace || undefined;
}

export function startResourceQuotaController(registry: Registry, opts: ResourceQuotaControllerOptions): Controller {
  const quotaStore = registry.byKind('', 'ResourceQuota');
  if (!quotaStore) return { async stop() {} };
  const debounceMs = opts.debounceMs ?? 50;
  const retryMs = opts.retryMs ?? 500;
  const abort = new AbortController();
  // One watch loop, so one abort listener, per namespaced kind: a number that grows with the kinds served, which is
  // no leak, so Node's warning past ten listeners is only noise here.
  setMaxListeners(0, abort.signal);
  /** Quota resource name → the store whose objects it counts; rebuilt whenever the served kinds change. */
  const countedBy = new Map<string, ResourceStore>();
  /**
   * Names of kinds no longer served (a CustomResourceDefinition deleted): nothing of them exists any more, since a
   * definition's objects are deleted before it goes, so they count 0 until a kind with the name is served again.
   */
  const retired = new Set<string>();
  /** Namespace → names of its quotas; only these namespaces need recounting. */
  const quotaNames = new Map<string, Set<string>>();

  const pending = new Map<string, Mode>();
  let timer: NodeJS.Timeout | undefined;
  let passActive = false;
  let pass: Promise<void> = Promise.resolve();

  function schedule(namespace: string, mode: Mode, delayMs = debounceMs): void {
    if (abort.signal.aborted) return;
    pending.set(namespace, pending.get(namespace) === 'full' ? 'full' : mode);
    if (timer || passActive) return;
    timer = setTimeout(() => {
      timer = undefined;
      pass = runPass();
    }, delayMs);
  }

  function scheduleAll(mode: Mode): void {
    for (const namespace of quotaNames.keys()) schedule(namespace, mode);
  }

  async function runPass(): Promise<void> {
    passActive = true;
    try {
      while (pending.size > 0 && !abort.signal.aborted) {
        // Changes that arrive during a pass land in `pending` and are taken by the next round of this loop.
        const batch = [...pending];
        pending.clear();
        for (const [namespace, mode] of batch) {
          try {
            await syncNamespace(namespace, mode);
          } catch (e) {
            if (abort.signal.aborted) return;
            opts.log(`error: resourcequota-controller: namespace ${namespace}: ${(e as Error).message}; retrying`);
            pending.set(namespace, 'full');
            await new Promise((r) => setTimeout(r, retryMs));
          }
        }
      }
    } finally {
      passActive = false;
    }
  }

  async function syncNamespace(namespace: string, mode: Mode): Promise<void> {
    const { items } = await quotaStore!.list(namespace, {});
    if (items.length === 0) return;
    const counts = new Map<string, number>();
    for (const quota of items) {
      for (const name of Object.keys(asStrMap(specOf(quota).hard))) {
        const store = countedBy.get(name);
        if (store && !counts.has(name)) counts.set(name, await store.storage.count(store.prefix(namespace)));
      }
    }
    const observe = (name: string): number | undefined =>
      counts.get(name) ?? (isUnservedEvaluatorName(name) || retired.has(name) ? 0 : undefined);
    for (const quota of items) {
      const next = computeQuotaStatus(quota, observe, { raiseOnly: mode === 'raise' });
      const status = statusOf(quota);
      if (
        status.hard !== undefined &&
        status.used !== undefined &&
        sameResourceList(asStrMap(status.hard), next.hard) &&
        sameResourceList(asStrMap(status.used), next.used)
      )
        continue;
      const body = cloneJson(quota);
      body.status = { ...status, hard: next.hard, used: next.used };
      try {
        // The read resourceVersion guards the write: a charge admission made meanwhile is never overwritten.
        await quotaStore!.update(namespace, quota.metadata.name ?? '', body, internalWrite(), 'status');
      } catch (e) {
        if (isStatusError(e) && e.code === 409) {
          pending.set(namespace, pending.get(namespace) === 'full' ? 'full' : mode);
          continue;
        }
        if (isStatusError(e) && e.code === 404) continue;
        throw e;
      }
    }
  }

  function onQuotaEvent(ev: StorageEvent): void {
    const namespace = namespaceOf(ev.object ?? ev.prevObject);
    const name = (ev.object ?? ev.prevObject)?.metadata.name;
    if (!namespace || !name) return;
    if (ev.type === 'ADDED') {
      const names = quotaNames.get(namespace) ?? new Set<string>();
      names.add(name);
      quotaNames.set(namespace, names);
      schedule(namespace, 'full');
    } else if (ev.type === 'DELETED') {
      const names = quotaNames.get(namespace);
      names?.delete(name);
      if (names?.size === 0) quotaNames.delete(namespace);
      // count/resourcequotas in the namespace dropped.
      if (quotaNames.has(namespace)) schedule(namespace, 'full');
    } else if (ev.type === 'MODIFIED' && ev.object) {
      // A charge only moves status.used; spec.hard moving (or status.hard not following it) needs a recount.
      const hard = asStrMap(specOf(ev.object).hard);
      const before = ev.prevObject ? asStrMap(specOf(ev.prevObject).hard) : {};
      if (!sameResourceList(hard, before) || !sameResourceList(hard, asStrMap(statusOf(ev.object).hard)))
        schedule(namespace, 'full');
    }
  }

  function onObjectEvent(ev: StorageEvent): void {
    const namespace = namespaceOf(ev.object ?? ev.prevObject);
    if (!namespace || !quotaNames.has(namespace)) return;
    if (ev.type === 'ADDED') schedule(namespace, 'raise');
    else if (ev.type === 'DELETED') schedule(namespace, 'full');
  }

  const quotaLoop = runWatchLoop({
    storage: quotaStore.storage,
    prefix: quotaStore.prefix(''),
    signal: abort.signal,
    log: opts.log,
    name: 'resourcequota-controller resourcequotas',
    retryMs,
    onList(items) {
      quotaNames.clear();
      for (const quota of items) {
        const namespace = namespaceOf(quota);
        if (!namespace) continue;
        const names = quotaNames.get(namespace) ?? new Set<string>();
        names.add(quota.metadata.name ?? '');
        quotaNames.set(namespace, names);
      }
      scheduleAll('full');
    },
    onEvent: onQuotaEvent,
  });

  /** Stored prefix → the watch of that collection, stopped on its own when its kind stops being served. */
  const objectLoops = new Map<string, { stop: AbortController; done: Promise<void> }>();
  /** Watches of kinds gone, still winding down: stop() waits for them too. */
  const ending = new Set<Promise<void>>();

  function watchObjects(store: ResourceStore): { stop: AbortController; done: Promise<void> } {
    const stop = new AbortController();
    const signal = AbortSignal.any([abort.signal, stop.signal]);
    const done = runWatchLoop({
      storage: store.storage,
      prefix: store.prefix(''),
      signal,
      log: opts.log,
      retryMs,
      name: `resourcequota-controller ${store.def.resource}`,
      // A relist may hide deletions: recount everything.
      onList: () => scheduleAll('full'),
      onEvent: onObjectEvent,
    });
    return { stop, done };
  }

  /** Follows the served namespaced kinds: those CustomResourceDefinitions add and remove while the server runs too. */
  function followServedKinds(): void {
    if (abort.signal.aborted) return;
    const tracked = registry.stores.filter((s) => s.def.namespaced);
    const before = new Set(countedBy.keys());
    countedBy.clear();
    for (const store of tracked)
      for (const name of countedNames(store.def.group, store.def.resource)) countedBy.set(name, store);
    for (const name of before) if (!countedBy.has(name)) retired.add(name);
    for (const name of countedBy.keys()) retired.delete(name);
    // One watch per stored prefix: a kind stored as another's objects (events.platform.io Events over core Events)
    // changes when that one does, and every version of a custom kind reads the one set of objects. The watch goes
    // through a store that keeps its own form where there is one.
    const watched = new Map<string, ResourceStore>();
    for (const store of tracked) {
      const prefix = store.prefix('');
      if (store !== quotaStore && (!watched.has(prefix) || !store.def.storedAs)) watched.set(prefix, store);
    }
    for (const [prefix, loop] of objectLoops) {
      if (watched.has(prefix)) continue;
      loop.stop.abort();
      objectLoops.delete(prefix);
      ending.add(loop.done);
      void loop.done.finally(() => ending.delete(loop.done));
    }
    for (const [prefix, store] of watched) if (!objectLoops.has(prefix)) objectLoops.set(prefix, watchObjects(store));
    // A kind gone: its names now count 0. (A kind added is counted once its watch has listed.)
    if ([...before].some((name) => retired.has(name))) scheduleAll('full');
  }
  followServedKinds();
  const unsubscribe = registry.onKindsChanged(followServedKinds);
  const resync = setInterval(() => scheduleAll('full'), opts.resyncMs ?? 5 * 60_000);
  resync.unref();

  return {
    async stop() {
      unsubscribe();
      abort.abort();
      clearInterval(resync);
      clearTimeout(timer);
      await Promise.all([quotaLoop, ...[...objectLoops.values()].map((l) => l.done), ...ending]);
      await pass;
    },
  };
}
