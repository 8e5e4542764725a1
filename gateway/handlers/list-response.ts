// Lists of many items, in every encoding, go out as many short steps rather than one long one: encoding a 50,000-item
// list in one call held the event loop for seconds (every other client waited, /readyz too), and ten at once held
// their whole encodings in memory together. Chunked encodings (JSON, YAML, Tables in either) are produced lazily; the
// larger lists are streamed as the connection drains, so memory stays at a chunk. Protobuf, whose envelope needs the
// whole length first, is encoded in batches between which other requests run. Small lists keep the one-step path.
import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { KList } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { joinedChunks } from '../../backends/byte-chunks.js';
import { mayCompress } from '../filters/compression.js';
import type { ListValue } from '../negotiation/serializer.js';
import { elementsField } from '../negotiation/list-chunks.js';
import { sharedEncoding } from '../negotiation/shared-encodings.js';
import { type HandlerDeps, prepareAnswer, writeEncoded, writePieces } from './request-scope.js';

/** Lists with more items than this are encoded in chunks rather than in one step. */
const LIST_CHUNK_MIN_ITEMS = 100;
/** Lists with more items than this (two default pages) are streamed; smaller ones keep a Content-Length. */
const LIST_STREAM_MIN_ITEMS = 1000;
/** Pieces of a streamed list are joined up to this size: one write per piece would cost a TLS record each. */
const STREAM_CHUNK_BYTES = 64 * 1024;

export async function writeListResponse(
  ctx: Context,
  deps: HandlerDeps,
  list: KList,
  def: KindDefinition,
): Promise<void> {
  const prepared = prepareAnswer(ctx, deps, 200, list, def);
  const { value, body, target, pretty } = prepared;
  const field = typeof body === 'object' && body !== null ? elementsField(body as Record<string, unknown>) : undefined;
  const count = field === undefined ? 0 : (body as Record<string, unknown[]>)[field].length;
  if (count <= LIST_CHUNK_MIN_ITEMS) return writeEncoded(ctx, prepared);
  const serializer = target.serializer;
  const stream = count > LIST_STREAM_MIN_ITEMS;
  let pieces: Iterable<Buffer> | undefined;
  if (body === value && serializer.encodeListInBatches) {
    pieces = await serializer.encodeListInBatches(value as ListValue);
  } else {
    const ready = body === value && !pretty ? (item: unknown) => sharedEncoding(serializer, item) : undefined;
    pieces = serializer.encodeList?.(body as ListValue, ready, { pretty });
  }
  if (!pieces) return writeEncoded(ctx, prepared);
  if (stream) ctx.body = Readable.from(joinedChunks(pieces, STREAM_CHUNK_BYTES), { objectMode: false });
  else if (ctx.method === 'GET' && !mayCompress(ctx)) writePieces(ctx, [...pieces]);
  // koa-compress reads ctx.body: the page is joined for it.
  else ctx.body = Buffer.concat([...pieces]);
}
