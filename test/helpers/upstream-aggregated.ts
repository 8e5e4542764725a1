// What an aggregated API server serves beside its legacy discovery, for the merged discovery and OpenAPI tests: its
// aggregated discovery (`/apis` as an APIGroupDiscoveryList, with an ETag it honours), its OpenAPI v3 index and
// per-group-version documents (each with an ETag). The test changes `groups` to change what the server lists, and
// turns `aggregated` off to make it a server that only has legacy discovery (406, as kube-apiserver answers).
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startUpstreamAPIServer, type UpstreamAPIServer } from './upstream-apiserver.js';

export interface UpstreamKind {
  resource: string;
  singular: string;
  kind: string;
  shortNames?: string[];
  /** Described in the OpenAPI document's spec. */
  field: string;
}

export interface AggregatedUpstream extends UpstreamAPIServer {
  /** version → kinds of the one group it serves; the first version is the legacy helper's. */
  versions: Map<string, UpstreamKind[]>;
  aggregated: boolean;
  /** Every request, with the headers that matter to caching and negotiation. */
  seen: { path: string; accept?: string; ifNoneMatch?: string }[];
}

const etagOf = (body: string): string => `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;

function openAPIDocument(group: string, version: string, kinds: UpstreamKind[]): object {
  const schemas: Record<string, object> = {};
  const paths: Record<string, object> = {};
  for (const k of kinds) {
    const name = `io.example.${group.split('.')[0]}.${version}.${k.kind}`;
    const gvk = { group, version, kind: k.kind };
    const returns = { 200: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } } };
    // kubectl explain finds a resource's kind through the operations on its paths.
    const base = `/apis/${group}/${version}/namespaces/{namespace}/${k.resource}`;
    paths[base] = {
      get: { 'x-kubernetes-action': 'list', 'x-kubernetes-group-version-kind': gvk, responses: returns },
    };
    paths[`${base}/{name}`] = {
      get: { 'x-kubernetes-action': 'get', 'x-kubernetes-group-version-kind': gvk, responses: returns },
    };
    schemas[name] = {
      type: 'object',
      description: `${k.kind} is served by the test upstream.`,
      properties: {
        apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema.' },
        kind: { type: 'string', description: 'Kind is a string value representing the REST resource.' },
        metadata: { type: 'object', description: 'Standard object metadata.' },
        spec: {
          type: 'object',
          description: `${k.kind}Spec is the desired state.`,
          properties: { [k.field]: { type: 'string', description: `The ${k.field} of a ${k.kind}.` } },
        },
      },
      'x-kubernetes-group-version-kind': [{ group, kind: k.kind, version }],
    };
  }
  return { openapi: '3.0.0', info: { title: 'Test upstream', version }, paths, components: { schemas } };
}

export async function startAggregatedUpstream(opts: {
  group: string;
  version: string;
  service: { namespace: string; name: string };
  kinds: UpstreamKind[];
}): Promise<AggregatedUpstream> {
  // Filled once the base server exists; the handlers only run after that.
  const ref: { self?: AggregatedUpstream } = {};
  const send = (req: IncomingMessage, res: ServerResponse, body: string, contentType: string): true => {
    const etag = etagOf(body);
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, { etag });
      res.end();
      return true;
    }
    res.writeHead(200, { 'content-type': contentType, etag });
    res.end(body);
    return true;
  };
  const discovery = (): string =>
    JSON.stringify({
      kind: 'APIGroupDiscoveryList',
      apiVersion: 'apidiscovery.k8s.io/v2',
      metadata: {},
      items: [
        {
          metadata: { name: opts.group, creationTimestamp: null },
          versions: [...ref.self!.versions].map(([version, kinds]) => ({
            version,
            resources: kinds.map((k) => ({
              resource: k.resource,
              responseKind: { group: opts.group, version, kind: k.kind },
              scope: 'Namespaced',
              singularResource: k.singular,
              verbs: ['get', 'list'],
              ...(k.shortNames ? { shortNames: k.shortNames } : {}),
              subresources: [
                { subresource: 'status', responseKind: { group: opts.group, version, kind: k.kind }, verbs: ['get'] },
              ],
            })),
            freshness: 'Current',
          })),
        },
      ],
    });
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const upstream = ref.self!;
    const path = req.url ?? '';
    const accept = req.headers.accept;
    upstream.seen.push({ path, accept, ifNoneMatch: req.headers['if-none-match'] });
    if (path === '/apis') {
      const wantsAggregated = (accept ?? '').includes('as=APIGroupDiscoveryList');
      if (!upstream.aggregated || !wantsAggregated) {
        res.writeHead(406, { 'content-type': 'application/json' });
        res.end('{"kind":"Status","status":"Failure","code":406}');
        return true;
      }
      return send(req, res, discovery(), 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
    }
    const documents = new Map(
      [...upstream.versions].map(([v, kinds]) => [
        `/openapi/v3/apis/${opts.group}/${v}`,
        JSON.stringify(openAPIDocument(opts.group, v, kinds)),
      ]),
    );
    if (path === '/openapi/v3') {
      const paths = Object.fromEntries(
        [...documents].map(([p, body]) => [
          p.slice('/openapi/v3/'.length),
          { serverRelativeURL: `${p}?hash=${etagOf(body).slice(1, -1)}` },
        ]),
      );
      return send(req, res, JSON.stringify({ paths }), 'application/json');
    }
    const doc = documents.get(path.split('?')[0]);
    if (doc !== undefined) return send(req, res, doc, 'application/json');
    // Its legacy document says what its aggregated one says, for every version, as a real server's two forms agree:
    // the front proxies this path, so clients read it here.
    const legacy = /^\/apis\/[^/]+\/([^/?]+)$/.exec(path);
    const kinds = legacy ? upstream.versions.get(legacy[1]) : undefined;
    if (!kinds) return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${opts.group}/${legacy![1]}`,
        resources: kinds.flatMap((k) => [
          {
            name: k.resource,
            singularName: k.singular,
            namespaced: true,
            kind: k.kind,
            verbs: ['get', 'list'],
            ...(k.shortNames ? { shortNames: k.shortNames } : {}),
          },
          { name: `${k.resource}/status`, singularName: '', namespaced: true, kind: k.kind, verbs: ['get'] },
        ]),
      }),
    );
    return true;
  };
  const base = await startUpstreamAPIServer({
    group: opts.group,
    version: opts.version,
    service: opts.service,
    handle,
  });
  ref.self = Object.assign(base, {
    versions: new Map([[opts.version, opts.kinds]]),
    aggregated: true,
    seen: [] as AggregatedUpstream['seen'],
  });
  return ref.self;
}
