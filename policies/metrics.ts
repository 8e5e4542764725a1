// Authorization metrics in a prom-client registry of Gatehouse's own (never the library's global one, so that several
// in-process gateways in tests do not share counters). The gateway serves it at GET /metrics. Names follow
// kube-apiserver's where it has one; labels never carry users, tokens or request details, only authorizer
// type/name, decision and outcome codes.
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface AuthorizationMetrics {
  readonly registry: Registry;
  /** One decision taken by one configured authorizer (first Allow/Deny, or NoOpinion when it passed). */
  decision(type: string, name: string, decision: 'allowed' | 'denied' | 'noopinion'): void;
  /** One webhook call that returned (any HTTP code) or failed; `code` is the HTTP status or `<error>`. */
  webhookRequest(
    name: string,
    result: 'success' | 'canceled' | 'timeout' | 'error',
    code: string,
    seconds: number,
  ): void;
  /** A webhook call whose outcome fell to the failure policy (`reason` is one of a few fixed words). */
  webhookFailOpen(name: string, reason: 'error' | 'timeout' | 'malformed'): void;
  webhookCache(name: string, hit: boolean): void;
  webhookMatchConditionError(name: string): void;
  webhookMatchConditionExclusion(name: string): void;
  /** One automatic reload of --authorization-config (not the start-up load): `success` or `failure`, with when. */
  configReload(status: 'success' | 'failure', apiserverId?: string): void;
}

export function createAuthorizationMetrics(registry = new Registry()): AuthorizationMetrics {
  const decisions = new Counter({
    name: 'apiserver_authorization_decisions_total',
    help: 'Total number of terminal decisions made by an authorizer split by authorizer type, name, and decision.',
    labelNames: ['type', 'name', 'decision'],
    registers: [registry],
  });
  const webhookDuration = new Histogram({
    name: 'apiserver_authorization_webhook_duration_seconds',
    help: 'Request latency in seconds.',
    labelNames: ['name', 'result'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const webhookEvaluations = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_total',
    help: 'Round-trips to authorization webhooks.',
    labelNames: ['name', 'result'],
    registers: [registry],
  });
  const webhookFailOpen = new Counter({
    name: 'apiserver_authorization_webhook_evaluations_fail_open_total',
    help: 'Authorization webhook calls whose outcome was decided by the failure policy (error, timeout or malformed answer).',
    labelNames: ['name', 'result'],
    registers: [registry],
  });
  const webhookCodes = new Counter({
    name: 'apiserver_authorization_webhook_requests_total',
    help: 'Authorization webhook calls by HTTP status code (<error> when no answer came).',
    labelNames: ['name', 'code'],
    registers: [registry],
  });
  const cache = new Counter({
    name: 'apiserver_authorization_webhook_cache_total',
    help: 'Authorization webhook decision cache lookups, split by hit or miss.',
    labelNames: ['name', 'result'],
    registers: [registry],
  });
  const matchErrors = new Counter({
    name: 'apiserver_authorization_match_condition_evaluation_errors_total',
    help: 'Total number of errors when an authorization webhook encounters a match condition error split by authorizer type and name.',
    labelNames: ['type', 'name'],
    registers: [registry],
  });
  const matchExclusions = new Counter({
    name: 'apiserver_authorization_match_condition_exclusions_total',
    help: 'Total number of exclusions when an authorization webhook is skipped by match conditions, split by authorizer type and name.',
    labelNames: ['type', 'name'],
    registers: [registry],
  });
  const reloads = new Counter({
    name: 'apiserver_authorization_config_controller_automatic_reloads_total',
    help: 'Total number of automatic reloads of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    registers: [registry],
  });
  const lastReload = new Gauge({
    name: 'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds',
    help: 'Timestamp of the last automatic reload of authorization configuration split by status and apiserver identity.',
    labelNames: ['status', 'apiserver_id_hash'],
    registers: [registry],
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
