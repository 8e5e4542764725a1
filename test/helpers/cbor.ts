// CBOR pieces of integration tests. Answers are read with cborg directly (a plain RFC 8949 decoder that knows only
// the self-described tag), not with the gateway's own decoder, so the tests check the bytes on the wire.
import https from 'node:https';
import { expect } from 'chai';
import { decode, decodeFirst, encode } from 'cborg';

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
export function readCbor(res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string }, status: number, contentType = CBOR): any {
  expect(res.status, res.raw.subarray(0, 1).toString() === '{' ? res.body : res.raw.toString('hex')).to.equal(status);
  expect(String(res.headers['content-type'])).to.equal(contentType);
  expect(res.raw.subarray(0, 3)).to.deep.equal(SELF_DESCRIBED);
  return decode(res.raw, { tags: TAGS });
}

/** Asserts a failure Status answered in CBOR with this code and reason, and returns it. */
export function expectCborFailure(res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string }, code: number, reason: string): any {
  const status = readCbor(res, code);
  expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

export interface CborWatch {
  status: number;
  headers: Record<string, unknown>;
  /** The next event; rejects when none arrives within timeoutMs or the stream ended. */
  next(timeoutMs?: number): Promise<{ type: string; object: any }>;
  close(): void;
}

/**
 * Opens a watch accepting only CBOR and splits the `application/cbor-seq` stream into its data items as they
 * arrive: each event must be one whole self-described item; a partial one waits for more bytes.
 */
export function openCborWatch(baseUrl: string, urlPath: string, opts: { ca: string; token: string }): Promise<CborWatch> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${opts.token}`, accept: CBOR };
    const req = https.request(new URL(urlPath, baseUrl), { method: 'GET', ca: opts.ca, headers }, (res) => {
      const queue: { type: string; object: any }[] = [];
      let waiter: (() => void) | undefined;
      let pending = Buffer.alloc(0);
      let done = false;
      let failure: Error | undefined;
      res.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length > 0) {
          if (pending.length >= 3 && !pending.subarray(0, 3).equals(SELF_DESCRIBED)) {
            failure = new Error(`event without the self-described tag: ${pending.subarray(0, 16).toString('hex')}`);
            break;
          }
          let item: unknown;
          let rest: Uint8Array;
          try {
            [item, rest] = decodeFirst(pending, { tags: TAGS });
          } catch {
            break; // an incomplete item: wait for the rest
          }
          queue.push(item as { type: string; object: any });
          pending = Buffer.from(rest);
        }
        waiter?.();
      });
      res.on('close', () => {
        done = true;
        waiter?.();
      });
      const next = async (timeoutMs = 5000): Promise<{ type: string; object: any }> => {
        const deadline = Date.now() + timeoutMs;
        while (queue.length === 0) {
          if (failure) throw failure;
          if (done) throw new Error('watch stream ended');
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
          await new Promise<void>((r) => {
            const timer = setTimeout(r, left);
            waiter = () => { clearTimeout(timer); r(); };
          });
          waiter = undefined;
        }
        return queue.shift()!;
      };
      resolve({ status: res.statusCode ?? 0, headers: res.headers, next, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
