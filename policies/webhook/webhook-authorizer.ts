// The Webhook authorizer: asks a remote service with a SubjectAccessReview and turns its answer into a decision.
// Order per request: match conditions (any FALSE skips with NoOpinion; an error falls to the failure policy), the
// decision cache, the cache shared by the replicas (when there is one), then the POST (retried with backoff on connection errors, 429 and 5xx) bounded by the configured
// timeout and the caller's signal. A failed call, a timeout, a non-2xx status or a malformed answer falls to the
// failure policy: NoOpinion lets later authorizers decide, Deny ends the chain. Details of failures go to the log and
// metrics, never into the client's 403 message.
import { backoffDelay, DEFAULT_RETRY_BACKOFF, pause, type RetryBackoff } from './backoff.js';
export { DEFAULT_RETRY_BACKOFF, type RetryBackoff } from './backoff.js';
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from '../authorizer.js';
import type { CelProgram } from '../cel/index.js';
import type { AuthorizationMetrics } from '../metrics.js';
import type { WebhookClientConfig } from './client-config.js';
import { createDecisionCache, sharedDecisionKey, type SharedDecisions } from './decision-cache.js';
import { createJsonPoster } from './post-json.js';
import {
  MalformedReviewError,
  matchConditionRequest,
  parseSarResponse,
  sarBody,
  sarGroupFor,
  sarSpec,
  type SarStatus,
  type SarVersion,
} from './subject-access-review.js';

export type FailurePolicy = 'NoOpinion' | 'Deny';

export interface WebhookSettings {
  /** The authorizer's name in the configuration (metrics label, log lines). */
  name: string;
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: SarVersion;
  failurePolicy: FailurePolicy;
  client: WebhookClientConfig;
  /** Compiled boolean expressions over `request`; empty matches every request. */
  matchConditions: CelProgram[];
}

export interface WebhookAuthorizer extends Authorizer, RuleResolver {
  /** Closes idle connections to the webhook (on reload and shutdown). */
  close(): void;
}

export interface WebhookDeps {
  metrics?: AuthorizationMetrics;
  log?: (line: string) => void;
  retryBackoff?: RetryBackoff;
  /** Decisions shared by the replicas, asked after this authorizer's own cache and before the webhook. */
  sharedDecisions?: SharedDecisions;
}

type Failure = 'error' | 'timeout' | 'malformed';

export function createWebhookAuthorizer(settings: WebhookSettings, deps: WebhookDeps = {}): WebhookAuthorizer {
  const { name, failurePolicy } = settings;
  const log = deps.log ?? (() => {});
  const metrics = deps.metrics;
  const cache = createDecisionCache(settings.authorizedTtlMs, settings.unauthorizedTtlMs);
  const poster = createJsonPoster(settings.client);
  const sarGroup = sarGroupFor(settings.client.server);
  const backoff = deps.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
  // Nothing to share when this webhook caches nothing itself.
  const shared = settings.authorizedTtlMs > 0 || settings.unauthorizedTtlMs > 0 ? deps.sharedDecisions : undefined;

  const failed = (kind: Failure, why: string): AuthorizationResult => {
    log(`error: authorization webhook "${name}" ${kind}: ${why}; failure policy ${failurePolicy}`);
    metrics?.webhookFailOpen(name, kind);
    const evaluationError = `authorization webhook "${name}" failed (${kind})`;
    return failurePolicy === 'Deny'
      ? { decision: 'Deny', reason: '', evaluationError }
      : { decision: 'NoOpinion', reason: '', evaluationError };
  };

  /** undefined: all conditions true (call the webhook); otherwise the result to answer without calling. */
  const matchConditions = (attrs: Attributes): AuthorizationResult | undefined => {
    if (settings.matchConditions.length === 0) return undefined;
    const request = matchConditionRequest(attrs);
    let error: string | undefined;
    for (const program of settings.matchConditions) {
      let value: unknown;
      try {
        value = program.evaluate({ request });
      } catch (e) {
        error ??= `${program.expression}: ${(e as Error).message}`;
        continue;
      }
      if (value === false) {
        metrics?.webhookMatchConditionExclusion(name);
        return { decision: 'NoOpinion', reason: '' };
      }
      if (value !== true) error ??= `${program.expression}: evaluated to a non-boolean value`;
    }
    if (error === undefined) return undefined;
    metrics?.webhookMatchConditionError(name);
    log(`error: authorization webhook "${name}" match condition error: ${error}; failure policy ${failurePolicy}`);
    const evaluationError = `authorization webhook "${name}" match condition evaluation failed`;
    return failurePolicy === 'Deny'
      ? { decision: 'Deny', reason: '', evaluationError }
      : { decision: 'NoOpinion', reason: '', evaluationError };
  };

  const decide = (status: SarStatus): AuthorizationResult => {
    const extra = status.evaluationError ? { evaluationError: status.evaluationError } : {};
    if (status.allowed) return { decision: 'Allow', reason: status.reason, ...extra };
    if (status.denied) return { decision: 'Deny', reason: status.reason, ...extra };
    return { decision: 'NoOpinion', reason: status.reason, ...extra };
  };

  const call = async (
    key: string,
    sharedKey: string | undefined,
    body: unknown,
    bounded: AbortSignal,
    timedOut: () => boolean,
  ): Promise<AuthorizationResult> => {
    const version = settings.subjectAccessReviewVersion;
    const gaveUp = (started: number): AuthorizationResult => {
      const seconds = (performance.now() - started) / 1000;
      if (timedOut()) {
        metrics?.webhookRequest(name, 'timeout', '<error>', seconds);
        return failed('timeout', `no answer within ${settings.timeoutMs} ms`);
      }
      // The client went away: nobody reads this answer, and it is not the webhook's fault.
      metrics?.webhookRequest(name, 'canceled', '<error>', seconds);
      return { decision: 'NoOpinion', reason: '' };
    };
    // Connection failures, 429 and 5xx are retried with backoff (as upstream's webhook client does), always within
    // the one timeout.
    let response;
    let started = 0;
    for (let attempt = 1; ; attempt++) {
      started = performance.now();
      let retryable: string;
      try {
        response = await poster.post(body, bounded);
      } catch (e) {
        if (bounded.aborted) return gaveUp(started);
        metrics?.webhookRequest(name, 'error', '<error>', (performance.now() - started) / 1000);
        retryable = (e as Error).message;
        response = undefined;
      }
      if (response) {
        if (response.status >= 200 && response.status <= 299) break;
        metrics?.webhookRequest(name, 'error', String(response.status), (performance.now() - started) / 1000);
        if (response.status !== 429 && response.status < 500) return failed('error', `HTTP ${response.status}`);
        retryable = `HTTP ${response.status}`;
      }
      if (attempt >= backoff.steps) return failed('error', retryable!);
      if (!(await pause(backoffDelay(backoff, attempt), bounded))) return gaveUp(performance.now());
    }
    const seconds = () => (performance.now() - started) / 1000;
    let status: SarStatus;
    try {
      status = parseSarResponse(response.text, version);
    } catch (e) {
      if (!(e instanceof MalformedReviewError)) throw e;
      metrics?.webhookRequest(name, 'error', String(response.status), seconds());
      return failed('malformed', e.message);
    }
    metrics?.webhookRequest(name, 'success', String(response.status), seconds());
    cache.set(key, status);
    const ttl = cache.ttlFor(status);
    if (sharedKey !== undefined && ttl > 0) shared?.set(sharedKey, status, ttl);
    return decide(status);
  };

  return {
    name,
    type: 'Webhook',
    async authorize(attrs, callerGone) {
      const skipped = matchConditions(attrs);
      if (skipped) return skipped;
      const version = settings.subjectAccessReviewVersion;
      const spec = sarSpec(attrs, version);
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      if (cached) {
        metrics?.webhookCache(name, true);
        return decide(cached);
      }
      const body = sarBody(spec, version, sarGroup);
      const sharedKey = shared && sharedDecisionKey(name, settings.client.server.href, body);
      const fromShared = sharedKey === undefined ? undefined : await shared?.get(sharedKey);
      metrics?.webhookCache(name, fromShared !== undefined);
      if (fromShared) {
        cache.set(key, fromShared.status, fromShared.ttlMs);
        return decide(fromShared.status);
      }

      // One signal for the whole call: the configured timeout or the caller going away. Built by hand rather than
      // with AbortSignal.any, which keeps dependents of the long-lived per-connection signal alive.
      const signal = callerGone?.();
      const controller = new AbortController();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, settings.timeoutMs);
      const onCallerGone = () => controller.abort();
      signal?.addEventListener('abort', onCallerGone, { once: true });
      if (signal?.aborted) controller.abort();
      try {
        return await call(key, sharedKey, body, controller.signal, () => timedOut);
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerGone);
      }
    },
    async rulesFor(): Promise<RulesResult> {
      // A webhook answers yes/no questions; it cannot list what a user may do.
      return {
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: 'webhook authorizer does not support user rule resolution',
      };
    },
    close: () => poster.close(),
  };
}
