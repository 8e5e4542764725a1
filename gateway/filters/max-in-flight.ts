// kube-apiserver's simple in-flight limiter (--max-requests-inflight, --max-mutating-requests-inflight): past either
// limit a request is refused at once with 429 and Retry-After: 1 rather than queued, so that a flood of slow requests
// (each holding its body in memory) cannot grow without bound. Long-running requests (watches, and the streaming
// subresources) are not counted: they are meant to stay open. Members of system:masters are served even past the
// limit, so that an administrator can always reach a saturated server. It runs after impersonation, as upstream's
// does: the identity that counts is the one the request acts as.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import { SYSTEM_MASTERS } from '../authn/authenticator.js';
import { requestInfoOf, type RequestInfo } from '../request/request-info.js';
import { userOf } from '../request/user.js';

export interface InFlightLimits {
  /** get, list (and watch, never counted); 0: no limit. */
  readOnly: number;
  /** Every other verb; 0: no limit. */
  mutating: number;
  /** Told the counts each time one changes (apiserver_current_inflight_requests). */
  onChange?: (readOnly: number, mutating: number) => void;
}

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);
// kube-apiserver's long-running request check: these verbs, and these subresources whatever the verb.
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return (
    LONG_RUNNING_VERBS.has(info.verb) || (info.isResourceRequest && LONG_RUNNING_SUBRESOURCES.has(info.subresource))
  );
}

export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

export function createMaxInFlightFilter(limits: InFlightLimits) {
  let readOnly = 0;
  let mutating = 0;
  return async function maxInFlightFilter(ctx: Context, next: Next): Promise<void> {
    const info = requestInfoOf(ctx);
    if (isLongRunning(info)) return next();
    const isMutating = !READ_ONLY_VERBS.has(info.verb);
    const limit = isMutating ? limits.mutating : limits.readOnly;
    if (limit <= 0) return next();
    if ((isMutating ? mutating : readOnly) >= limit) {
      // Served without taking a place: an administrator's requests never push others out.
      if (userOf(ctx)?.groups?.includes(SYSTEM_MASTERS)) return next();
      throw errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);
    }
    if (isMutating) mutating++;
    else readOnly++;
    limits.onChange?.(readOnly, mutating);
    try {
      await next();
    } finally {
      if (isMutating) mutating--;
      else readOnly--;
      limits.onChange?.(readOnly, mutating);
    }
  };
}
