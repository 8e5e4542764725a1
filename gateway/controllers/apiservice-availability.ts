// The Available condition of every APIService, as kube-aggregator's local and remote availability controllers keep
// it: a Local one is True (Local); a remote one is checked when it appears or its spec changes, when the service
// resolver's table changes, and again every period of the server's clock, each check a discovery GET bounded by a
// timeout (gateway/aggregator/discovery-check.ts). The status is written only when the condition changes, so idle
// replicas agree without writing; lastTransitionTime moves only when True/False flips.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import { canonicalJson } from '../../api/meta/canonical-json.js';
import {
  APIREGISTRATION_GROUP,
  conditionOf,
  serviceOf,
  type APIServiceCondition,
} from '../../api/apiregistration/v1/api-service.js';
import { asArr, asObj } from '../../api/common/validation-helpers.js';
import { checkAvailability, type Availability } from '../aggregator/discovery-check.js';
import type { ServiceResolver } from '../aggregator/service-resolver.js';
import type { ClientCertificateSource } from '../aggregator/upstream-tls.js';
import type { AggregatorMetrics } from '../metrics/aggregator-metrics.js';
import type { Clock } from '../server/clock.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { startNamedInformer } from './informer.js';
import type { Controller } from './namespace-lifecycle.js';

/** Upstream re-checks every APIService on its informer's 30 s resync. */
export const AVAILABILITY_PERIOD_MS = 30_000;
/** Upstream's discovery client gives up after 5 s. */
export const DISCOVERY_TIMEOUT_MS = 5_000;

export interface AvailabilityOptions {
  resolver: ServiceResolver;
  clock: Clock;
  metrics: AggregatorMetrics;
  log: (line: string) => void;
  /** Presented to the upstream, as the proxy presents it. */
  clientCert?: ClientCertificateSource;
  periodMs?: number;
  timeoutMs?: number;
}

interface Entry {
  obj: KObject;
  spec: string;
  /** Bumped by whatever makes a check under way stale (a new spec, a new resolver table): its result is dropped. */
  epoch: number;
  checking?: Promise<void>;
  again: boolean;
  cancelTimer?: () => void;
}

const sameCondition = (have: APIServiceCondition | undefined, want: Availability): boolean =>
  have !== undefined &&
  have.status === (want.available ? 'True' : 'False') &&
  have.reason === want.reason &&
  have.message === want.message;

/** The status with its Available condition set to `want`, in place of the old one. */
function withAvailable(current: KObject, want: Availability, now: string): KObject {
  const status = asObj(current.status) ?? {};
  const conditions = asArr(status.conditions).map((c) => c as APIServiceCondition);
  const old = conditions.find((c) => c.type === 'Available');
  const next: APIServiceCondition = {
    type: 'Available',
    status: want.available ? 'True' : 'False',
    lastTransitionTime: old?.status === (want.available ? 'True' : 'False') ? old.lastTransitionTime : now,
    reason: want.reason,
    message: want.message,
  };
  const replaced = old ? conditions.map((c) => (c === old ? next : c)) : [...conditions, next];
  return { ...current, status: { ...status, conditions: replaced } };
}

export function startAvailabilityController(registry: Registry, opts: AvailabilityOptions): Controller {
  const store = registry.byKind(APIREGISTRATION_GROUP, 'APIService');
  if (!store) return { async stop() {} };
  const periodMs = opts.periodMs ?? AVAILABILITY_PERIOD_MS;
  const timeoutMs = opts.timeoutMs ?? DISCOVERY_TIMEOUT_MS;
  const entries = new Map<string, Entry>();
  const abort = new AbortController();
  let stopped = false;
  // What each APIService was last found to be: a stored condition that differs was written by someone else.
  const found = new Map<string, Availability>();

  async function record(name: string, entry: Entry, want: Availability): Promise<void> {
    const changed = !sameCondition(conditionOf(entry.obj, 'Available'), want);
    found.set(name, want);
    if (changed) {
      const now = new Date(opts.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
      try {
        await store!.patch('', name, (current) => withAvailable(current, want, now), internalWrite(), 'status');
        const state = want.available ? 'available' : `unavailable: ${want.reason}: ${want.message}`;
        opts.log(`APIService ${name} is ${state}`);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404))
          opts.log(`error: availability: writing the status of APIService ${name}: ${(e as Error).message}`);
      }
    }
    if (entries.has(name)) opts.metrics.availability(name, want.available, want.reason, changed);
  }

  function check(name: string): void {
    const entry = entries.get(name);
    if (!entry || stopped) return;
    if (entry.checking) {
      entry.again = true;
      return;
    }
    entry.cancelTimer?.();
    entry.cancelTimer = undefined;
    const epoch = entry.epoch;
    entry.checking = (async () => {
      const want = await checkAvailability(entry.obj, {
        resolver: opts.resolver,
        clock: opts.clock,
        timeoutMs,
        signal: abort.signal,
        clientCert: opts.clientCert,
      });
      if (stopped || entries.get(name) !== entry || entry.epoch !== epoch) return;
      await record(name, entry, want);
    })().finally(() => {
      entry.checking = undefined;
      if (stopped || entries.get(name) !== entry) return;
      if (entry.again) {
        entry.again = false;
        check(name);
      } else if (serviceOf(entry.obj)) {
        entry.cancelTimer = opts.clock.setTimeout(() => check(name), periodMs);
      }
    });
  }

  function put(obj: KObject): void {
    const name = obj.metadata.name ?? '';
    const spec = canonicalJson(obj.spec ?? {});
    const entry = entries.get(name);
    if (!entry) {
      entries.set(name, { obj, spec, epoch: 0, again: false });
      check(name);
      return;
    }
    entry.obj = obj;
    const last = found.get(name);
    // Our own status write comes back here: only a new spec or a condition someone else wrote calls for a check.
    if (entry.spec !== spec || (last && !entry.checking && !sameCondition(conditionOf(obj, 'Available'), last))) {
      if (entry.spec !== spec) entry.epoch++;
      entry.spec = spec;
      check(name);
    }
  }

  function removed(name: string): void {
    const entry = entries.get(name);
    entry?.cancelTimer?.();
    entries.delete(name);
    found.delete(name);
    opts.metrics.forget(name);
  }

  const unsubscribe = opts.resolver.onChange(() => {
    for (const [name, entry] of entries) {
      if (!serviceOf(entry.obj)) continue;
      entry.epoch++;
      check(name);
    }
  });

  const informer = startNamedInformer(store, { put, removed }, { log: opts.log });

  return {
    async stop() {
      stopped = true;
      unsubscribe();
      abort.abort();
      await informer.stop();
      const inFlight = [...entries.values()].flatMap((e) => (e.checking ? [e.checking] : []));
      for (const entry of entries.values()) entry.cancelTimer?.();
      await Promise.all(inFlight);
    },
  };
}
