// The availability metrics of the aggregation layer, under kube-aggregator's names: which APIServices are marked
// unavailable now, and how often each was marked so for each reason. The proxy's latency is ours: kube-aggregator 1.32
// has no metric of its own for it.
import { MetricsRegistry } from './registration.js';

export interface AggregatorMetrics {
  /** The APIService's Available condition as just computed; `written` when that changed what was stored. */
  availability(name: string, available: boolean, reason: string, written: boolean): void;
  /** A proxied request's upstream answered its headers this long after it was sent (or the sending failed). */
  proxied(name: string, seconds: number): void;
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
  const proxyDuration = metrics.histogram({
    name: 'aggregator_proxy_duration_seconds',
    help: 'Time from sending a request to a remote APIService until its response headers arrived, by APIService name.',
    labelNames: ['name'],
    buckets: [0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    stability: 'ALPHA',
  });
  return {
    proxied(name, seconds) {
      proxyDuration.observe({ name }, seconds);
    },
    availability(name, available, reason, written) {
      unavailable.set({ name }, available ? 0 : 1);
      // Counted when an APIService is marked unavailable, as upstream counts its status writes, not every check.
      if (!available && written) unavailableTotal.inc({ name, reason });
    },
    forget(name) {
      unavailable.remove({ name });
      proxyDuration.remove({ name });
    },
  };
}
