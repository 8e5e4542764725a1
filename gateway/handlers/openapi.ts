// /openapi/v3 and its per-group-version documents, and /openapi/v2 (JSON, or gnostic protobuf when asked), generated
// once at start from the kinds' schemas (the same schemas that validate requests). Alias groups get documents of
// their own, with the group-version-kinds of the alias. The v3 index also lists the group-versions of remote
// APIServices whose servers list them, with the hash their servers gave; their documents are fetched from those
// servers when asked for (gateway/aggregator/remote-discovery.ts). /openapi/v2 describes the local kinds only:
// kubectl 1.32 reads v3, and merging every server's Swagger definitions is left to a later change.
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import type { KindDefinition } from '../../api/scheme.js';
import { errors } from '../../api/meta/errors.js';
import type { CreateOnlyKind } from '../../api/openapi/definitions.js';
import { buildOpenAPIDocument, buildOpenAPIIndex } from '../../api/openapi/documents.js';
import { buildOpenAPIV2, type SwaggerDocument } from '../../api/openapi/v2.js';
import { encodeOpenAPIV2 } from '../../api/openapi/v2-proto.js';
import { aliasedKinds } from '../request/group-alias.js';
import type { RemoteAPIs } from '../aggregator/remote-discovery.js';

export interface OpenAPIHandler {
  /** Whether the path was an OpenAPI document it answered. */
  handle(ctx: Context): boolean | Promise<boolean>;
}

/**
 * The protobuf media type as answered: Go's media-type parser, which client-go runs on every Content-Type, refuses the
 * `@` of the spelling clients ask with, so kube-apiserver answers with this one and accepts both.
 */
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';
const V2_PROTOBUF_TYPES = [V2_PROTOBUF, 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf'];
const JSON_TYPES = ['application/json', 'application/*', '*/*'];

const etagOf = (body: Buffer): string => `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;

/** The v2 representation the Accept header picks, first acceptable entry first; null when none is acceptable. */
function v2Representation(accept: string): 'json' | 'protobuf' | null {
  if (!accept.trim()) return 'json';
  for (const entry of accept.split(',')) {
    const type = entry.split(';')[0].trim().toLowerCase();
    if (V2_PROTOBUF_TYPES.includes(type)) return 'protobuf';
    if (JSON_TYPES.includes(type)) return 'json';
  }
  return null;
}

/** Answers 304 when the client holds the current representation (If-None-Match), as kube-apiserver does. */
function notModified(ctx: Context, etag: string): boolean {
  const held = ctx.get('if-none-match');
  return held !== '' && (held.trim() === '*' || held.split(',').some((t) => t.trim().replace(/^W\//, '') === etag));
}

/**
 * `version`: the server's version, which the v2 document's info names. `createOnly`: the create-only kinds served
 * (the reviews, at each group they are served at), described in v2 only. A v3 document for their group version
 * would have kubectl look for their PATCH operation, find none, and then list CustomResourceDefinitions, which are
 * not served: `kubectl create -f` of a review would fail. Without one, kubectl validates the file against v2.
 */
export function createOpenAPIHandler(
  kinds: KindDefinition[],
  version: string,
  createOnly: CreateOnlyKind[] = [],
  remote?: RemoteAPIs,
): OpenAPIHandler {
  const served = [...kinds, ...aliasedKinds(kinds)];
  const index = buildOpenAPIIndex(served);
  const documents = new Map<string, { body: Buffer; etag: string }>();
  for (const path of Object.keys(index.paths)) {
    const gv = path === 'api/v1' ? 'v1' : path.replace(/^apis\//, '');
    const body = Buffer.from(JSON.stringify(buildOpenAPIDocument(served, gv)));
    documents.set(`/openapi/v3/${path}`, {
      body,
      etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`,
    });
  }
  // Rebuilt when the remote view moves; a group-version served here is never taken over by a remote listing.
  let indexState: { generation: number; body: Buffer; hashes: Map<string, string | undefined> } | undefined;
  const currentIndex = () => {
    const generation = remote?.generation() ?? 0;
    if (indexState?.generation === generation) return indexState;
    const paths = { ...index.paths };
    const hashes = new Map<string, string | undefined>();
    const listed = (remote?.list() ?? []).filter((gv) => gv.openapi !== undefined);
    for (const gv of listed.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const key = `apis/${gv.group}/${gv.version}`;
      if (paths[key] !== undefined) continue;
      const hash = gv.openapi?.hash;
      paths[key] = { serverRelativeURL: `/openapi/v3/${key}${hash === undefined ? '' : `?hash=${hash}`}` };
      hashes.set(`/openapi/v3/${key}`, hash);
    }
    return (indexState = { generation, body: Buffer.from(JSON.stringify({ paths })), hashes });
  };

  const serveRemote = async (ctx: Context): Promise<boolean> => {
    const listed = currentIndex().hashes;
    if (!listed.has(ctx.path)) return false;
    const [group, version] = ctx.path.slice('/openapi/v3/apis/'.length).split('/');
    const doc = await remote?.openAPIDocument(group, version);
    if (!doc) return false;
    const etag = doc.etag ?? `"${createHash('sha256').update(doc.body).digest('hex').slice(0, 32)}"`;
    ctx.status = 200;
    ctx.set('Content-Type', 'application/json');
    ctx.set('ETag', etag);
    // Cached for good only under the hash the index lists now: an older URL may be answered with a newer document.
    const hash = listed.get(ctx.path);
    if (hash !== undefined && ctx.query.hash === hash) ctx.set('Cache-Control', 'public, immutable');
    ctx.body = doc.body;
    return true;
  };
  // Built on first use: few clients ask for v2, and building it (a quarter second) and its protobuf form (more) would
  // slow every start.
  let v2: { doc: SwaggerDocument; json: Buffer; etag: string; protobuf?: Buffer } | undefined;
  const v2Document = () => {
    if (v2) return v2;
    const doc = buildOpenAPIV2(served, version, createOnly);
    const json = Buffer.from(JSON.stringify(doc));
    // One entity tag for both representations, as upstream: Vary: Accept tells caches they differ.
    return (v2 = { doc, json, etag: etagOf(json) });
  };

  const serveV2 = (ctx: Context): void => {
    const representation = v2Representation(ctx.get('accept'));
    if (representation === null) throw errors.notAcceptable(['application/json', V2_PROTOBUF]);
    const current = v2Document();
    ctx.set('Vary', 'Accept');
    ctx.set('ETag', current.etag);
    if (notModified(ctx, current.etag)) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    if (representation === 'protobuf') {
      ctx.set('Content-Type', V2_PROTOBUF);
      ctx.body = current.protobuf ??= encodeOpenAPIV2(current.doc);
    } else {
      ctx.set('Content-Type', 'application/json');
      ctx.body = current.json;
    }
  };

  return {
    handle(ctx) {
      if (ctx.path === '/openapi/v2' || ctx.path === '/openapi/v2/') {
        serveV2(ctx);
        return true;
      }
      if (ctx.path === '/openapi/v3' || ctx.path === '/openapi/v3/') {
        ctx.status = 200;
        ctx.set('Content-Type', 'application/json');
        ctx.body = currentIndex().body;
        return true;
      }
      const doc = documents.get(ctx.path);
      if (!doc) return remote && ctx.path.startsWith('/openapi/v3/apis/') ? serveRemote(ctx) : false;
      ctx.status = 200;
      ctx.set('Content-Type', 'application/json');
      ctx.set('ETag', doc.etag);
      // The URL carries the document's hash, so clients may cache it for good.
      if (ctx.query.hash) ctx.set('Cache-Control', 'public, immutable');
      ctx.body = doc.body;
      return true;
    },
  };
}
