// The Webhook authorizer: asks a remote service with a SubjectAccessReview and turns its answer into a decision.
// Order per request: match conditions (any FALSE skips with NoOpinion; an error falls to the failure policy), the
// decision cache, then one POST bounded by the configured timeout and the caller's signal. A failed call, a timeout,
// a non-2xx status or a malformed answer falls to the failure policy: NoOpinion lets later authorizers decide, Deny
// ends the chain. Details of failures go to the log and metrics, never into the client's 403 message.
import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from '../authorizer.js';
import type { CelProgram } from '../cel/index.js';
import type { AuthorizationMetrics } from '../metrics.js';
import type { WebhookClientConfig } from './client-config.js';
import { createDecisionCache } from './decision-cache.js';
import { createJsonPoster } from './post-json.js';
import {
  MalformedReviewError, matchConditionRequest, parseSarResponse, sarBody, sarSpec, type SarStatus, type SarVersion,
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
}

type Failure = 'error' | 'timeout' | 'malformed';

export function createWebhookAuthorizer(settings: WebhookSettings, deps: WebhookDeps = {}): WebhookAuthorizer {
  const { name, failurePolicy } = settings;
  const log = deps.log ?? (() => {});
  const metrics = deps.metrics;
  const cache = createDecisionCache(settings.authorizedTtlMs, settings.unauthorizedTtlMs);
  const poster = createJsonPoster(settings.client);

  const failed = (kind: Failure, why: string): AuthorizationResult => {
    log(`authorization webhook "${name}" ${kind}: ${why}; failure policy ${failurePolicy}`);
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
    log(`authorization webhook "${name}" match condition error: ${error}; failure policy ${failurePolicy}`);
    const evaluationError = `authorization webhook "${name}" match condition evaluation failed`;
    return failurePolicy === 'Deny' ? { decision: 'Deny', reason: '', evaluationError } : { decision: 'NoOpinion', reason: '', evaluationError };
  };

  const decide = (status: SarStatus): AuthorizationResult => {
    const extra = status.evaluationError ? { evaluationError: status.evaluationError } : {};
    if (status.allowed) return { decision: 'Allow', reason: status.reason, ...extra };
    if (status.denied) return { decision: 'Deny', reason: status.reason, ...extra };
    return { decision: 'NoOpinion', reason: status.reason, ...extra };
  };

  return {
    name,
    type: 'Webhook',
    async authorize(attrs, signal) {
      const skipped = matchConditions(attrs);
      if (skipped) return skipped;
      const version = settings.subjectAccessReviewVersion;
      const spec = sarSpec(attrs, version);
      const key = JSON.stringify(spec);
      const cached = cache.get(key);
      metrics?.webhookCache(name, cached !== undefined);
      if (cached) return decide(cached);

      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const bounded = signal ? AbortSignal.any([signal, timeout]) : timeout;
      const started = performance.now();
      const seconds = () => (performance.now() - started) / 1000;
      let response;
      try {
        response = await poster.post(sarBody(spec, version), bounded);
      } catch (e) {
        if (timeout.aborted) {
          metrics?.webhookRequest(name, 'timeout', '<error>', seconds());
          return failed('timeout', `no answer within ${settings.timeoutMs} ms`);
        }
        if (signal?.aborted) {
          // The client went away: nobody reads this answer, and it is not the webhook's fault.
          metrics?.webhookRequest(name, 'canceled', '<error>', seconds());
          return { decision: 'NoOpinion', reason: '' };
        }
        metrics?.webhookRequest(name, 'error', '<error>', seconds());
        return failed('error', (e as Error).message);
      }
      if (response.status < 200 || response.status > 299) {
        metrics?.webhookRequest(name, 'error', String(response.status), seconds());
        return failed('error', `HTTP ${response.status}`);
      }
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
      return decide(status);
    },
    async rulesFor(): Promise<RulesResult> {
      // A webhook answers yes/no questions; it cannot list what a user may do.
      return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
    },
    close: () => poster.close(),
  };
}
