// The health check metrics kube-apiserver serves at /metrics/slis (component-base/metrics/prometheus/slis): the last
// result of each livez/readyz/healthz check and a count of results.
import type { HealthEndpoint } from '../handlers/health.js';
import type { MetricsRegistry } from './registration.js';

export function createHealthMetrics(
  metrics: MetricsRegistry,
): (endpoint: HealthEndpoint, name: string, ok: boolean) => void {
  const healthcheck = metrics.gauge({
    name: 'kubernetes_healthcheck',
    help: 'This metric records the result of a single healthcheck.',
    stability: 'STABLE',
    labelNames: ['name', 'type'],
  });
  const healthchecks = metrics.counter({
    name: 'kubernetes_healthchecks_total',
    help: 'This metric records the results of all healthcheck.',
    stability: 'STABLE',
    labelNames: ['name', 'type', 'status'],
  });
  return (type, name, ok) => {
    healthcheck.set({ name, type }, ok ? 1 : 0);
    healthchecks.inc({ name, type, status: ok ? 'success' : 'error' });
  };
}
