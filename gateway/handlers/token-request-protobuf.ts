// A protobuf TokenRequest, as `kubectl create token` POSTs it (client-go's typed clients send protobuf and never retry
// with JSON after a 415). Until Gatehouse has a general protobuf codec this reads the few fields the server uses into
// the JSON shape the handler reads. Envelope (document 1): `k8s\0`, then Unknown {1 typeMeta {1 apiVersion, 2 kind},
// 2 raw, 3 contentEncoding, 4 contentType}. raw is authentication/v1 TokenRequest {1 metadata ObjectMeta {1 name,
// 3 namespace}, 2 spec {1 audiences (repeated), 3 boundObjectRef {1 kind, 2 apiVersion, 3 name, 4 uid},
// 4 expirationSeconds (int64)}, 3 status (ignored)}; field numbers as observed from kubectl 1.32 on the wire.
import { errors } from '../../api/meta/errors.js';
import { parseMediaType } from '../negotiation/negotiate.js';

const PROTOBUF_TYPES = new Set(['application/vnd.kubernetes.protobuf', 'application/vnd.platform.protobuf']);
const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export function isProtobufContentType(contentType: string): boolean {
  const m = contentType ? parseMediaType(contentType) : undefined;
  return m !== undefined && PROTOBUF_TYPES.has(`${m.type}/${m.subtype}`);
}

type Field = { wire: 0; value: bigint } | { wire: 2; value: Buffer };

function bad(why: string): Error {
  return errors.badRequest(`the protobuf body of the request could not be read: ${why}`);
}

/** Every field of a message, by number, in order (repeated fields keep every occurrence). */
function readFields(buf: Buffer): Map<number, Field[]> {
  const out = new Map<number, Field[]>();
  let i = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (i >= buf.length) throw bad('truncated varint');
      const b = buf[i++]!;
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return value;
    }
    throw bad('varint too long');
  };
  const push = (n: number, f: Field) => out.set(n, [...(out.get(n) ?? []), f]);
  while (i < buf.length) {
    const key = varint();
    const field = Number(key >> 3n);
    const wire = Number(key & 7n);
    if (wire === 0) {
      push(field, { wire: 0, value: varint() });
    } else if (wire === 2) {
      const len = Number(varint());
      if (i + len > buf.length) throw bad('truncated field');
      push(field, { wire: 2, value: buf.subarray(i, i + len) });
      i += len;
    } else if (wire === 1 || wire === 5) {
      i += wire === 1 ? 8 : 4;
      if (i > buf.length) throw bad('truncated field');
    } else {
      throw bad(`unsupported wire type ${wire}`);
    }
  }
  return out;
}

function bytesField(fields: Map<number, Field[]>, n: number): Buffer | undefined {
  const f = fields.get(n)?.at(-1);
  if (f === undefined) return undefined;
  if (f.wire !== 2) throw bad(`field ${n} has the wrong wire type`);
  return f.value;
}

function stringField(fields: Map<number, Field[]>, n: number): string | undefined {
  return bytesField(fields, n)?.toString('utf8');
}

/** The body as the JSON object the TokenRequest handler reads; fields left out stay absent (defaults apply). */
export function decodeProtobufTokenRequest(body: Buffer): Record<string, unknown> {
  if (body.length === 0) throw errors.badRequest('the request body is empty: an object is required');
  if (body.length < 4 || !body.subarray(0, 4).equals(PREFIX)) throw bad('it does not start with the k8s envelope prefix');
  const unknown = readFields(body.subarray(4));
  const encoding = stringField(unknown, 3);
  if (encoding) throw bad(`content encoding ${encoding} is not supported`);
  const typeMeta = readFields(bytesField(unknown, 1) ?? Buffer.alloc(0));
  const out: Record<string, unknown> = {};
  const apiVersion = stringField(typeMeta, 1);
  const kind = stringField(typeMeta, 2);
  if (apiVersion) out.apiVersion = apiVersion;
  if (kind) out.kind = kind;

  const raw = readFields(bytesField(unknown, 2) ?? Buffer.alloc(0));
  const metadata = readFields(bytesField(raw, 1) ?? Buffer.alloc(0));
  const meta: Record<string, unknown> = {};
  const name = stringField(metadata, 1);
  const namespace = stringField(metadata, 3);
  if (name) meta.name = name;
  if (namespace) meta.namespace = namespace;
  out.metadata = meta;

  const specBytes = bytesField(raw, 2);
  if (specBytes !== undefined) {
    const spec = readFields(specBytes);
    const result: Record<string, unknown> = {};
    const audiences = (spec.get(1) ?? []).map((f) => {
      if (f.wire !== 2) throw bad('field 1 has the wrong wire type');
      return f.value.toString('utf8');
    });
    if (audiences.length > 0) result.audiences = audiences;
    const expiration = spec.get(4)?.at(-1);
    if (expiration !== undefined) {
      if (expiration.wire !== 0) throw bad('field 4 has the wrong wire type');
      result.expirationSeconds = Number(BigInt.asIntN(64, expiration.value));
    }
    const refBytes = bytesField(spec, 3);
    if (refBytes !== undefined) {
      const ref = readFields(refBytes);
      result.boundObjectRef = {
        kind: stringField(ref, 1) ?? '', apiVersion: stringField(ref, 2) ?? '',
        name: stringField(ref, 3) ?? '', uid: stringField(ref, 4) ?? '',
      };
    }
    out.spec = result;
  }
  return out;
}
