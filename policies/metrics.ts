// What the authorizers record about their decisions and webhook calls. The metrics themselves (names following
// kube-apiserver's) are made in gateway/metrics/authorization-metrics.ts, on the server's registry: labels never carry
// users, tokens or request details, only authorizer type/name, decision and outcome codes.
import type { Registry } from 'prom-client';

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
