// Authorization filter: builds the attributes from the request info and the user, asks the authorizer union and
// refuses with kube-apiserver's 403 wording. Anything but an explicit Allow is a refusal (deny by default).
import type { Socket } from 'node:net';
import type { Context, Next } from 'koa';
import { errors, type StatusError } from '../../api/meta/errors.js';
import type { Attributes, Authorizer } from '../../policies/authorizer.js';
import type { UserInfo } from '../../api/meta/user.js';
import { requestInfoOf, type RequestInfo } from './request-info.js';
import { userOf } from './user.js';

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

/**
 * Aborted when the connection closes. While a request is being authorized nothing has been written, so its response
 * can only close because the client went away, which closes the connection: one signal per connection then serves
 * every request on it, instead of an AbortController and two listeners per request (a measurable share of a GET).
 */
const connectionSignals = new WeakMap<Socket, AbortSignal>();

function clientGone(ctx: Context): AbortSignal {
  const socket = ctx.req.socket;
  let signal = connectionSignals.get(socket);
  if (!signal) {
    const controller = new AbortController();
    signal = controller.signal;
    if (socket.destroyed) controller.abort();
    else socket.once('close', () => controller.abort());
    connectionSignals.set(socket, signal);
  }
  return signal;
}

export function createAuthorizationFilter(authorizer: Authorizer) {
  return async function authorizationFilter(ctx: Context, next: Next): Promise<void> {
    const attrs = attributesFrom(requestInfoOf(ctx), userOf(ctx));
    // The client going away makes slow authorizers (webhooks, later) stop waiting.
    const result = await authorizer.authorize(attrs, clientGone(ctx));
    if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    await next();
  };
}
