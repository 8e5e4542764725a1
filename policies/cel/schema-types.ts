// CEL object types declared from a kind's JSON schema, for type checking only: a field selection the schema does
// not have is reported, as kube-apiserver's schema-typed declarations report it. Evaluation never uses these types
// (values stay plain maps), so a field the schema leaves open must stay `dyn` here: what the checker cannot know must
// never become a warning. Strings are strings whatever their format, unless the caller converts formatted values
// itself and asks for `typedFormats` (custom kinds' rules, as upstream's SchemaDeclType: dates are timestamps,
// durations durations, base64 bytes).
import type { JSONSchema } from '../../api/schema.js';

export interface CelObjectType {
  name: string;
  fields: Record<string, string>;
}

export interface CelSchemaTypes {
  /** The CEL type of the schema's root. */
  type: string;
  /** Every object type the root reaches, each to be registered before any variable of the root's type. */
  objects: readonly CelObjectType[];
}

export interface CelSchemaTypeOptions {
  /** Type strings of the formats date, date-time, duration and byte as timestamps, durations and bytes. */
  typedFormats?: boolean;
}

const DYN = 'dyn';

/** The CEL types of formatted strings, upstream's. */
export const CEL_FORMAT_TYPES: Readonly<Record<string, string>> = {
  date: 'google.protobuf.Timestamp',
  'date-time': 'google.protobuf.Timestamp',
  duration: 'google.protobuf.Duration',
  byte: 'bytes',
};

const cache = new WeakMap<JSONSchema, Map<string, CelSchemaTypes>>();

/** The object types of a schema, named from `rootName` (`ConfigMap`, `ConfigMap.metadata`...); cached per schema. */
export function celTypesOfSchema(
  schema: JSONSchema,
  rootName: string,
  options: CelSchemaTypeOptions = {},
): CelSchemaTypes {
  let byName = cache.get(schema);
  if (!byName) cache.set(schema, (byName = new Map()));
  const typedFormats = options.typedFormats === true;
  const key = `${rootName}\u0000${typedFormats}`;
  let types = byName.get(key);
  if (!types) byName.set(key, (types = declare(schema, rootName, typedFormats)));
  return types;
}

function declare(root: JSONSchema, rootName: string, typedFormats: boolean): CelSchemaTypes {
  const objects: CelObjectType[] = [];
  // A schema object met again (shared definitions, or a recursive one) is the type already declared for it.
  const declared = new Map<JSONSchema, string>();
  const taken = new Set<string>();
  const uniqueName = (wanted: string) => {
    let name = wanted;
    for (let n = 2; taken.has(name); n++) name = `${wanted}_${n}`;
    taken.add(name);
    return name;
  };

  function typeOf(schema: JSONSchema | undefined, path: string): string {
    if (!schema) return DYN;
    // A nullable value may be compared with null, which no declared type but dyn allows.
    if (schema['x-kubernetes-preserve-unknown-fields'] || schema['x-kubernetes-int-or-string'] || schema.nullable)
      return DYN;
    switch (schema.type) {
      case 'string':
        return typedFormats && schema.format !== undefined && Object.hasOwn(CEL_FORMAT_TYPES, schema.format)
          ? CEL_FORMAT_TYPES[schema.format]
          : 'string';
      case 'integer':
        return 'int';
      case 'number':
        return 'double';
      case 'boolean':
        return 'bool';
      case 'array':
        return `list<${typeOf(schema.items, `${path}.items`)}>`;
      case 'object':
        return objectType(schema, path);
      default:
        // No type, or only allOf/anyOf/oneOf: whatever the value turns out to be.
        return DYN;
    }
  }

  function objectType(schema: JSONSchema, path: string): string {
    const known = declared.get(schema);
    if (known) return known;
    const extra = schema.additionalProperties;
    if (extra !== undefined && extra !== false)
      return `map<string, ${extra === true ? DYN : typeOf(extra, `${path}.values`)}>`;
    const properties = Object.entries(schema.properties ?? {});
    // An object without properties is free-form in our schemas (upstream would type it as an empty object).
    if (properties.length === 0) return DYN;
    const name = uniqueName(path.replace(/[^A-Za-z0-9_.]/g, '_'));
    declared.set(schema, name);
    const fields: Record<string, string> = {};
    const type = { name, fields };
    objects.push(type);
    for (const [field, sub] of properties) fields[field] = typeOf(sub, `${path}.${field}`);
    return name;
  }

  return { type: typeOf(root, rootName), objects };
}
