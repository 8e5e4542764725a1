// JSONSchemaProps, the schema dialect a CustomResourceDefinition describes its objects in (upstream's
// apiextensions/v1 types_jsonschema.go): an OpenAPI v3 subset with the x-kubernetes-* extensions. The definition's
// kind schema keeps openAPIV3Schema as an opaque subtree (it is recursive); normalizeSchemaProps drops the keys the
// Go type does not have, as decoding into it does, and the rules in structural.ts check the rest.
import { asArr, asObj, type Obj } from '../../common/validation-helpers.js';

export interface ValidationRule {
  rule?: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface JSONSchemaProps {
  id?: string;
  $schema?: string;
  $ref?: string;
  description?: string;
  type?: string;
  format?: string;
  title?: string;
  default?: unknown;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  multipleOf?: number;
  enum?: unknown[];
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  /** A schema, or (refused by validation) an array of schemas. */
  items?: JSONSchemaProps | JSONSchemaProps[];
  allOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  not?: JSONSchemaProps;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  additionalItems?: JSONSchemaProps | boolean;
  definitions?: Record<string, JSONSchemaProps>;
  externalDocs?: { description?: string; url?: string };
  example?: unknown;
  nullable?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
}

/** Keys whose value is one schema. */
const SCHEMA_KEYS = ['not'] as const;
/** Keys whose value is a list of schemas. */
const SCHEMA_LIST_KEYS = ['allOf', 'oneOf', 'anyOf'] as const;
/** Keys whose value is a map of schemas. */
const SCHEMA_MAP_KEYS = ['properties', 'patternProperties', 'definitions'] as const;
/** Keys whose value is a schema or a boolean. */
const SCHEMA_OR_BOOL_KEYS = ['additionalProperties', 'additionalItems'] as const;
/** Keys holding any JSON value. */
const VALUE_KEYS = ['default', 'example', 'enum'] as const;
const SCALAR_KEYS = [
  'id',
  '$schema',
  '$ref',
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'maxProperties',
  'minProperties',
  'required',
  'externalDocs',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-list-type',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

const KNOWN_KEYS = new Set<string>([
  ...SCHEMA_KEYS,
  ...SCHEMA_LIST_KEYS,
  ...SCHEMA_MAP_KEYS,
  ...SCHEMA_OR_BOOL_KEYS,
  ...VALUE_KEYS,
  ...SCALAR_KEYS,
  'items',
  'dependencies',
]);

/** Bounds every walk of a schema: a definition nested deeper is refused (openapi-rules.ts) instead of walked. */
export const MAX_SCHEMA_DEPTH = 128;

/**
 * Drops, in place and through every nested schema, the keys JSONSchemaProps does not have; returns their paths
 * relative to `at`, the way pruning reports unknown fields. Depth is bounded by the request body's own nesting.
 */
export function normalizeSchemaProps(schema: unknown, at: string, unknown: string[] = [], depth = 0): string[] {
  const s = asObj(schema);
  if (!s || depth > MAX_SCHEMA_DEPTH) return unknown;
  for (const key of Object.keys(s)) {
    if (!KNOWN_KEYS.has(key)) {
      delete s[key];
      unknown.push(`${at}.${key}`);
    }
  }
  for (const key of SCHEMA_KEYS) normalizeSchemaProps(s[key], `${at}.${key}`, unknown, depth + 1);
  for (const key of SCHEMA_LIST_KEYS)
    asArr(s[key]).forEach((child, i) => normalizeSchemaProps(child, `${at}.${key}[${i}]`, unknown, depth + 1));
  for (const key of SCHEMA_MAP_KEYS)
    for (const [name, child] of Object.entries(asObj(s[key]) ?? {}))
      normalizeSchemaProps(child, `${at}.${key}.${name}`, unknown, depth + 1);
  for (const key of SCHEMA_OR_BOOL_KEYS) normalizeSchemaProps(s[key], `${at}.${key}`, unknown, depth + 1);
  if (Array.isArray(s.items))
    s.items.forEach((child, i) => normalizeSchemaProps(child, `${at}.items[${i}]`, unknown, depth + 1));
  else normalizeSchemaProps(s.items, `${at}.items`, unknown, depth + 1);
  for (const [name, child] of Object.entries(asObj(s.dependencies) ?? {}))
    if (!Array.isArray(child)) normalizeSchemaProps(child, `${at}.dependencies.${name}`, unknown, depth + 1);
  return unknown;
}

/** A schema node as read by the rules: never throws on a node of the wrong JSON type. */
export function schemaAt(v: unknown): JSONSchemaProps | undefined {
  return asObj(v);
}

/** The one schema of `items` (undefined when absent or an array of schemas). */
export function itemsOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return Array.isArray(s.items) ? undefined : schemaAt(s.items);
}

/** The schema of additionalProperties (undefined when absent or a boolean). */
export function additionalOf(s: JSONSchemaProps): JSONSchemaProps | undefined {
  return typeof s.additionalProperties === 'object' ? schemaAt(s.additionalProperties) : undefined;
}

export function propertiesOf(s: JSONSchemaProps): [string, JSONSchemaProps][] {
  return Object.entries(asObj(s.properties) ?? {}).flatMap(([k, v]) => {
    const child = schemaAt(v);
    return child ? [[k, child] as [string, JSONSchemaProps]] : [];
  });
}

export type { Obj };
