// Parses the URL into the attributes every later filter and handler uses, the way k8s.io/apiserver's
// RequestInfoFactory does: /api/v1/..., /apis/<group>/<version>/..., everything else is a non-resource request.
import type { Context, Next } from 'koa';

export interface RequestInfo {
  isResourceRequest: boolean;
  path: string;
  /** API verb for resource requests (get, list, watch, create, update, patch, delete, deletecollection), else the lowercase HTTP method. */
  verb: string;
  apiPrefix: 'api' | 'apis' | '';
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** Path segments after the group/version. */
  parts: string[];
  /**
   * Set when the path named an alias of apiGroup (`rbac.authorization.k8s.io`): the group the client asked in,
   * which its answers carry (gateway/request/group-alias.ts). apiGroup is then the canonical group.
   */
  requestedGroup?: string;
}

const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/**
 * A boolean query parameter read as kube-apiserver converts its query into options: absent is undefined, `0` and
 * `false` in any case are false, and every other value, the empty one included, is true. Clients rely on the
 * leniency: the Python client sends `True`. (`pretty` alone is parsed strictly; see isPrettyPrint.)
 */
export function queryBool(q: URLSearchParams, name: string): boolean | undefined {
  const value = q.get(name);
  if (value === null) return undefined;
  return value !== '0' && value.toLowerCase() !== 'false';
}

export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };
  // Segments between the leading slash (at most two are skipped) and any trailing slashes; empty segments in
  // between are kept, so that `/api/v1//x` stays a path nothing serves.
  const all = path.split('/');
  let start = all[0] === '' ? 1 : 0;
  if (all[start] === '') start++;
  let end = all.length;
  while (end > start && all[end - 1] === '') end--;
  const count = end - start;

  let restStart: number;
  if (all[start] === 'api' && count >= 2) {
    info.apiPrefix = 'api';
    info.apiVersion = all[start + 1];
    restStart = start + 2;
  } else if (all[start] === 'apis' && count >= 3) {
    info.apiPrefix = 'apis';
    info.apiGroup = all[start + 1];
    info.apiVersion = all[start + 2];
    restStart = start + 3;
  } else {
    return info;
  }
  let rest = all.slice(restStart, end);
  if (rest.length === 0) return info; // discovery of one group/version: a non-resource request
  info.isResourceRequest = true;

  // The deprecated /watch/ prefix (`/api/v1/watch/namespaces/ns/configmaps[/name]`) names the verb itself, whatever
  // the method; older clients (ruby kubeclient 4.9) watch through it only.
  if (rest[0] === 'watch' && rest.length >= 2) {
    info.verb = 'watch';
    rest = rest.slice(1);
  } else {
    switch (method.toUpperCase()) {
      case 'POST':
        info.verb = 'create';
        break;
      case 'GET':
      case 'HEAD':
        info.verb = 'get';
        break;
      case 'PUT':
        info.verb = 'update';
        break;
      case 'PATCH':
        info.verb = 'patch';
        break;
      case 'DELETE':
        info.verb = 'delete';
        break;
      default:
        info.verb = method.toLowerCase();
    }
  }

  // /namespaces/<ns>/<resource>... scopes the request; /namespaces and /namespaces/<name>[/status|finalize] are the
  // namespace resource itself.
  if (rest[0] === 'namespaces' && rest.length >= 2) {
    info.namespace = rest[1];
    if (rest.length >= 3 && !(rest.length === 3 && NAMESPACE_SUBRESOURCES.has(rest[2]))) {
      rest = rest.slice(2);
    } else {
      info.namespace = rest[1];
    }
  }
  info.parts = rest;
  info.resource = rest[0] ?? '';
  if (rest.length >= 2) info.name = rest[1];
  if (rest.length >= 3) info.subresource = rest[2];
  if (info.resource === 'namespaces' && info.name) info.namespace = info.name;

  if (info.verb === 'delete' && !info.name) info.verb = 'deletecollection';
  if (info.verb === 'get' && !info.name) {
    info.verb = queryBool(query, 'watch') ? 'watch' : 'list';
    // A list or watch through the collection with a metadata.name field selector is one on that name. As upstream,
    // only here: the /watch/ prefix names its object in the path.
    const selector = query.get('fieldSelector') ?? '';
    const m = /^metadata\.name(?:==?)([^,]+)$/.exec(selector);
    if (m) info.name = m[1];
  }
  return info;
}

/** First filter: every later one reads requestInfoOf(ctx) and requestQuery(ctx). */
export function requestInfoFilter(ctx: Context, next: Next): Promise<void> {
  ctx.state.requestInfo = parseRequestInfo(ctx.method, ctx.path, requestQuery(ctx));
  return next();
}

/**
 * The query string parsed once per request and shared by the filters and handlers that read it (parsing it anew in
 * each was a measurable share of a GET). A handler that changes it (the router turns a watch on an item path into a
 * field selector) changes it for everyone after it, which is the intent.
 */
export function requestQuery(ctx: Context): URLSearchParams {
  let query = ctx.state.query as URLSearchParams | undefined;
  if (query === undefined) {
    query = new URLSearchParams(ctx.querystring);
    ctx.state.query = query;
  }
  return query;
}

export function requestInfoOf(ctx: Context): RequestInfo {
  return ctx.state.requestInfo as RequestInfo;
}
