// Authorization filter: builds the attributes from the request info and the user, asks the authorizer union and
// refuses with kube-apiserver's 403 wording. Anything but an explicit Allow is a refusal (deny by default).
import type { Context, Next } from 'koa';
import { errors, type StatusError } from '../../api/meta/errors.js';
import type { Attributes, Authorizer } from '../../policies/authorizer.js';
import type { UserInfo } from '../../api/meta/user.js';
import { requestInfoOf, type RequestInfo } from '../request/request-info.js';
import { userOf } from '../request/user.js';
import { clientGoneSignal } from '../server/connection.js';
import { addAuditAnnotation } from '../audit/request-audit.js';

/** upstream's authorization.k8s.io/decision and /reason, in the platform's group. */
export const DECISION_ANNOTATION = 'authorization.platform.io/decision';
export const REASON_ANNOTATION = 'authorization.platform.io/reason';

export function attributesFrom(info: RequestInfo, user: UserInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    namespace: info.namespace,
    name: info.name,
  };
}

/** The message kube-apiserver's responsewriters.Forbidden builds, reason appended when the authorizer gave one. */
export function forbiddenError(attrs: Attributes, reason: string): StatusError {
  const who = `User "${attrs.user.name}"`;
  let why: string;
  if (!attrs.isResourceRequest) {
    why = `${who} cannot ${attrs.verb} path "${attrs.path}"`;
  } else {
    const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
    const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
    why = `${who} cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}`;
  }
  if (reason) why = `${why}: ${reason}`;
  return attrs.isResourceRequest
    ? errors.forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name, why)
    : errors.forbiddenPath(why);
}

export function createAuthorizationFilter(authorizer: Authorizer) {
  return async function authorizationFilter(ctx: Context, next: Next): Promise<void> {
    const attrs = attributesFrom(requestInfoOf(ctx), userOf(ctx));
    // The client going away makes slow authorizers (webhooks) stop waiting.
    const result = await authorizer.authorize(attrs, () => clientGoneSignal(ctx.req));
    addAuditAnnotation(ctx, DECISION_ANNOTATION, result.decision === 'Allow' ? 'allow' : 'forbid');
    addAuditAnnotation(ctx, REASON_ANNOTATION, result.reason);
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    await next();
  };
}
