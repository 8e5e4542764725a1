// Messages whose JSON form is not an object of their fields: apiextensions' JSON (any value, its text on the wire)
// and the JSONSchemaProps unions, each a schema or another shape (an array of schemas, a boolean, a list of
// property names), as their Go MarshalJSON and UnmarshalJSON write and read them.
import type protobuf from 'protobufjs';

export type Message = Record<string, unknown>;
type ToWire = (type: protobuf.Type, json: Record<string, unknown>, path: string) => Message;
type ToJson = (type: protobuf.Type, msg: Message, path: string) => Record<string, unknown>;

/** A union value that cannot be mapped: json-mapping.ts turns it into its MappingError. */
export class UnionError extends Error {}

const PKG = '.gatehouse.apiextensions.';
export const UNION_TYPES = new Set(
  ['JSON', 'JSONSchemaPropsOrArray', 'JSONSchemaPropsOrBool', 'JSONSchemaPropsOrStringArray'].map((n) => PKG + n),
);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function schemaType(type: protobuf.Type): protobuf.Type {
  return type.fields.schema.resolvedType as protobuf.Type;
}

export function unionToWire(type: protobuf.Type, value: unknown, path: string, toWire: ToWire): Message {
  const schema = (v: unknown, at: string): Message => {
    if (!isPlainObject(v)) throw new UnionError(`${at}: must be a schema object`);
    return toWire(schemaType(type), v, at);
  };
  switch (type.name) {
    case 'JSON':
      return { raw: Buffer.from(JSON.stringify(value)) };
    case 'JSONSchemaPropsOrArray':
      return Array.isArray(value)
        ? { jSONSchemas: value.map((v, i) => schema(v, `${path}[${i}]`)) }
        : { schema: schema(value, path) };
    case 'JSONSchemaPropsOrBool':
      return typeof value === 'boolean' ? { allows: value } : { allows: true, schema: schema(value, path) };
    case 'JSONSchemaPropsOrStringArray':
      if (Array.isArray(value)) {
        if (!value.every((v) => typeof v === 'string')) throw new UnionError(`${path}: must be an array of strings`);
        return { property: value };
      }
      return { schema: schema(value, path) };
    default:
      throw new UnionError(`${path}: unsupported union ${type.name}`);
  }
}

export function unionToJson(type: protobuf.Type, msg: Message, path: string, toJson: ToJson): unknown {
  const schema = (m: unknown, at: string) => toJson(schemaType(type), m as Message, at);
  switch (type.name) {
    case 'JSON': {
      const raw = msg.raw as Uint8Array | undefined;
      if (!raw || raw.length === 0) return undefined;
      try {
        return JSON.parse(Buffer.from(raw).toString('utf8')) as unknown;
      } catch {
        throw new UnionError(`${path}: does not hold valid JSON`);
      }
    }
    case 'JSONSchemaPropsOrArray':
      if (msg.schema) return schema(msg.schema, path);
      return Array.isArray(msg.jSONSchemas) ? msg.jSONSchemas.map((m, i) => schema(m, `${path}[${i}]`)) : undefined;
    case 'JSONSchemaPropsOrBool':
      return msg.schema ? schema(msg.schema, path) : msg.allows === true;
    case 'JSONSchemaPropsOrStringArray':
      return msg.schema ? schema(msg.schema, path) : Array.isArray(msg.property) ? [...(msg.property as string[])] : [];
    default:
      throw new UnionError(`${path}: unsupported union ${type.name}`);
  }
}
