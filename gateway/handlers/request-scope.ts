// What every resource handler shares: the resolved resource, body reading with the size limit, decoding by
// Content-Type, the write settings of the query, and encoding the answer for the negotiated media type.
import type { Context } from 'koa';
import { errors, type StatusError } from '../../api/meta/errors.js';
import { fieldErrors, type FieldError } from '../../api/meta/field-errors.js';
import { isObject, type KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { UserInfo } from '../../api/meta/user.js';
import type { FieldValidation, RequestAttributes, WriteContext } from '../registry/admission-types.js';
import { addWarnings as addWarningHeaders } from './warning-headers.js';
import type { ResourceStore } from '../registry/store.js';
import type { DecodeResult, ResponseTarget, Serializer } from '../negotiation/serializer.js';
import { isPrettyPrint, negotiateRequest, negotiateResponse } from '../negotiation/negotiate.js';
import { parseIncludeObject, toTable } from '../negotiation/table.js';
import { requestInfoOf, requestQuery, type RequestInfo } from '../request/request-info.js';
import { inRequestedGroup } from '../request/group-alias.js';
import { encodeShared, isShareable } from '../negotiation/shared-encodings.js';
import { mayCompress } from '../filters/compression.js';
import { closeAfterAnswer } from '../server/connection.js';
import type { Logger } from '../server/logger.js';
import type { Clock } from '../server/clock.js';
import type { WatchMetrics } from '../metrics/watch-metrics.js';
import { auditOf } from '../audit/request-audit.js';

export interface HandlerDeps {
  serializers: Serializer[];
  maxRequestBodyBytes: number;
  shutdownSignal: AbortSignal;
  /** Watches without timeoutSeconds (or with 0) end after a random time in [this, 2x this), spreading reconnects; 0: never. */
  minRequestTimeoutSeconds?: number;
  /** Times watches out (default: the real clock). */
  clock?: Clock;
  /** A body still arriving this long after reading began answers 504 and its stream is closed; 0 or absent: no limit. */
  readBodyTimeoutMs?: number;
  /** Failures no client is told the details of (a watch that broke after its headers were sent). */
  logger: Logger;
  /** Counts and sizes the events each watch sends (absent: not recorded). */
  watchMetrics?: WatchMetrics;
}

export interface ResourceRequest {
  info: RequestInfo;
  store: ResourceStore;
  query: URLSearchParams;
}

/**
 * The body as one Buffer, 413 past `limit`. Plain stream events rather than `for await`: the async iterator costs
 * more per request than the usual one-chunk body. As the iterator did, an overflow destroys the request and a
 * connection closed before the end rejects with ERR_STREAM_PREMATURE_CLOSE.
 *
 * A body still arriving `timeoutMs` after reading began is a 504 Timeout, the answer kube-apiserver gives a request
 * whose body outlasts its request timeout; the rest of the body is not waited for: the stream (HTTP/2) or the
 * connection (HTTP/1.1) closes once the answer is out, so a client trickling a body holds neither memory nor a place
 * among the requests in flight.
 */
export function readBody(ctx: Context, limit: number, timeoutMs = 0): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limit) return Promise.reject(errors.requestEntityTooLarge(limit));
  const req = ctx.req;
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let timer: NodeJS.Timeout | undefined;
    const cleanup = (): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      total += chunk.length;
      if (total > limit) {
        cleanup();
        req.destroy();
        reject(errors.requestEntityTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total));
    };
    const onError = (e: Error): void => {
      cleanup();
      reject(e);
    };
    const onClose = (): void => {
      cleanup();
      reject(prematureClose());
    };
    if (req.readableEnded) {
      resolve(Buffer.alloc(0));
      return;
    }
    if (req.destroyed) {
      reject(req.errored ?? prematureClose());
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        cleanup();
        closeAfterAnswer(ctx.req, ctx.res);
        reject(
          errors.timeout(
            `Timeout: request did not complete within requested timeout - the request body did not arrive whole within ${timeoutMs / 1000}s`,
          ),
        );
      }, timeoutMs);
    }
  });
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}

/**
 * Reads and decodes the request body by its Content-Type (415 for types we cannot read). `expected` is the kind the
 * endpoint reads: protobuf bodies need it when their envelope names no kind, and are a 415 for kinds without a
 * protobuf form.
 */
export async function decodeRequestBody(
  ctx: Context,
  deps: HandlerDeps,
  expected?: GroupVersionKind,
): Promise<DecodeResult> {
  const serializer = negotiateRequest(ctx.get('content-type') || undefined, deps.serializers);
  if (
    serializer.covers &&
    expected &&
    !serializer.covers(expected.group ? `${expected.group}/${expected.version}` : expected.version, expected.kind)
  ) {
    throw errors.unsupportedMediaType(
      ctx.get('content-type'),
      deps.serializers.filter((s) => !s.covers).map((s) => s.mediaType),
    );
  }
  const body = await readBody(ctx, deps.maxRequestBodyBytes, deps.readBodyTimeoutMs);
  if (body.length === 0) throw errors.badRequest('the request body is empty: an object is required');
  const decoded = serializer.decode(body, expected ? { expected } : undefined);
  auditOf(ctx)?.requestObject(decoded.value);
  return decoded;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

/** apiVersion and kind of an object about to be encoded, when it says (negotiation skips kind-limited codecs otherwise). */
function encodedKindOf(value: unknown): { apiVersion: string; kind: string } | undefined {
  if (!isObject(value) || typeof value.apiVersion !== 'string' || typeof value.kind !== 'string') return undefined;
  return { apiVersion: value.apiVersion, kind: value.kind };
}

/** The options object kube-apiserver validates the query of each write as (and names in its 422). */
export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

export function invalidOptions(kind: OptionsKind, errs: FieldError[]): StatusError {
  return errors.invalid(kind, 'meta.k8s.io', '', errs);
}

export function parseFieldValidation(q: URLSearchParams, kind: OptionsKind): FieldValidation {
  const v = q.get('fieldValidation');
  if (v === null || v === '') return 'Warn';
  // kube-apiserver accepts the values case-insensitively.
  const normalized = { ignore: 'Ignore', warn: 'Warn', strict: 'Strict' }[v.toLowerCase()] as
    FieldValidation | undefined;
  if (!normalized)
    throw invalidOptions(kind, [fieldErrors.notSupported('fieldValidation', v, ['Ignore', 'Strict', 'Warn'])]);
  return normalized;
}

export function parseDryRun(values: string[], kind: OptionsKind): boolean {
  const nonEmpty = values.filter((v) => v !== '');
  const bad = nonEmpty.filter((v) => v !== 'All');
  if (bad.length > 0)
    throw invalidOptions(
      kind,
      bad.map((v) => fieldErrors.notSupported('dryRun', v, ['All'])),
    );
  return nonEmpty.length > 0;
}

/**
 * A write's context. Every field is in the literal, fieldManager too (the handler sets it next, once its own query
 * checks ran): a spread adding it (`{ ...writeContext(), fieldManager }`) gave each request's context a hidden class
 * of its own, and every read of it in the registry went through V8's slow megamorphic lookup.
 */
export function writeContext(
  q: URLSearchParams,
  kind: OptionsKind,
  decoded?: DecodeResult,
  user?: UserInfo,
  ctx?: Context,
): WriteContext {
  return {
    user,
    dryRun: parseDryRun(q.getAll('dryRun'), kind),
    fieldValidation: parseFieldValidation(q, kind),
    duplicateFields: decoded?.duplicateFields ?? [],
    warnings: [],
    fieldManager: undefined,
    annotate: auditAnnotator(ctx),
    request: ctx === undefined ? undefined : requestAttributes(ctx, q),
  };
}

/**
 * What admission reports of the request (AdmissionRequest.requestKind and requestResource, options): the group the
 * path named, an alias included, and the write options as the query spelled them.
 */
export function requestAttributes(ctx: Context, q?: URLSearchParams): RequestAttributes {
  const info = requestInfoOf(ctx) as RequestInfo | undefined;
  return {
    group: info?.requestedGroup ?? info?.apiGroup ?? '',
    dryRun: q?.getAll('dryRun').filter((v) => v !== '') ?? [],
    fieldManager: q?.get('fieldManager') ?? '',
    fieldValidation: q?.get('fieldValidation') ?? '',
  };
}

/** What admission plugins annotate the request's audit event through (the policy plugin's annotations). */
export function auditAnnotator(ctx: Context | undefined): WriteContext['annotate'] {
  return ctx === undefined ? undefined : (key, value, minimum) => auditOf(ctx)?.annotate(key, value, minimum);
}

export { addWarnings } from './warning-headers.js';

/**
 * Awaits a write, then adds the warnings it collected whether it succeeded or not: as upstream's warning recorder
 * writes each warning as it comes, a refused write still carries the warnings of admission (a Warn binding beside a
 * Deny one) and of field validation.
 */
export async function withWarnings<T>(ctx: Context, wctx: WriteContext, write: Promise<T>): Promise<T> {
  try {
    return await write;
  } finally {
    addWarningHeaders(ctx, wctx.warnings);
  }
}

/** What an answer goes out as: the negotiated target, and the body to encode (a Table made of `value`, or `value`). */
export interface PreparedAnswer {
  value: unknown;
  body: unknown;
  target: ResponseTarget;
  pretty: boolean;
}

/**
 * Negotiates the answer's encoding, sets the status and Content-Type, and turns objects and lists of `def` into a
 * Table when the client asked for one.
 */
export function prepareAnswer(
  ctx: Context,
  deps: HandlerDeps,
  status: number,
  answer: unknown,
  def?: KindDefinition,
): PreparedAnswer {
  const q = requestQuery(ctx);
  // At an alias group (gateway/request/group-alias.ts) the answer carries the group asked in.
  const value = def ? inRequestedGroup(ctx.state.requestInfo as RequestInfo | undefined, def, answer) : answer;
  const isStatusBody = isObject(value) && value.kind === 'Status';
  const target = negotiateResponse(ctx.get('accept') || undefined, {
    allowTable: Boolean(def) && !isStatusBody,
    encodes: encodedKindOf(value),
    serializers: deps.serializers,
  });
  let body = value;
  if (target.as === 'Table' && def) {
    const include = parseIncludeObject(q.get('includeObject'));
    body = isList(value)
      ? toTable(def, value.items, {
          apiVersion: target.tableApiVersion ?? 'meta.k8s.io/v1',
          include,
          listMeta: value.metadata,
        })
      : toTable(def, [value as KObject], { apiVersion: target.tableApiVersion ?? 'meta.k8s.io/v1', include });
  }
  ctx.status = status;
  ctx.set('Content-Type', target.contentType);
  auditOf(ctx)?.responseObject(value);
  return { value, body, target, pretty: target.pretty === true || isPrettyPrint(q, ctx.get('user-agent')) };
}

function isList(value: unknown): value is { items: KObject[]; metadata: Record<string, unknown> } {
  return isObject(value) && Array.isArray(value.items);
}

/** Encodes an object, a list or a Status for the negotiated media type (lists of many items: list-response.ts). */
export function writeResponse(
  ctx: Context,
  deps: HandlerDeps,
  status: number,
  answer: unknown,
  def?: KindDefinition,
): void {
  writeEncoded(ctx, prepareAnswer(ctx, deps, status, answer, def));
}

/** The prepared answer encoded in one step, for answers small enough that this is short. */
export function writeEncoded(ctx: Context, { value, body, target, pretty }: PreparedAnswer): void {
  // Written objects are cached too: the lists and reads that follow a write find their bytes ready.
  const bytes =
    !pretty && body === value && isShareable(value)
      ? encodeShared(target.serializer, value)
      : target.serializer.encode(body, { pretty });
  if (mayCompress(ctx)) ctx.body = bytes;
  else writeWhole(ctx, bytes);
}

/**
 * Answers a page whole (Content-Length) from its pieces, the items' kept encodings among them, written under one
 * cork so that they leave as one write, without first joining them into a fresh buffer. A 1 MiB page buffer per
 * request was garbage the heap let pile up to its external-memory limit (paging through 10,000 objects grew the
 * resident memory by 26-38 MiB, against 4-6 MiB this way), and the copy cost more than the gathered write does.
 * Streaming the pieces instead cost a TLS record each. Koa is told to stay out.
 */
export function writePieces(ctx: Context, pieces: Buffer[]): void {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  ctx.length = length;
  ctx.respond = false;
  const res = ctx.res;
  // A client gone already: nothing to write, only the end, as Koa's own respond does.
  if (!ctx.writable) {
    res.end();
    return;
  }
  res.cork();
  for (const piece of pieces) res.write(piece);
  res.uncork();
  res.end();
}

/**
 * Answers with `body` whole, past Koa's body and length setters and its respond step (the response is Koa's
 * except for the last call). koa-compress, which reads ctx.body, is the one filter after which this must not run.
 */
function writeWhole(ctx: Context, body: Buffer): void {
  ctx.respond = false;
  const res = ctx.res;
  if (!res.headersSent) res.setHeader('Content-Length', body.length);
  // As Koa's own respond: HEAD, and a response that can take nothing more (its client gone; an HTTP/2 HEAD stream,
  // whose socket reads as not writable), are ended without the body. Never left open: an HTTP/2 stream would hang.
  if (ctx.method === 'HEAD' || !ctx.writable) res.end();
  else res.end(body);
}

export function successStatus(def: KindDefinition, name: string, uid?: string): Record<string, unknown> {
  const details: Record<string, unknown> = { name, kind: def.resource };
  if (def.group) details.group = def.group;
  if (uid) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}
