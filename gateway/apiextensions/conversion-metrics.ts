// apiextensions-apiserver's conversion webhook metrics, with its names, labels, buckets and stability levels: the
// latency of each conversion by definition and versions, and the calls by result and failure type.
import type { MetricsRegistry } from '../metrics/registration.js';

export type ConversionFailureType =
  | 'conversion_webhook_call_failure'
  | 'conversion_webhook_malformed_response_failure'
  | 'conversion_webhook_partial_response_failure'
  | 'conversion_webhook_invalid_converted_object_failure'
  | 'conversion_webhook_no_objects_returned_failure';

export interface ConversionMetrics {
  /** One conversion of a definition's objects between two versions. */
  observeConversion(crdName: string, fromVersion: string, toVersion: string, succeeded: boolean, seconds: number): void;
  /** One call of a webhook: `failure` undefined when it answered with every object converted. */
  observeCall(seconds: number, failure: ConversionFailureType | undefined): void;
}

/** ExponentialBuckets(0.001, 2, 15), upstream's buckets for the per-definition latency. */
const CONVERSION_BUCKETS = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i);

export function createConversionMetrics(registry: MetricsRegistry): ConversionMetrics {
  const conversions = registry.histogram({
    name: 'apiserver_crd_conversion_webhook_duration_seconds',
    help: 'CRD webhook conversion duration in seconds',
    stability: 'ALPHA',
    labelNames: ['crd_name', 'from_version', 'to_version', 'succeeded'],
    buckets: CONVERSION_BUCKETS,
  });
  const requests = registry.counter({
    name: 'apiserver_conversion_webhook_request_total',
    help: 'Counter for conversion webhook requests with success/failure and failure error type',
    stability: 'ALPHA',
    labelNames: ['result', 'failure_type'],
  });
  const latency = registry.histogram({
    name: 'apiserver_conversion_webhook_duration_seconds',
    help: 'Conversion webhook request latency',
    stability: 'ALPHA',
    labelNames: ['result', 'failure_type'],
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 45, 60],
  });
  return {
    observeConversion(crdName, fromVersion, toVersion, succeeded, seconds) {
      const labels = {
        crd_name: crdName,
        from_version: fromVersion,
        to_version: toVersion,
        succeeded: String(succeeded),
      };
      conversions.observe(labels, seconds);
    },
    observeCall(seconds, failure) {
      const labels = { result: failure ? 'failure' : 'success', failure_type: failure ?? '' };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
