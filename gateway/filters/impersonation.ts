// Impersonation (kubectl --as, --as-group, --as-uid): after authentication and before authorization, a request may
// ask to act as another identity through Impersonate-User, Impersonate-Group (repeatable), Impersonate-Uid and
// Impersonate-Extra-<key> headers. Each requested attribute is a separate `impersonate` check against the
// authorizer union, with upstream's attributes:
//   user            → users in the core group, name = the user;
//   system:serviceaccount:<ns>:<name> → serviceaccounts in the core group, namespace ns, name;
//   group           → groups in the core group;
//   uid             → uids in authentication.platform.io;
//   extra <key>=<v> → userextras/<key> in authentication.platform.io, name = v (one check per value).
// The first refusal answers 403 with the authorization filter's wording. Groups, uid or extra without a user is a
// 400 (upstream answers this client mistake with a 500). On success the request continues as the new identity:
// system:authenticated is added unless the identity is system:anonymous (which gets system:unauthenticated) or the
// groups already hold either; a service account without explicit groups gets its fixed groups. The Impersonate-*
// headers are then removed so that nothing downstream acts on them again.
import type { Context, Next } from 'koa';
import { errors } from '../../api/meta/errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import { dns1123Label, dns1123Subdomain } from '../../api/meta/validation.js';
import type { Attributes, Authorizer } from '../../policies/authorizer.js';
import { ANONYMOUS_USER, SYSTEM_AUTHENTICATED, UNAUTHENTICATED_GROUP } from '../authn/authenticator.js';
import {
  deleteHeaders,
  firstHeaderValue,
  hasHeader,
  headerNames,
  headerValues,
  unescapeExtraKey,
} from '../authn/header-values.js';
import { forbiddenError } from './authorization.js';
import { setUser, userOf } from '../request/user.js';

export const IMPERSONATE_USER = 'impersonate-user';
export const IMPERSONATE_GROUP = 'impersonate-group';
export const IMPERSONATE_UID = 'impersonate-uid';
export const IMPERSONATE_EXTRA_PREFIX = 'impersonate-extra-';

/** authentication.k8s.io in upstream's checks; the platform's own group here. */
export const AUTHENTICATION_GROUP = 'authentication.platform.io';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

type Request =
  | { kind: 'User'; name: string }
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; uid: string };

/**
 * serviceaccount.SplitUsername: exactly `system:serviceaccount:<ns>:<name>` with a valid namespace (DNS label) and
 * account name (DNS subdomain); anything else is impersonated as a plain user of that name.
 */
export function splitServiceAccount(username: string): { namespace: string; name: string } | null {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return null;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return null;
  const [namespace, name] = parts;
  if (dns1123Label(namespace).length > 0 || dns1123Subdomain(name).length > 0) return null;
  return { namespace, name };
}

function describe(r: Request): string {
  switch (r.kind) {
    case 'User':
      return `user "${r.name}"`;
    case 'ServiceAccount':
      return `service account "${r.namespace}/${r.name}"`;
    case 'Group':
      return `group "${r.name}"`;
    case 'UserExtra':
      return `extra "${r.key}"`;
    case 'UID':
      return 'uid';
  }
}

/** The impersonation requests in upstream's order: user, groups, extras, uid. Empty when the request asks none. */
export function impersonationRequests(req: Context['req']): Request[] {
  const requests: Request[] = [];
  const user = firstHeaderValue(req, IMPERSONATE_USER);
  if (user !== '') {
    const sa = splitServiceAccount(user);
    requests.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user });
  }
  const groups = headerValues(req, IMPERSONATE_GROUP);
  for (const name of groups) requests.push({ kind: 'Group', name });
  let hasExtra = false;
  for (const header of headerNames(req)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX)) continue;
    hasExtra = true;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length));
    for (const value of headerValues(req, header)) requests.push({ kind: 'UserExtra', key, value });
  }
  const uid = firstHeaderValue(req, IMPERSONATE_UID);
  if (uid !== '') requests.push({ kind: 'UID', uid });
  if ((groups.length > 0 || hasExtra || uid !== '') && user === '') {
    const asked = requests.map(describe).join(', ');
    throw errors.badRequest(`requested ${asked} without impersonating a user`);
  }
  return requests;
}

function attributesFor(requestor: UserInfo, r: Request): Attributes {
  const base: Attributes = {
    user: requestor,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
  switch (r.kind) {
    case 'User':
      return { ...base, resource: 'users', name: r.name };
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: r.namespace, name: r.name };
    case 'Group':
      return { ...base, resource: 'groups', name: r.name };
    case 'UserExtra':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, resource: 'userextras', subresource: r.key, name: r.value };
    case 'UID':
      return { ...base, apiGroup: AUTHENTICATION_GROUP, resource: 'uids', name: r.uid };
  }
}

/** The identity the requests describe, with upstream's group defaulting. */
export function impersonatedUser(requests: Request[]): UserInfo {
  const groupsSpecified = requests.some((r) => r.kind === 'Group');
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    switch (r.kind) {
      case 'User':
        name = r.name;
        break;
      case 'ServiceAccount':
        name = `${SERVICE_ACCOUNT_PREFIX}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'Group':
        groups.push(r.name);
        break;
      case 'UserExtra':
        (extra[r.key] ??= []).push(r.value);
        break;
      case 'UID':
        uid = r.uid;
        break;
    }
  }
  if (name !== ANONYMOUS_USER) {
    if (!groups.includes(SYSTEM_AUTHENTICATED) && !groups.includes(UNAUTHENTICATED_GROUP))
      groups.push(SYSTEM_AUTHENTICATED);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  const user: UserInfo = { name, groups };
  if (uid !== '') user.uid = uid;
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

function isImpersonationHeader(name: string): boolean {
  return (
    name.startsWith('impersonate-') &&
    (name === IMPERSONATE_USER ||
      name === IMPERSONATE_GROUP ||
      name === IMPERSONATE_UID ||
      name.startsWith(IMPERSONATE_EXTRA_PREFIX))
  );
}

export function createImpersonationFilter(authorizer: Authorizer) {
  return async function impersonationFilter(ctx: Context, next: Next): Promise<void> {
    if (!hasHeader(ctx.req, isImpersonationHeader)) return next();
    const requests = impersonationRequests(ctx.req);
    if (requests.length === 0) return next();
    const requestor = userOf(ctx);
    for (const r of requests) {
      const attrs = attributesFor(requestor, r);
      const result = await authorizer.authorize(attrs);
      if (result.decision !== 'Allow') throw forbiddenError(attrs, result.reason);
    }
    setUser(ctx, impersonatedUser(requests));
    deleteHeaders(ctx.req, isImpersonationHeader);
    return next();
  };
}
