// Turns every failure into a Status body. Known failures (StatusError) keep their code and message; anything else
// is logged here and answered as a 500 that withholds its details.
import type { Context, Next } from 'koa';
import { errors, isStatusError, type StatusError } from '../../api/meta/errors.js';
import type { Serializer } from '../negotiation/serializer.js';
import { isPrettyPrint, negotiateResponse } from '../negotiation/negotiate.js';
import { requestQuery } from '../request/request-info.js';
import { clientGoneSignal, isClientEnding } from '../server/connection.js';
import type { Logger } from '../server/logger.js';

function statusErrorOf(e: unknown, ctx: Context, logger: Logger): StatusError {
  if (isStatusError(e)) return e;
  const httpError = e as { status?: number; expose?: boolean; message?: string };
  // koa's own errors (for example a malformed URL) carry an HTTP status.
  if (typeof httpError.status === 'number' && httpError.status === 400)
    return errors.badRequest(httpError.message ?? 'bad request');
  logger.error(
    { err: e, verb: ctx.method, URI: ctx.url },
    'internal error: the request is answered 500 without details',
  );
  return errors.internal();
}

/** What an error body is, for codecs that cover only some kinds (protobuf covers Status). */
const STATUS_KIND = { apiVersion: 'v1', kind: 'Status' };

/**
 * `onClientEnding`: told of a request that failed because its client went away (a body cut off by a reset stream or
 * a closed connection): nobody is left to answer, and it is no fault of the server's.
 */
export function createStatusFilter(serializers: Serializer[], logger: Logger, onClientEnding?: (e: unknown) => void) {
  return async function statusFilter(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      if (isClientEnding(e) && clientGoneSignal(ctx.req).aborted) {
        onClientEnding?.(e);
        return;
      }
      const err = statusErrorOf(e, ctx, logger);
      if (ctx.headerSent) {
        ctx.res.destroy();
        return;
      }
      let serializer = serializers[0];
      let contentType = serializer.mediaType;
      // Errors are indented for curl and browsers too, as every answer kube-apiserver negotiates.
      let pretty = isPrettyPrint(requestQuery(ctx), ctx.get('user-agent'));
      try {
        const target = negotiateResponse(ctx.get('accept') || undefined, {
          allowTable: false,
          encodes: STATUS_KIND,
          serializers,
        });
        serializer = target.serializer;
        contentType = target.contentType;
        pretty ||= target.pretty === true;
      } catch {
        // A client that accepts nothing we speak still gets its error, in JSON.
      }
      for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
      ctx.status = err.code;
      ctx.set('Content-Type', contentType);
      ctx.body = serializer.encode(err.toStatus(), { pretty });
    }
  };
}
