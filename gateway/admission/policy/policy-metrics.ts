// Upstream's two ValidatingAdmissionPolicy metrics (k8s.io/apiserver's validating policy metrics): one count and one
// latency per policy, binding, error type and enforcement action.
import type { MetricsRegistry } from '../../metrics/registration.js';

const LABELS = ['policy', 'policy_binding', 'error_type', 'enforcement_action'] as const;

export interface PolicyMetrics {
  /** errorType: no_error | invalid_error | out_of_budget; action: allow | deny | warn | audit. */
  observe(policy: string, binding: string, errorType: string, action: string, seconds: number): void;
}

export function createPolicyMetrics(registry: MetricsRegistry): PolicyMetrics {
  const checks = registry.counter({
    name: 'apiserver_validating_admission_policy_check_total',
    help: 'Validation admission policy check total, labeled by policy and further identified by binding and enforcement action taken.',
    stability: 'BETA',
    labelNames: LABELS,
  });
  const latency = registry.histogram({
    name: 'apiserver_validating_admission_policy_check_duration_seconds',
    help: 'Validation admission latency for individual validation expressions in seconds, labeled by policy and further including binding and enforcement action taken.',
    stability: 'BETA',
    labelNames: LABELS,
    buckets: [0.0000005, 0.001, 0.01, 0.1, 1.0],
  });
  return {
    observe(policy, binding, errorType, action, seconds) {
      const labels = { policy, policy_binding: binding, error_type: errorType, enforcement_action: action };
      checks.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
