// CBOR pieces of integration tests. Answers are read with cborg directly (a plain RFC 8949 decoder that knows only
// the self-described tag), not with the gateway's own decoder, so the tests check the bytes on the wire.
import { expect } from 'chai';
import { decode, decodeFirst, encode } from 'cborg';
import { openBinaryWatch, type BinaryWatch, type WatchEvent } from './binary-watch.js';

export const CBOR = 'application/cbor';
export const CBOR_HEADERS = { 'content-type': CBOR, accept: CBOR };
const SELF_DESCRIBED = Buffer.from([0xd9, 0xd9, 0xf7]);
const TAGS = { 55799: (inner: () => unknown) => inner() };

/** A CBOR body as a client writes it; `tagged` prefixes the self-described tag as client-go does. */
export function cborBody(value: unknown, tagged = true): Buffer {
  const item = Buffer.from(encode(value));
  return tagged ? Buffer.concat([SELF_DESCRIBED, item]) : item;
}

/** Asserts a CBOR answer with this status: Content-Type, the self-described tag first, one data item. */
export function readCbor(
  res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string },
  status: number,
  contentType = CBOR,
): any {
  expect(res.status, res.raw.subarray(0, 1).toString() === '{' ? res.body : res.raw.toString('hex')).to.equal(status);
  expect(String(res.headers['content-type'])).to.equal(contentType);
  expect(res.raw.subarray(0, 3)).to.deep.equal(SELF_DESCRIBED);
  return decode(res.raw, { tags: TAGS });
}

/** Asserts a failure Status answered in CBOR with this code and reason, and returns it. */
export function expectCborFailure(
  res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string },
  code: number,
  reason: string,
): any {
  const status = readCbor(res, code);
  expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

export type CborWatch = BinaryWatch;

/**
 * Opens a watch accepting only CBOR and splits the `application/cbor-seq` stream into its data items as they
 * arrive: each event must be one whole self-described item; a partial one waits for more bytes.
 */
export function openCborWatch(
  baseUrl: string,
  urlPath: string,
  opts: { ca: string; token: string },
): Promise<CborWatch> {
  return openBinaryWatch(baseUrl, urlPath, { ...opts, accept: CBOR, split: splitCborSequence });
}

function splitCborSequence(pending: Buffer): { events: WatchEvent[]; rest: Buffer } {
  const events: WatchEvent[] = [];
  let rest = pending;
  while (rest.length > 0) {
    if (rest.length >= 3 && !rest.subarray(0, 3).equals(SELF_DESCRIBED)) {
      throw new Error(`event without the self-described tag: ${rest.subarray(0, 16).toString('hex')}`);
    }
    let item: unknown;
    let after: Uint8Array;
    try {
      [item, after] = decodeFirst(rest, { tags: TAGS });
    } catch {
      break; // an incomplete item: wait for the rest
    }
    events.push(item as WatchEvent);
    rest = Buffer.from(after);
  }
  return { events, rest };
}
