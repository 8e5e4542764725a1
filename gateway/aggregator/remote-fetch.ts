// What merged discovery and OpenAPI read from the server behind a remote APIService, as kube-aggregator reads it:
// its aggregated discovery (`/apis` as an APIGroupDiscoveryList, revalidated by ETag), falling back to the legacy
// APIResourceList of the one group-version when the server does not serve the aggregated form; the entry of the
// group-version in its OpenAPI v3 index; and that group-version's OpenAPI v3 document.
import { upstreamGet, upstreamUrl, type GetDeps, type GetOutcome, type UpstreamTarget } from './upstream-transport.js';

/** One version of a group in aggregated discovery (APIVersionDiscovery), as JSON. */
export interface VersionDiscovery {
  version: string;
  resources: Record<string, unknown>[];
  freshness?: string;
}

export type DiscoveryFetch =
  | { kind: 'fetched'; entry: VersionDiscovery; etag?: string }
  | { kind: 'not-modified' }
  | { kind: 'failed'; problem: string };

/** v2 first, v2beta1 for a server of 1.26..1.29; a plain-JSON answer means it serves neither. */
const AGGREGATED_ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',');

const header = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value);

function problemOf(outcome: Exclude<GetOutcome, { kind: 'response' }>, url: URL): string {
  switch (outcome.kind) {
    case 'timeout':
      return `timed out waiting for ${url.href}`;
    case 'unresolved':
      return `no address for ${url.host}`;
    case 'failed':
      return outcome.problem;
  }
}

function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const doc: unknown = JSON.parse(body.toString('utf8'));
    return typeof doc === 'object' && doc !== null && !Array.isArray(doc)
      ? (doc as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const asRecords = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null) : [];

/**
 * A legacy APIResourceList's resources in aggregated form, as upstream converts them: `<resource>/<subresource>`
 * entries become subresources of their resource; a response kind without group or version is the list's own.
 */
export function resourcesFromLegacy(
  list: Record<string, unknown>[],
  group: string,
  version: string,
): Record<string, unknown>[] {
  const kindOf = (r: Record<string, unknown>) => ({
    group: typeof r.group === 'string' && r.group !== '' ? r.group : group,
    version: typeof r.version === 'string' && r.version !== '' ? r.version : version,
    kind: r.kind,
  });
  const byName = new Map<string, Record<string, unknown>>();
  for (const r of list) {
    const name = String(r.name ?? '');
    if (name === '' || name.includes('/')) continue;
    const entry: Record<string, unknown> = {
      resource: name,
      responseKind: kindOf(r),
      scope: r.namespaced === true ? 'Namespaced' : 'Cluster',
      singularResource: r.singularName ?? '',
      verbs: r.verbs ?? [],
    };
    if (Array.isArray(r.shortNames) && r.shortNames.length > 0) entry.shortNames = r.shortNames;
    if (Array.isArray(r.categories) && r.categories.length > 0) entry.categories = r.categories;
    byName.set(name, entry);
  }
  for (const r of list) {
    const [parent, sub, ...rest] = String(r.name ?? '').split('/');
    const owner = byName.get(parent);
    // A subresource of a resource the list does not have is dropped, as upstream refuses it.
    if (sub === undefined || rest.length > 0 || !owner) continue;
    const subresources = (owner.subresources ??= []) as Record<string, unknown>[];
    subresources.push({ subresource: sub, responseKind: kindOf(r), verbs: r.verbs ?? [] });
  }
  return [...byName.values()];
}

export async function fetchDiscovery(
  target: UpstreamTarget,
  group: string,
  version: string,
  etag: string | undefined,
  deps: GetDeps,
): Promise<DiscoveryFetch> {
  const url = upstreamUrl(target.base, '/apis');
  const headers: Record<string, string> = { accept: AGGREGATED_ACCEPT };
  if (etag !== undefined) headers['if-none-match'] = etag;
  const answer = await upstreamGet(url, target, headers, { ...deps, readBody: true });
  if (answer.kind !== 'response') return { kind: 'failed', problem: problemOf(answer, url) };
  if (answer.status === 304 && etag !== undefined) return { kind: 'not-modified' };
  const doc = answer.status === 200 ? parseJson(answer.body) : undefined;
  if (doc?.kind === 'APIGroupDiscoveryList') {
    const item = asRecords(doc.items).find((g) => (g.metadata as { name?: unknown } | undefined)?.name === group);
    const found = asRecords(item?.versions).find((v) => v.version === version);
    // A server that answers but does not list the group-version still has it registered: listed without resources.
    const entry: VersionDiscovery = found
      ? { ...found, version, resources: asRecords(found.resources) }
      : { version, resources: [] };
    return { kind: 'fetched', entry, etag: header(answer.headers.etag) };
  }
  if (answer.status !== 200 && answer.status !== 404 && answer.status !== 406)
    return { kind: 'failed', problem: `bad status from ${url.href}: ${answer.status}` };
  return fetchLegacy(target, group, version, deps);
}

async function fetchLegacy(
  target: UpstreamTarget,
  group: string,
  version: string,
  deps: GetDeps,
): Promise<DiscoveryFetch> {
  const url = upstreamUrl(target.base, `/apis/${group}/${version}`);
  const answer = await upstreamGet(url, target, { accept: 'application/json' }, { ...deps, readBody: true });
  if (answer.kind !== 'response') return { kind: 'failed', problem: problemOf(answer, url) };
  if (answer.status !== 200) return { kind: 'failed', problem: `bad status from ${url.href}: ${answer.status}` };
  const doc = parseJson(answer.body);
  if (doc?.kind !== 'APIResourceList') return { kind: 'failed', problem: `${url.href}: not an APIResourceList` };
  return {
    kind: 'fetched',
    entry: { version, resources: resourcesFromLegacy(asRecords(doc.resources), group, version) },
  };
}

export type OpenAPIIndexFetch =
  { kind: 'listed'; hash?: string } | { kind: 'unlisted' } | { kind: 'failed'; problem: string };

/** Whether the server's OpenAPI v3 index lists the group-version, and the hash its URL carries. */
export async function fetchOpenAPIIndexEntry(
  target: UpstreamTarget,
  group: string,
  version: string,
  deps: GetDeps,
): Promise<OpenAPIIndexFetch> {
  const url = upstreamUrl(target.base, '/openapi/v3');
  const answer = await upstreamGet(url, target, { accept: 'application/json' }, { ...deps, readBody: true });
  if (answer.kind !== 'response') return { kind: 'failed', problem: problemOf(answer, url) };
  if (answer.status === 404) return { kind: 'unlisted' };
  if (answer.status !== 200) return { kind: 'failed', problem: `bad status from ${url.href}: ${answer.status}` };
  const paths = parseJson(answer.body)?.paths as Record<string, { serverRelativeURL?: unknown }> | undefined;
  const listed = paths?.[`apis/${group}/${version}`];
  if (!listed) return { kind: 'unlisted' };
  const relative = typeof listed.serverRelativeURL === 'string' ? listed.serverRelativeURL : '';
  const hash = new URL(relative, 'https://upstream.invalid').searchParams.get('hash');
  return { kind: 'listed', hash: hash !== null && hash !== '' ? hash : undefined };
}

export type OpenAPIDocumentFetch =
  | { kind: 'fetched'; body: Buffer; etag?: string }
  | { kind: 'not-modified' }
  | { kind: 'failed'; status?: number; problem: string };

export async function fetchOpenAPIDocument(
  target: UpstreamTarget,
  group: string,
  version: string,
  etag: string | undefined,
  deps: GetDeps,
): Promise<OpenAPIDocumentFetch> {
  const url = upstreamUrl(target.base, `/openapi/v3/apis/${group}/${version}`);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (etag !== undefined) headers['if-none-match'] = etag;
  const answer = await upstreamGet(url, target, headers, { ...deps, readBody: true });
  if (answer.kind !== 'response') return { kind: 'failed', problem: problemOf(answer, url) };
  if (answer.status === 304 && etag !== undefined) return { kind: 'not-modified' };
  if (answer.status !== 200)
    return { kind: 'failed', status: answer.status, problem: `bad status from ${url.href}: ${answer.status}` };
  return { kind: 'fetched', body: answer.body, etag: header(answer.headers.etag) };
}
