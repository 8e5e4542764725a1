// Events expire --event-ttl after their last write. kube-apiserver attaches an etcd lease to every event write; here
// every replica keeps a timer per event, fed by list + watch of the events, and deletes an event when its timer fires
// unless it was written again since (the delete is conditional on the revision the timer was set for). Several
// replicas deleting the same event is harmless: the first wins, the others see NotFound. The deadline of an event
// seen in a watch is counted from the moment it was seen; after a (re)list it is counted from the newest write time
// the object records (its creation and the managedFields entries), so a restart does not extend events' lives.
import type { KObject } from '../../api/meta/types.js';
import { isStorageError } from '../../backends/storage.js';
import type { Registry } from '../registry/registry.js';
import { startInformer } from './informer.js';
import { setLongTimeout } from '../server/long-timeout.js';
import type { Controller } from './namespace-lifecycle.js';

/** The newest write time an event records: creation, or the last update of any of its field managers. */
export function lastWriteTime(obj: KObject): number | undefined {
  const times = [obj.metadata.creationTimestamp, ...(obj.metadata.managedFields ?? []).map((m) => m.time)]
    .map((t) => (typeof t === 'string' ? Date.parse(t) : NaN))
    .filter((t) => !Number.isNaN(t));
  return times.length > 0 ? Math.max(...times) : undefined;
}

export function startEventTtlController(
  registry: Registry,
  opts: { ttlMs: number; log: (line: string) => void },
): Controller {
  const events = registry.byKind('', 'Event');
  if (!events) return { stop: async () => {} };
  const storage = events.storage;
  const timers = new Map<string, () => void>();
  let stopped = false;

  const keyOf = (obj: KObject) => events.key(obj.metadata.namespace ?? '', obj.metadata.name ?? '');

  function cancel(key: string): void {
    timers.get(key)?.();
    timers.delete(key);
  }

  function arm(obj: KObject, deadline: number): void {
    const key = keyOf(obj);
    cancel(key);
    if (stopped) return;
    const resourceVersion = obj.metadata.resourceVersion;
    const cancelTimer = setLongTimeout(
      () => {
        timers.delete(key);
        storage.delete(key, { preconditions: { resourceVersion } }).catch((e: unknown) => {
          // Gone already (another replica, a client) or written again (its watch event re-armed the timer).
          if (isStorageError(e, 'NotFound') || isStorageError(e, 'Conflict')) return;
          opts.log(`error: event-ttl: deleting ${key}: ${(e as Error).message}`);
        });
      },
      Math.max(0, deadline - Date.now()),
    );
    timers.set(key, cancelTimer);
  }

  const informer = startInformer(
    events,
    {
      replace(objects) {
        for (const key of timers.keys()) cancel(key);
        const now = Date.now();
        for (const obj of objects) arm(obj, Math.min(lastWriteTime(obj) ?? now, now) + opts.ttlMs);
      },
      put: (obj) => arm(obj, Date.now() + opts.ttlMs),
      removed: (obj) => cancel(keyOf(obj)),
    },
    { log: opts.log },
  );

  return {
    async stop() {
      stopped = true;
      await informer.stop();
      for (const key of [...timers.keys()]) cancel(key);
    },
  };
}
