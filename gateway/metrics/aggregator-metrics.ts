// The availability metrics of the aggregation layer, under kube-aggregator's names: which APIServices are marked
// unavailable now, and how often each was marked so for each reason.
import { MetricsRegistry } from './registration.js';

export interface AggregatorMetrics {
  /** The APIService's Available condition as just computed; `written` when that changed what was stored. */
  availability(name: string, available: boolean, reason: string, written: boolean): void;
  /** The APIService is gone: its series go too. */
  forget(name: string): void;
}

export function createAggregatorMetrics(metrics = new MetricsRegistry()): AggregatorMetrics {
  const unavailable = metrics.gauge({
    name: 'aggregator_unavailable_apiservice',
    help: 'Gauge of APIServices which are marked as unavailable broken down by APIService name.',
    labelNames: ['name'],
    stability: 'ALPHA',
  });
  const unavailableTotal = metrics.counter({
    name: 'aggregator_unavailable_apiservice_total',
    help: 'Counter of APIServices which are marked as unavailable broken down by APIService name and reason.',
    labelNames: ['name', 'reason'],
    stability: 'ALPHA',
  });
  return {
    availability(name, available, reason, written) {
      unavailable.set({ name }, available ? 0 : 1);
      // Counted when an APIService is marked unavailable, as upstream counts its status writes, not every check.
      if (!available && written) unavailableTotal.inc({ name, reason });
    },
    forget(name) {
      unavailable.remove({ name });
    },
  };
}
