// /openapi/v3 and its per-group-version documents, generated once at start from the kinds' schemas (the same
// schemas that validate requests). /openapi/v2 is not served: kubectl 1.32 needs only v3.
import type { Context } from 'koa';
import { createHash } from 'node:crypto';
import type { KindDefinition } from '../../api/scheme.js';
import { buildOpenAPIDocument, buildOpenAPIIndex } from '../../api/openapi/documents.js';

export interface OpenAPIHandler {
  handle(ctx: Context): boolean;
}

export function createOpenAPIHandler(kinds: KindDefinition[]): OpenAPIHandler {
  const index = buildOpenAPIIndex(kinds);
  const documents = new Map<string, { body: Buffer; etag: string }>();
  for (const path of Object.keys(index.paths)) {
    const gv = path === 'api/v1' ? 'v1' : path.replace(/^apis\//, '');
    const body = Buffer.from(JSON.stringify(buildOpenAPIDocument(kinds, gv)));
    documents.set(`/openapi/v3/${path}`, { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` });
  }
  const indexBody = Buffer.from(JSON.stringify(index));
  return {
    handle(ctx) {
      if (ctx.path === '/openapi/v3' || ctx.path === '/openapi/v3/') {
        ctx.status = 200;
        ctx.set('Content-Type', 'application/json');
        ctx.body = indexBody;
        return true;
      }
      const doc = documents.get(ctx.path);
      if (!doc) return false;
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
