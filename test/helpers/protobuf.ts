// Protobuf pieces of integration tests: the headers client-go sends, and Status assertions on protobuf answers.
import https from 'node:https';
import { expect } from 'chai';
import { decodeProtobufObject, decodeProtobufWatchFrames } from '../../api/proto/object-codec.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** What client-go's typed clients send for a write: a protobuf body, protobuf preferred back, JSON accepted. */
export const PROTOBUF_HEADERS = { 'content-type': PROTOBUF_MEDIA_TYPE, accept: `${PROTOBUF_MEDIA_TYPE},application/json` };

/** Asserts a failure Status answered in protobuf with this code and reason, and returns it. */
export function expectProtobufFailure(res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string }, code: number, reason: string): any {
  expect(res.status, res.body).to.equal(code);
  expect(String(res.headers['content-type'])).to.equal(PROTOBUF_MEDIA_TYPE);
  const status = decodeProtobufObject(res.raw);
  expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

export interface ProtobufWatch {
  status: number;
  headers: Record<string, unknown>;
  /** The next decoded event; rejects when none arrives within timeoutMs or the stream ended. */
  next(timeoutMs?: number): Promise<{ type: string; object: any }>;
  close(): void;
}

/** Opens a watch with client-go's protobuf Accept header and decodes its length-prefixed frames as they arrive. */
export function openProtobufWatch(baseUrl: string, urlPath: string, opts: { ca: string; token: string }): Promise<ProtobufWatch> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${opts.token}`, accept: PROTOBUF_HEADERS.accept };
    const req = https.request(new URL(urlPath, baseUrl), { method: 'GET', ca: opts.ca, headers }, (res) => {
      const queue: { type: string; object: any }[] = [];
      let waiter: (() => void) | undefined;
      let pending: Buffer = Buffer.alloc(0);
      let done = false;
      res.on('data', (chunk: Buffer) => {
        const { events, rest } = decodeProtobufWatchFrames(Buffer.concat([pending, chunk]));
        pending = rest;
        queue.push(...events);
        waiter?.();
      });
      res.on('close', () => {
        done = true;
        waiter?.();
      });
      const next = async (timeoutMs = 5000): Promise<{ type: string; object: any }> => {
        const deadline = Date.now() + timeoutMs;
        while (queue.length === 0) {
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
