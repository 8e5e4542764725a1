// Upstream's admission webhook metrics (k8s.io/apiserver's admission metrics), with its names, labels, buckets and
// stability levels. `type` is `admit` for a mutating webhook and `validating` for a validating one, as upstream
// records them; status codes above 600 are recorded as 600 to bound the series.
import type { MetricsRegistry } from '../../metrics/registration.js';

export type WebhookStepType = 'admit' | 'validating';
export type WebhookErrorType = 'calling_webhook_error' | 'apiserver_internal_error' | 'no_error';

export interface WebhookMetrics {
  /** One call: its latency and its count by code (200 when the webhook answered and allowed or patched). */
  observeCall(
    name: string,
    type: WebhookStepType,
    operation: string,
    seconds: number,
    rejected: boolean,
    code: number,
  ): void;
  observeRejection(
    name: string,
    type: WebhookStepType,
    operation: string,
    errorType: WebhookErrorType,
    code: number,
  ): void;
  observeFailOpen(name: string, type: WebhookStepType): void;
}

const bounded = (code: number) => String(Math.min(code, 600));

export function createWebhookMetrics(registry: MetricsRegistry): WebhookMetrics {
  const latency = registry.histogram({
    name: 'apiserver_admission_webhook_admission_duration_seconds',
    help: 'Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).',
    stability: 'STABLE',
    labelNames: ['name', 'type', 'operation', 'rejected'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1.0, 2.5, 10, 25],
  });
  const rejections = registry.counter({
    name: 'apiserver_admission_webhook_rejection_count',
    help: 'Admission webhook rejection count, identified by name and broken out for each admission type (validating or admit) and operation. Additional labels specify an error type (calling_webhook_error or apiserver_internal_error if an error occurred; no_error otherwise) and optionally a non-zero rejection code if the webhook rejects the request with an HTTP status code (honored by the apiserver when the code is greater or equal to 400). Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    stability: 'ALPHA',
    labelNames: ['name', 'type', 'operation', 'error_type', 'rejection_code'],
  });
  const failOpen = registry.counter({
    name: 'apiserver_admission_webhook_fail_open_count',
    help: 'Admission webhook fail open count, identified by name and broken out for each admission type (validating or mutating).',
    stability: 'ALPHA',
    labelNames: ['name', 'type'],
  });
  const requests = registry.counter({
    name: 'apiserver_admission_webhook_request_total',
    help: 'Admission webhook request total, identified by name and broken out for each admission type (validating or mutating) and operation. Additional labels specify whether the request was rejected or not and an HTTP status code. Codes greater than 600 are truncated to 600, to keep the metrics cardinality bounded.',
    stability: 'ALPHA',
    labelNames: ['name', 'type', 'operation', 'code', 'rejected'],
  });
  return {
    observeCall(name, type, operation, seconds, rejected, code) {
      requests.inc({ name, type, operation, code: bounded(code), rejected: String(rejected) });
      latency.observe({ name, type, operation, rejected: String(rejected) }, seconds);
    },
    observeRejection(name, type, operation, errorType, code) {
      rejections.inc({ name, type, operation, error_type: errorType, rejection_code: bounded(code) });
    },
    observeFailOpen(name, type) {
      failOpen.inc({ name, type });
    },
  };
}
