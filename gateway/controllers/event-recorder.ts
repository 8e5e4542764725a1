// The event recorder Gatehouse's controllers report through, shaped after client-go's (tools/record): a core/v1
// Event named `<object>.<hex nanoseconds>` in the object's namespace (`default` for cluster-scoped objects), with
// source and reportingComponent set to the controller. An event identical to one already recorded (same object,
// type, reason, message and source) is counted instead: its count goes up and lastTimestamp moves, as client-go's
// correlator does. Recording never fails the caller: a failed write is logged and dropped, as client-go drops it.
import os from 'node:os';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { setBounded } from '../../api/meta/bounded-map.js';
import { EVENT_TYPE_NORMAL, EVENT_TYPE_WARNING } from '../../api/core/v1/event-rules.js';
import type { WriteContext } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { nowRFC3339 } from '../registry/strategy.js';

export type EventType = typeof EVENT_TYPE_NORMAL | typeof EVENT_TYPE_WARNING;

export interface EventRecorder {
  /** Records an event about `obj` (a stored object: kind, apiVersion and metadata set). */
  event(obj: KObject, type: EventType, reason: string, message: string): Promise<void>;
}

/** client-go keeps this many recent events for counting repeats. */
const REMEMBERED_EVENTS = 4096;

interface Remembered {
  namespace: string;
  name: string;
  count: number;
}

export function createEventRecorder(registry: Registry, opts: { component: string; host?: string; log: (line: string) => void }): EventRecorder {
  const host = opts.host ?? os.hostname();
  const remembered = new Map<string, Remembered>();
  let sequence = 0;
  /** One write at a time per identical event, so counts never go backwards. */
  const inFlight = new Map<string, Promise<void>>();
  // The field manager gives recorded events managedFields times, which the expiry timers read after a restart.
  const write = (): WriteContext => ({ dryRun: false, fieldValidation: 'Ignore', duplicateFields: [], warnings: [], fieldManager: opts.component });

  async function record(obj: KObject, type: EventType, reason: string, message: string): Promise<void> {
    const events = registry.byKind('', 'Event');
    if (!events) return;
    const involvedObject = {
      kind: obj.kind, namespace: obj.metadata.namespace, name: obj.metadata.name, uid: obj.metadata.uid,
      apiVersion: obj.apiVersion, resourceVersion: obj.metadata.resourceVersion,
    };
    const namespace = obj.metadata.namespace || 'default';
    const key = JSON.stringify([opts.component, host, involvedObject.kind, involvedObject.namespace, involvedObject.name, involvedObject.uid, involvedObject.apiVersion, type, reason, message]);
    const now = nowRFC3339();
    const seen = remembered.get(key);
    if (seen) {
      try {
        const count = seen.count + 1;
        await events.patch(seen.namespace, seen.name, (current) => ({ ...current, count, lastTimestamp: now }), write(), '');
        setBounded(remembered, key, { ...seen, count }, REMEMBERED_EVENTS);
        return;
      } catch (e) {
        // Expired (--event-ttl) or deleted: start a new event.
        if (!isStatusError(e) || e.code !== 404) throw e;
      }
    }
    // client-go's name: the object's, then the time in hex nanoseconds (made unique here by a counter).
    const name = `${obj.metadata.name}.${(BigInt(Date.now()) * 1_000_000n + BigInt(++sequence % 1_000_000)).toString(16)}`;
    await events.create(namespace, {
      apiVersion: 'v1', kind: 'Event', metadata: { name, namespace },
      involvedObject: Object.fromEntries(Object.entries(involvedObject).filter(([, v]) => v !== undefined && v !== '')),
      reason, message, source: { component: opts.component, host },
      firstTimestamp: now, lastTimestamp: now, count: 1, type,
      reportingComponent: opts.component, reportingInstance: host,
    }, write());
    setBounded(remembered, key, { namespace, name, count: 1 }, REMEMBERED_EVENTS);
  }

  return {
    async event(obj, type, reason, message) {
      const key = `${obj.metadata.uid}/${type}/${reason}/${message}`;
      const previous = inFlight.get(key) ?? Promise.resolve();
      const next = previous.then(() => record(obj, type, reason, message)).catch((e: unknown) => {
        opts.log(`event recorder ${opts.component}: ${type} ${reason} for ${obj.kind} ${obj.metadata.name}: ${(e as Error).message}`);
      });
      inFlight.set(key, next);
      await next;
      if (inFlight.get(key) === next) inFlight.delete(key);
    },
  };
}
