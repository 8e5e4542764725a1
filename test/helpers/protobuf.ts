// Protobuf pieces of integration tests: the headers client-go sends, and Status assertions on protobuf answers.
import { expect } from 'chai';
import { decodeProtobufObject, decodeProtobufWatchFrames } from '../../api/proto/object-codec.js';
import { openBinaryWatch, type BinaryWatch } from './binary-watch.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** What client-go's typed clients send for a write: a protobuf body, protobuf preferred back, JSON accepted. */
export const PROTOBUF_HEADERS = {
  'content-type': PROTOBUF_MEDIA_TYPE,
  accept: `${PROTOBUF_MEDIA_TYPE},application/json`,
};

/** Asserts a failure Status answered in protobuf with this code and reason, and returns it. */
export function expectProtobufFailure(
  res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string },
  code: number,
  reason: string,
): any {
  expect(res.status, res.body).to.equal(code);
  expect(String(res.headers['content-type'])).to.equal(PROTOBUF_MEDIA_TYPE);
  const status = decodeProtobufObject(res.raw);
  expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason });
  return status;
}

export type ProtobufWatch = BinaryWatch;

/** Opens a watch with client-go's protobuf Accept header and decodes its length-prefixed frames as they arrive. */
export function openProtobufWatch(
  baseUrl: string,
  urlPath: string,
  opts: { ca: string; token: string },
): Promise<ProtobufWatch> {
  return openBinaryWatch(baseUrl, urlPath, {
    ...opts,
    accept: PROTOBUF_HEADERS.accept,
    split: (pending) => decodeProtobufWatchFrames(pending),
  });
}
