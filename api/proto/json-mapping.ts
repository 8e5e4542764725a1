// JSON-shaped objects ⇄ protobufjs message objects, driven by the compiled schema. The JSON side is what the rest of
// Gatehouse works with (what the JSON codec produces); the message side is what protobufjs encodes and decodes.
//
// Rules, as Go's protobuf and JSON encodings of the same struct relate:
// - Scalars: present on the wire means set; a zero value is dropped unless the field is marked (keep_zero) (Go
//   pointer fields and fields without omitempty). int64 is a JSON number, bytes a base64 string.
// - Repeated and map fields: empty means absent (Go's nil and empty slices and maps look the same on the wire).
// - Messages: present means set, even when empty (`spec: {}`); (inline) merges the fields into the parent.
// - Value types with their own JSON form: Time/MicroTime ⇄ RFC 3339 strings (an empty message is the zero time,
//   JSON null), Quantity ⇄ string, IntOrString ⇄ number or string, FieldsV1 and RawExtension ⇄ the JSON they hold,
//   ExtraValue ⇄ array of strings.
import protobuf from 'protobufjs';
import { UNION_TYPES, UnionError, unionToJson, unionToWire } from './json-unions.js';

export type Message = Record<string, unknown>;

/** A value that cannot be mapped; `path` names the field as field errors print it (`spec.template.spec`). */
export class MappingError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path || '<root>'}: ${problem}`);
  }
}

/** Decodes the enveloped protobuf object nested in a RawExtension (a protobuf watch event's object). */
export type NestedDecoder = (raw: Uint8Array, path: string) => unknown;

const META = '.gatehouse.meta.';
const SPECIAL = new Set(
  ['Time', 'MicroTime', 'Quantity', 'IntOrString', 'FieldsV1', 'RawExtension', 'ExtraValue'].map((n) => META + n),
);

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);
const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

function fieldOption(field: protobuf.Field, name: string): boolean {
  return field.options?.[`(${name})`] === true;
}

/** The JSON key of a field: its name, or its (json) option for keys that are no identifiers (`$ref`, `x-...`). */
function jsonKey(field: protobuf.Field): string {
  const key: unknown = field.options?.['(json)'];
  return typeof key === 'string' ? key : field.name;
}

function withUnionErrors<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof UnionError) {
      const colon = e.message.indexOf(': ');
      throw new MappingError(e.message.slice(0, colon), e.message.slice(colon + 2));
    }
    throw e;
  }
}

// ---- JSON → message ----------------------------------------------------------------------------------------------

/** The message object for `json` (a JSON object) of `type`; keys the schema does not know are left out. */
export function jsonToMessage(type: protobuf.Type, json: Record<string, unknown>, path = ''): Message {
  const out: Message = {};
  for (const field of type.fieldsArray) {
    if (fieldOption(field, 'inline')) {
      out[field.name] = jsonToMessage(field.resolvedType as protobuf.Type, json, path);
      continue;
    }
    const value = json[jsonKey(field)];
    const at = join(path, jsonKey(field));
    if (value === undefined) continue;
    if (field.map) {
      if (value === null) continue;
      if (!isPlainObject(value)) throw new MappingError(at, 'must be an object');
      const entries: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === null || v === undefined) continue;
        entries[k] = valueToWire(field, v, join(at, k));
      }
      out[field.name] = entries;
    } else if (field.repeated) {
      if (value === null) continue;
      if (!Array.isArray(value)) throw new MappingError(at, 'must be an array');
      // A JSON item may be null itself (an enum admitting null); other nulls mean nothing.
      const keepsNull = field.resolvedType?.fullName === '.gatehouse.apiextensions.JSON';
      out[field.name] = value
        .filter((v) => v !== undefined && (v !== null || keepsNull))
        .map((v, i) => valueToWire(field, v, `${at}[${i}]`));
    } else if (value === null) {
      // Only the zero time has a wire form for null (an empty message); other nulls mean unset.
      const name = field.resolvedType?.fullName;
      if (name === `${META}Time` || name === `${META}MicroTime`) out[field.name] = {};
    } else {
      out[field.name] = valueToWire(field, value, at);
    }
  }
  return out;
}

function valueToWire(field: protobuf.Field, value: unknown, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    if (SPECIAL.has(resolved.fullName)) return specialToWire(resolved.fullName, value, path);
    if (UNION_TYPES.has(resolved.fullName))
      return withUnionErrors(() => unionToWire(resolved, value, path, (t, j, at) => jsonToMessage(t, j, at)));
    if (!isPlainObject(value)) throw new MappingError(path, 'must be an object');
    return jsonToMessage(resolved, value, path);
  }
  return scalarToWire(field.type, value, path);
}

function scalarToWire(type: string, value: unknown, path: string): unknown {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw new MappingError(path, 'must be a string');
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new MappingError(path, 'must be a boolean');
      return value;
    case 'double':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new MappingError(path, 'must be a number');
      return value;
    case 'int32':
    case 'int64':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new MappingError(path, 'must be an integer');
      if (type === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31))
        throw new MappingError(path, 'must fit in 32 bits');
      return value;
    case 'bytes':
      if (typeof value !== 'string') throw new MappingError(path, 'must be a base64 string');
      return Buffer.from(value, 'base64');
    default:
      throw new MappingError(path, `unsupported protobuf type ${type}`);
  }
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

function timeToWire(value: unknown, path: string): Message {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3].toUpperCase()}`) : NaN;
  if (!m || Number.isNaN(ms)) throw new MappingError(path, `must be an RFC 3339 time, got ${JSON.stringify(value)}`);
  const nanos = m[2] ? Number(m[2].padEnd(9, '0')) : 0;
  return nanos ? { seconds: ms / 1000, nanos } : { seconds: ms / 1000 };
}

function specialToWire(name: string, value: unknown, path: string): unknown {
  switch (name.slice(META.length)) {
    case 'Time':
    case 'MicroTime':
      return timeToWire(value, path);
    case 'Quantity':
      if (typeof value !== 'string' && typeof value !== 'number')
        throw new MappingError(path, 'must be a quantity string');
      return { string: String(value) };
    case 'IntOrString':
      if (typeof value === 'number' && Number.isInteger(value)) return { type: 0, intVal: value };
      if (typeof value === 'string') return { type: 1, strVal: value };
      throw new MappingError(path, 'must be an integer or a string');
    case 'FieldsV1':
    case 'RawExtension': {
      const raw = Buffer.from(JSON.stringify(value));
      return name.endsWith('FieldsV1') ? { Raw: raw } : { raw };
    }
    case 'ExtraValue':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
        throw new MappingError(path, 'must be an array of strings');
      return { items: value };
    default:
      throw new MappingError(path, `unsupported value type ${name}`);
  }
}

// ---- message → JSON ----------------------------------------------------------------------------------------------

/** The JSON object of a decoded message of `type`. */
export function messageToJson(
  type: protobuf.Type,
  msg: Message,
  path = '',
  nested?: NestedDecoder,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const key = jsonKey(field);
    const at = join(path, key);
    if (fieldOption(field, 'inline')) {
      if (hasOwn(msg, field.name))
        Object.assign(
          out,
          messageToJson(field.resolvedType as protobuf.Type, msg[field.name] as Message, path, nested),
        );
      continue;
    }
    if (!hasOwn(msg, field.name)) continue;
    const value = msg[field.name];
    if (value === null || value === undefined) continue;
    if (field.map) {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length === 0) continue;
      out[key] = Object.fromEntries(entries.map(([k, v]) => [k, valueToJson(field, v, join(at, k), nested)]));
    } else if (field.repeated) {
      const items = value as unknown[];
      if (items.length === 0) continue;
      out[key] = items.map((v, i) => valueToJson(field, v, `${at}[${i}]`, nested));
    } else if (field.resolvedType instanceof protobuf.Type) {
      const json = valueToJson(field, value, at, nested);
      if (json !== undefined) out[key] = json;
    } else {
      const json = scalarToJson(field.type, value);
      if (isZero(json) && !fieldOption(field, 'keep_zero')) continue;
      out[key] = json;
    }
  }
  return out;
}

function isZero(v: unknown): boolean {
  return v === '' || v === 0 || v === false;
}

function valueToJson(field: protobuf.Field, value: unknown, path: string, nested?: NestedDecoder): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) {
    if (SPECIAL.has(resolved.fullName)) return specialToJson(resolved.fullName, value as Message, path, nested);
    if (UNION_TYPES.has(resolved.fullName))
      return withUnionErrors(() =>
        unionToJson(resolved, value as Message, path, (t, m, at) => messageToJson(t, m, at, nested)),
      );
    return messageToJson(resolved, value as Message, path, nested);
  }
  return scalarToJson(field.type, value);
}

function scalarToJson(type: string, value: unknown): unknown {
  if (type === 'bytes') return Buffer.from(value as Uint8Array).toString('base64');
  if (type === 'int64') return toNumber(value);
  return value;
}

function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  // int64 values decode as Long objects (the long package is installed).
  if (typeof v === 'object' && v !== null && typeof (v as { toNumber?: unknown }).toNumber === 'function')
    return (v as { toNumber(): number }).toNumber();
  return Number(v);
}

function formatTime(msg: Message, micro: boolean, path: string): string | null {
  if (!hasOwn(msg, 'seconds') && !hasOwn(msg, 'nanos')) return null;
  const seconds = toNumber(msg.seconds ?? 0);
  const nanos = toNumber(msg.nanos ?? 0);
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime()) || nanos < 0 || nanos > 999_999_999)
    throw new MappingError(path, 'is not a valid time');
  const base = date.toISOString().slice(0, 19);
  // Go's JSON form of metav1.Time has whole seconds; MicroTime has six fraction digits.
  return micro ? `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${base}Z`;
}

function specialToJson(name: string, msg: Message, path: string, nested?: NestedDecoder): unknown {
  switch (name.slice(META.length)) {
    case 'Time':
      return formatTime(msg, false, path);
    case 'MicroTime':
      return formatTime(msg, true, path);
    case 'Quantity':
      return typeof msg.string === 'string' ? msg.string : '0';
    case 'IntOrString':
      return toNumber(msg.type ?? 0) === 1 ? (msg.strVal ?? '') : (msg.intVal ?? 0);
    case 'FieldsV1':
    case 'RawExtension': {
      const raw = (name.endsWith('FieldsV1') ? msg.Raw : msg.raw) as Uint8Array | undefined;
      if (!raw || raw.length === 0) return name.endsWith('FieldsV1') ? {} : undefined;
      if (nested && isEnvelope(raw)) return nested(raw, path);
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8'));
      } catch {
        throw new MappingError(path, 'does not hold valid JSON');
      }
    }
    case 'ExtraValue':
      return Array.isArray(msg.items) ? [...msg.items] : [];
    default:
      throw new MappingError(path, `unsupported value type ${name}`);
  }
}

/** The `k8s\0` prefix of the protobuf envelope. */
export const ENVELOPE_PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

export function isEnvelope(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x6b && bytes[1] === 0x38 && bytes[2] === 0x73 && bytes[3] === 0x00;
}
