// Small constructors for the schema dialect so kind schemas read as declarations. Every builder takes the field's
// description last: descriptions are what `kubectl explain` prints, so they are part of the API, not decoration.
import type { JSONSchema } from '../schema.js';

/**
 * Marks a schema as a named OpenAPI definition. The mark is a symbol so that JSON serialization and ajv never see
 * it, while `{...schema, description}` copies keep it: the OpenAPI builder replaces marked sub-schemas by a $ref.
 */
export const DEFINITION_NAME = Symbol('openapi-definition-name');

type Named = JSONSchema & { [DEFINITION_NAME]?: string };

const definitions = new Map<string, JSONSchema>();

export function named<T extends JSONSchema>(name: string, schema: T): T {
  definitions.set(name, schema);
  return Object.assign(schema, { [DEFINITION_NAME]: name });
}

/** The schema registered under a definition name (with its own description, not a use-site one). */
export function namedDefinition(name: string): JSONSchema | undefined {
  return definitions.get(name);
}

export function definitionNameOf(schema: JSONSchema): string | undefined {
  return (schema as Named)[DEFINITION_NAME];
}

/** A copy of a (possibly named) schema with a use-specific description. */
export function describe<T extends JSONSchema>(schema: T, description: string): T {
  return { ...schema, description };
}

export const str = (description: string, extra: JSONSchema = {}): JSONSchema => ({
  type: 'string',
  description,
  ...extra,
});
export const bool = (description: string, extra: JSONSchema = {}): JSONSchema => ({
  type: 'boolean',
  description,
  ...extra,
});
export const int32 = (description: string, extra: JSONSchema = {}): JSONSchema => ({
  type: 'integer',
  format: 'int32',
  description,
  ...extra,
});
export const int64 = (description: string, extra: JSONSchema = {}): JSONSchema => ({
  type: 'integer',
  format: 'int64',
  description,
  ...extra,
});

export function enumStr(values: string[], description: string, extra: JSONSchema = {}): JSONSchema {
  return {
    type: 'string',
    enum: values,
    description: `${description}\n\nPossible enum values: ${values.map((v) => `"${v}"`).join(', ')}`,
    ...extra,
  };
}

export function obj(
  properties: Record<string, JSONSchema>,
  description: string,
  required?: string[],
  extra: JSONSchema = {},
): JSONSchema {
  return { type: 'object', description, properties, ...(required?.length ? { required } : {}), ...extra };
}

/** Arrays: `atomic` is replaced whole on merge, `set` holds unique scalars, `map` is merged by its key fields. */
export function arr(
  items: JSONSchema,
  description: string,
  listType?: 'atomic' | 'set',
  extra: JSONSchema = {},
): JSONSchema {
  return { type: 'array', description, items, ...(listType ? { 'x-kubernetes-list-type': listType } : {}), ...extra };
}

/** A list merged by key: both the strategic-merge-patch and the server-side-apply markers are set. */
export function mapList(items: JSONSchema, key: string, description: string): JSONSchema {
  return {
    type: 'array',
    description,
    items,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': [key],
    'x-kubernetes-patch-merge-key': key,
    'x-kubernetes-patch-strategy': 'merge',
  };
}

export function map(values: JSONSchema, description: string): JSONSchema {
  return { type: 'object', description, additionalProperties: values };
}

export const stringMap = (description: string): JSONSchema => map({ type: 'string', description: '' }, description);

export const stringList = (description: string, listType?: 'atomic' | 'set'): JSONSchema =>
  arr({ type: 'string', description: '' }, description, listType);

export const intOrString = named('io.platform.apimachinery.pkg.util.intstr.IntOrString', {
  description: 'IntOrString holds either an integer or a string.',
  'x-kubernetes-int-or-string': true,
  format: 'int-or-string',
} satisfies JSONSchema);

export const quantitySchema = named('io.platform.apimachinery.pkg.api.resource.Quantity', {
  description: 'Quantity is a fixed-point number with an optional suffix: 128974848, 129e6, 129M, 123Mi, 1.5G, 500m.',
  'x-kubernetes-int-or-string': true,
} satisfies JSONSchema);

export const timeSchema = named('io.platform.apimachinery.pkg.apis.meta.v1.Time', {
  type: 'string',
  format: 'date-time',
  description: 'Time is an RFC 3339 date and time, serialized in UTC at second precision.',
} satisfies JSONSchema);

export const quantity = (description: string): JSONSchema => describe(quantitySchema, description);
export const time = (description: string): JSONSchema => describe(timeSchema, description);
export const quantityMap = (description: string): JSONSchema => map(quantitySchema, description);

/** Opaque subtree kept as sent: the server validates only what it declares. */
export const preserved = (description: string): JSONSchema => ({
  type: 'object',
  description,
  'x-kubernetes-preserve-unknown-fields': true,
});
