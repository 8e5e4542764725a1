// The protobuf codec's mapping rules on bytes written the way Go writes them (every non-pointer scalar, even zero;
// empty messages for zero times), the envelope's error cases (always a 400 Status, never a crash), and watch frames.
import { expect } from 'chai';
import protobuf from 'protobufjs';
import { isStatusError } from '../../api/meta/errors.js';
import {
  decodeProtobufObject,
  decodeProtobufWatchFrames,
  encodeProtobufObject,
  encodeProtobufWatchFrame,
} from '../../api/proto/object-codec.js';

const PREFIX = Buffer.from('k8s\0', 'latin1');

/** A length-delimited field (wire type 2). */
function ld(w: protobuf.Writer, field: number, bytes: Uint8Array): protobuf.Writer {
  return w.uint32((field << 3) | 2).bytes(bytes);
}
function str(w: protobuf.Writer, field: number, s: string): protobuf.Writer {
  return w.uint32((field << 3) | 2).string(s);
}

function envelope(apiVersion: string, kind: string, raw: Uint8Array, extra?: (w: protobuf.Writer) => void): Buffer {
  const typeMeta = protobuf.Writer.create();
  if (apiVersion) str(typeMeta, 1, apiVersion);
  if (kind) str(typeMeta, 2, kind);
  const w = protobuf.Writer.create();
  ld(w, 1, typeMeta.finish());
  ld(w, 2, raw);
  extra?.(w);
  return Buffer.concat([PREFIX, w.finish()]);
}

function statusCode(fn: () => unknown): number {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return e.code;
    throw e;
  }
  expect.fail('expected a StatusError');
}

describe('protobuf codec', () => {
  it('reads Go-written zero values as absent, an empty time as null, and keeps zero pointers', () => {
    const metaW = protobuf.Writer.create();
    str(metaW, 1, 'x');
    str(metaW, 2, '');
    str(metaW, 3, 'ns');
    str(metaW, 5, '');
    metaW.uint32(7 << 3).int64(0);
    ld(metaW, 8, new Uint8Array());
    const cm = protobuf.Writer.create();
    ld(cm, 1, metaW.finish());
    // data entry "a" → "" (map entries keep empty values), immutable=false (a pointer: kept).
    const entry = protobuf.Writer.create();
    str(entry, 1, 'a');
    str(entry, 2, '');
    ld(cm, 2, entry.finish());
    cm.uint32(4 << 3).bool(false);
    const obj = decodeProtobufObject(envelope('v1', 'ConfigMap', cm.finish()));
    expect(obj).to.deep.equal({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'ns', creationTimestamp: null },
      immutable: false,
      data: { a: '' },
    });
  });

  it('maps quantities, bytes and times with offsets and fractions as the Go JSON form does', () => {
    const rq = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { cpu: '1500m', pods: 10 } },
    };
    expect(decodeProtobufObject(encodeProtobufObject(rq))).to.deep.equal({
      ...rq,
      spec: { hard: { cpu: '1500m', pods: '10' } },
    });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { k: Buffer.from('value').toString('base64') },
    };
    const bytes = encodeProtobufObject(secret);
    // The secret's bytes are on the wire as themselves, not as base64 text.
    expect(bytes.includes(Buffer.from('value'))).to.equal(true);
    expect(decodeProtobufObject(bytes)).to.deep.equal(secret);
    const fractional = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'n', creationTimestamp: '2024-01-02T03:04:05.678+02:00' },
    };
    expect((decodeProtobufObject(encodeProtobufObject(fractional)) as any).metadata.creationTimestamp).to.equal(
      '2024-01-02T01:04:05Z',
    );
  });

  it('uses the expected kind when the envelope names none', () => {
    const meta = protobuf.Writer.create();
    str(meta, 1, 'from-path');
    const raw = ld(protobuf.Writer.create(), 1, meta.finish()).finish();
    const obj = decodeProtobufObject(envelope('', '', raw), { group: '', version: 'v1', kind: 'ServiceAccount' });
    expect(obj).to.deep.equal({ metadata: { name: 'from-path' } });
    expect(statusCode(() => decodeProtobufObject(envelope('', '', raw)))).to.equal(400);
  });

  it('answers 400 for every malformed body, never a crash', () => {
    const good = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x' },
      data: { a: 'b' },
    });
    const bad: Buffer[] = [
      Buffer.alloc(0),
      Buffer.from('{"kind":"ConfigMap"}'),
      Buffer.from('k8s'),
      Buffer.concat([PREFIX, Buffer.from([0x0a, 0x7f])]),
      Buffer.concat([PREFIX, Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])]),
      Buffer.concat([PREFIX, Buffer.from([0x0f])]),
      good.subarray(0, good.length - 3),
      envelope('v1', 'Pod', new Uint8Array()),
      envelope('example.com/v1', 'ConfigMap', new Uint8Array()),
      envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0x05, 0x0a, 0x01])),
      envelope('v1', 'ConfigMap', new Uint8Array(), (w) => str(w, 3, 'gzip')),
      envelope('v1', 'ConfigMap', new Uint8Array(), (w) => str(w, 4, 'application/json')),
    ];
    // A managedFields entry whose FieldsV1 is not JSON.
    const fields = ld(protobuf.Writer.create(), 1, Buffer.from('{not json')).finish();
    const entry = ld(protobuf.Writer.create(), 7, fields).finish();
    const metaW = ld(protobuf.Writer.create(), 17, entry).finish();
    bad.push(envelope('v1', 'ConfigMap', ld(protobuf.Writer.create(), 1, metaW).finish()));
    for (const body of bad)
      expect(
        statusCode(() => decodeProtobufObject(body)),
        body.toString('hex'),
      ).to.equal(400);
  });

  it('never throws anything but a 400 for a corrupted body, byte by byte', () => {
    const good = encodeProtobufObject({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'x',
        labels: { a: 'b' },
        creationTimestamp: '2024-01-01T00:00:00Z',
        managedFields: [{ manager: 'm', fieldsV1: { 'f:spec': {} } }],
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: 'b' } },
        template: { spec: { containers: [{ name: 'a', image: 'b', resources: { limits: { cpu: '1' } } }] } },
      },
    });
    let refused = 0;
    for (let at = 4; at < good.length; at++) {
      for (const value of [0x00, 0x07, 0x0b, 0x7f, 0xff]) {
        const body = Buffer.from(good);
        body[at] = value;
        try {
          decodeProtobufObject(body);
        } catch (e) {
          expect(isStatusError(e) && e.code, `byte ${at} = ${value}: ${String(e)}`).to.equal(400);
          refused++;
        }
      }
    }
    expect(refused).to.be.greaterThan(0);
    // Deeply nested groups (wire type 3) exhaust the decoder's recursion: still a 400.
    const deep = Buffer.concat([
      good.subarray(0, 4),
      Buffer.from([0x12, 0xa0, 0x8d, 0x06]),
      Buffer.alloc(100_000, 0x0b),
    ]);
    expect(statusCode(() => decodeProtobufObject(deep))).to.equal(400);
  });

  it('frames watch events as upstream: length prefix, bare WatchEvent, enveloped object', () => {
    const object = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', resourceVersion: '5' },
      data: { a: 'b' },
    };
    const frame = encodeProtobufWatchFrame({ type: 'ADDED', object });
    expect(frame.readUInt32BE(0)).to.equal(frame.length - 4);
    // The WatchEvent itself has no envelope: field 1 (type) comes first.
    expect(frame[4]).to.equal(0x0a);
    expect(frame.includes(PREFIX)).to.equal(true);
    const status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'gone',
      reason: 'Expired',
      code: 410,
    };
    const stream = Buffer.concat([frame, encodeProtobufWatchFrame({ type: 'ERROR', object: status })]);
    const { events, rest } = decodeProtobufWatchFrames(Buffer.concat([stream, stream.subarray(0, 6)]));
    expect(events).to.deep.equal([
      { type: 'ADDED', object },
      { type: 'ERROR', object: status },
    ]);
    expect(rest.length).to.equal(6);
  });

  it('refuses to encode objects without a protobuf form with a 500', () => {
    expect(statusCode(() => encodeProtobufObject({ apiVersion: 'example.com/v1', kind: 'Thing' }))).to.equal(500);
    expect(
      statusCode(() => encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 7 } })),
    ).to.equal(500);
  });
});
