// apiserver_requested_deprecated_apis, as kube-apiserver's endpoints/metrics declares it: a series set to 1 the first
// time a deprecated version is asked for, and kept until the server restarts, so that a scrape long after the request
// still tells the operator the version is in use. Its values come only from the served kinds that carry a
// deprecation, which bounds the series by the API, not by what clients send.
import type { MetricsRegistry } from './registration.js';

export interface DeprecatedApiLabels {
  /** The kind's own group, not the alias asked in: the series joins apiserver_request_total's, which is keyed so. */
  group: string;
  version: string;
  resource: string;
  subresource: string;
  /** `1.35`, or '' when no removal release is known. */
  removed_release: string;
}

export function createDeprecationMetrics(metrics: MetricsRegistry): (labels: DeprecatedApiLabels) => void {
  const requested = metrics.gauge({
    name: 'apiserver_requested_deprecated_apis',
    help: 'Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    stability: 'STABLE',
    labelNames: ['group', 'version', 'resource', 'subresource', 'removed_release'],
  });
  return (labels) => requested.set(labels, 1);
}
