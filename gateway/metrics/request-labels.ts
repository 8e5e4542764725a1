// How kube-apiserver turns a request into metric label values (k8s.io/apiserver/pkg/endpoints/metrics and
// endpoints/filters/metrics.go), with its cardinality guards: a verb it does not know is "other", and nothing a
// client chooses freely (a path, a resource that is not served, an object or user name) becomes a label value.
import type { RequestInfo } from '../request/request-info.js';

const VALID_VERBS = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);
export const OTHER_VERB = 'other';
const CONNECT_SUBRESOURCES = new Set(['attach', 'exec', 'portforward', 'proxy']);

/** upstream CleanScope: a named object (or a create) is "resource", then namespace, then cluster. */
export function cleanScope(info: RequestInfo): string {
  if (info.name !== '' || (info.isResourceRequest && info.verb === 'create')) return 'resource';
  if (info.namespace !== '') return 'namespace';
  return info.isResourceRequest ? 'cluster' : '';
}

/**
 * The verb label as upstream reports it: the request-info verb upper-cased for resource requests (so LIST is told
 * from GET, DELETECOLLECTION from DELETE), the HTTP method otherwise; watches are WATCH however they were asked,
 * an apply patch is APPLY, the streaming subresources' upgrade is CONNECT, anything else unknown is "other".
 */
export function cleanVerb(info: RequestInfo, method: string, contentType: string | undefined): string {
  let verb = info.isResourceRequest ? info.verb.toUpperCase() : method;
  if (verb === 'HEAD') verb = 'GET';
  if (verb === 'WATCHLIST') verb = 'WATCH';
  if (verb === 'PATCH' && contentType?.startsWith('application/apply-patch')) verb = 'APPLY';
  if (info.isResourceRequest && CONNECT_SUBRESOURCES.has(info.subresource)) verb = 'CONNECT';
  return VALID_VERBS.has(verb) ? verb : OTHER_VERB;
}

/** upstream cleanDryRun: the distinct dryRun values sorted and joined; anything but `All` is "invalid". */
export function cleanDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return 'All';
}

// upstream compressUsername keeps its own well-known identities (admin, client, kube_proxy, kubelet, and kube-system's
// default service account); these are ours.
const KNOWN_USERS = new Set([
  'system:admin',
  'admin',
  'client',
  'kube_proxy',
  'kubelet',
  'system:serviceaccount:platform-system:default',
]);

export function compressUsername(name: string): string {
  if (KNOWN_USERS.has(name)) return name;
  return name.includes('@') ? 'email_id' : 'other';
}
