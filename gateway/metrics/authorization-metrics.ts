// The authorization metrics (policies/metrics.ts says what they record), on the server's registry. Names follow
// kube-apiserver's where it has one.
import type { AuthorizationMetrics } from '../../policies/metrics.js';
import { MetricsRegistry } from './registration.js';

export function createAuthorizationMetrics(metrics = new MetricsRegistry()): AuthorizationMetrics {
  const registry = metrics.registry;
  const decisions = metrics.counter({
    name: 'apiserver_authorization_decisions_total',
    help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    labelNames: ['type', 'name', 'decision'],
    stability: 'ALPHA',
  });
  const webhookDuration = metrics.histogram({
    name: 'apiserver_authorization_webhook_duration_seconds',
    help: 'Request latency in seconds.',
    labelNames: ['name', 'result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    stability: 'ALPHA',
  });
  const webhookEvaluations = metrics.counter({
    name: 'apiserver_authorization_webhook_evaluations_total',
    help: 'Round-trips to authorization webhooks.',
    labelNames: ['name', 'result'],
    stability: 'ALPHA',
  });
  const webhookFailOpen = metrics.counter({
    name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
    help: 'Authorization webhook calls whose outcome was decided by the failure policy (error, timeout or malformed answer).',
    labelNames: ['name', 'result'],
    stability: 'ALPHA',
  });
  const webhookCodes = metrics.counter({
    name: 'apiserver_authorization_webhook_requests_total',
    help: 'Authorization webhook calls by HTTP status code (<error> when no answer came).',
    labelNames: ['name', 'code'],
    stability: 'ALPHA',
  });
  const cache = metrics.counter({
    name: 'apiserver_authorization_webhook_cache_total',
    help: 'Authorization webhook decision cache lookups, split by hit or miss.',
    labelNames: ['name', 'result'],
    stability: 'ALPHA',
  });
  const matchErrors = metrics.counter({
    name: 'apiserver_authorization_match_condition_evaluation_errors_total',
    help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    labelNames: ['type', 'name'],
    stability: 'ALPHA',
  });
  const matchExclusions = metrics.counter({
    name: 'apiserver_authorization_match_condition_exclusions_total',
    help: 'Total number of exclusions when an authorization webhook is skipped by match conditions, split by authorizer type and name.',
    labelNames: ['type', 'name'],
    stability: 'ALPHA',
  });
  const reloads = metrics.counter({
    name: 'apiserver_authorization_config_controller_automatic_reloads_total',
    help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    stability: 'ALPHA',
  });
  const lastReload = metrics.gauge({
    name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
    help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    stability: 'ALPHA',
  });
  return {
    registry,
    decision: (type, name, decision) => decisions.inc({ type, name, decision }),
    webhookRequest(name, result, code, seconds) {
      webhookDuration.observe({ name, result }, seconds);
      webhookEvaluations.inc({ name, result });
      webhookCodes.inc({ name, code });
    },
    webhookFailOpen: (name, reason) => webhookFailOpen.inc({ name, result: reason }),
    webhookCache: (name, hit) => cache.inc({ name, result: hit ? 'hit' : 'miss' }),
    webhookMatchConditionError: (name) => matchErrors.inc({ type: 'Webhook', name }),
    webhookMatchConditionExclusion: (name) => matchExclusions.inc({ type: 'Webhook', name }),
    configReload(status, apiserverId = '') {
      reloads.inc({ status, apiserver_id_hash: apiserverId });
      lastReload.set({ status, apiserver_id_hash: apiserverId }, Date.now() / 1000);
    },
  };
}
