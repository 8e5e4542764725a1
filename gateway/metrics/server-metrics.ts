// A server instance's two metric registries: /metrics (everything) and /metrics/slis (the health check results), as
// kube-apiserver serves them, both built under the same --disabled-metrics, hidden-metric and label allow-list rules.
import { defaultMetricOptions, MetricsRegistry, type MetricOptions } from './registration.js';
import { processMetricObjects } from './process-metrics.js';

export interface ServerMetrics {
  readonly main: MetricsRegistry;
  readonly slis: MetricsRegistry;
  /** False only to measure what recording costs (bench): request, filter and authentication metrics are skipped. */
  readonly recordRequests: boolean;
}

export function createServerMetrics(
  options: MetricOptions = defaultMetricOptions(),
  opts: { recordRequests?: boolean } = {},
): ServerMetrics {
  const main = new MetricsRegistry(options);
  main.adopt(processMetricObjects());
  return { main, slis: new MetricsRegistry(options), recordRequests: opts.recordRequests ?? true };
}

/** apiserver_tls_handshake_errors_total: counted by the listener, which the gateway's request metrics never see. */
export function tlsHandshakeErrorCounter(metrics: ServerMetrics): () => void {
  const errors = metrics.main.counter({
    name: 'apiserver_tls_handshake_errors_total',
    help: "Number of requests dropped with 'TLS handshake error from' error",
    stability: 'ALPHA',
  });
  return () => errors.inc();
}

/** --disabled-metrics entries that named no metric of either registry (to be warned about once all are created). */
export function unknownDisabledMetrics(metrics: ServerMetrics): string[] {
  const unknownToSlis = new Set(metrics.slis.unknownDisabledMetrics());
  return metrics.main.unknownDisabledMetrics().filter((name) => unknownToSlis.has(name));
}
