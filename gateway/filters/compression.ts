// Response compression (APIResponseCompression, beta, on by default): gzip for get and list responses when the
// client sends `Accept-Encoding: gzip`. Watch streams are never compressed: a gzip stream buffers, and events must
// reach the client as they happen. Only gzip is offered, as kube-apiserver offers only gzip.
//
// Threshold: kube-apiserver skips bodies under 128 KiB; the spec promises gzip for every get and list that asks,
// so the default here is 0 (compress any size) and callers that want upstream's trade-off pass
// UPSTREAM_GZIP_THRESHOLD_BYTES.
import type { Context, Next } from 'koa';
import compress from 'koa-compress';
import { constants } from 'node:zlib';
import type { FeatureGates } from '../server/feature-gates.js';
import { requestInfoOf } from '../request/request-info.js';

export const UPSTREAM_GZIP_THRESHOLD_BYTES = 128 * 1024;

/** Requests whose response koa-compress encodes once the handler set ctx.body. */
const compressing = new WeakSet<Context>();

/** Whether this filter hands the response to koa-compress: a handler must then answer through ctx.body. */
export function mayCompress(ctx: Context): boolean {
  return compressing.has(ctx);
}

export interface CompressionOptions {
  /** Responses smaller than this stay uncompressed; default 0. */
  thresholdBytes?: number;
}

export function createCompression(features: FeatureGates, opts: CompressionOptions = {}) {
  const threshold = opts.thresholdBytes ?? 0;
  const gzip = compress({
    // koa-compress treats 0 as "no threshold"; kube uses level 1: nearly the same ratio for far less CPU.
    threshold,
    gzip: { level: constants.Z_BEST_SPEED },
    deflate: false,
    br: false,
    zstd: false,
    filter: () => true,
  });

  return async function compression(ctx: Context, next: Next): Promise<void> {
    if (!features.enabled('APIResponseCompression') || ctx.method !== 'GET') return next();
    const info = requestInfoOf(ctx);
    if (info?.verb === 'watch') return next();
    // Without Accept-Encoding koa-compress answers identity anyway; its per-request negotiation and body inspection
    // are skipped, and only the Vary header it would have set is kept.
    if (!ctx.req.headers['accept-encoding']) {
      // Nothing before this filter sets Vary, so the header is usually absent and set directly; ctx.vary parses
      // and merges, which costs more than the rest of this filter.
      if (ctx.res.hasHeader('vary')) ctx.vary('Accept-Encoding');
      else ctx.res.setHeader('Vary', 'Accept-Encoding');
      return next();
    }
    compressing.add(ctx);
    return gzip(ctx, next);
  };
}
