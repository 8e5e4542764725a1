// The request-rate limits across replicas (gateway/shared-state/rate-limiter.ts), beyond kube-apiserver, whose
// limits bound what one server has in flight. It runs after impersonation, so the identity counted is the one the
// request acts as, and before the in-flight limits and authorization, so that a tenant over its rate costs neither a
// seat nor an authorizer call. Members of system:masters are never limited (an administrator can always reach the
// server), nor are the health probes: a load balancer's probe refused would take a healthy replica out of rotation.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { SYSTEM_MASTERS } from '../authn/authenticator.js';
import { requestInfoOf } from '../request/request-info.js';
import { userOf } from '../request/user.js';
import type { RateLimit } from '../shared-state/rate-limit-config.js';
import type { RateLimiter } from '../shared-state/rate-limiter.js';

const PROBE_PATH = /^\/(healthz|livez|readyz)(\/|$)/;

const PER = { ByUser: ' per user', ByNamespace: ' per namespace', None: '' } as const;

export function rateLimitMessage(limit: RateLimit): string {
  return `rate limit ${limit.name} exceeded: at most ${limit.requestsPerSecond} requests per second${PER[limit.distinguisher]} (burst ${limit.burst}), please try again later`;
}

export function createRateLimitFilter(limiter: RateLimiter) {
  return async function rateLimitFilter(ctx: Context, next: Next): Promise<void> {
    const user = userOf(ctx);
    if (user.groups?.includes(SYSTEM_MASTERS) || PROBE_PATH.test(ctx.path)) return next();
    const verdict = await limiter.admit(user, requestInfoOf(ctx).namespace);
    if (!verdict.admitted) throw errors.tooManyRequests(rateLimitMessage(verdict.limit), verdict.retryAfterSeconds);
    return next();
  };
}
