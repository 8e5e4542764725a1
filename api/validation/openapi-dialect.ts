// Schemas are written in OpenAPI v3's dialect of JSON Schema (draft 4), which a CustomResourceDefinition's
// openAPIV3Schema follows word for word; ajv compiles a later draft and refuses, by throwing, what draft 4 allows. So
// a schema is rewritten for ajv on its way to compilation (the published OpenAPI document keeps the original):
// - exclusiveMaximum/exclusiveMinimum are booleans beside maximum/minimum in draft 4, numbers of their own in ajv's;
// - a keyword set to null is absent, as decoding into upstream's Go type leaves it nil;
// - an empty enum or list of item schemas restricts nothing (upstream's validator only applies a non-empty one),
//   where ajv wants an item;
// - `id` names a schema in draft 4 and is ignored by upstream's validator; ajv refuses the keyword;
// - a negative maxLength/maxItems/maxProperties, which upstream's validator applies as written (nothing of the type
//   passes), becomes a pair of bounds ajv takes with the same effect; a negative minimum count restricts nothing.
// Everything else ajv would refuse is refused when the definition is written (openapi-rules.ts).
const SCHEMA_KEYS = ['not', 'items', 'additionalProperties', 'additionalItems'] as const;
const SCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'items'] as const;
const SCHEMA_MAP_KEYS = ['properties', 'patternProperties', 'definitions', 'dependencies'] as const;
const COUNT_BOUNDS = [
  ['maxLength', 'minLength'],
  ['maxItems', 'minItems'],
  ['maxProperties', 'minProperties'],
] as const;
/** Where the rewrite stops descending: deeper than any definition may be (schema-props.ts MAX_SCHEMA_DEPTH). */
const MAX_DEPTH = 256;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

function exclusiveBound(s: Node, exclusive: 'exclusiveMaximum' | 'exclusiveMinimum', bound: 'maximum' | 'minimum') {
  if (typeof s[exclusive] !== 'boolean') return;
  if (s[exclusive] === true && typeof s[bound] === 'number') {
    s[exclusive] = s[bound];
    delete s[bound];
  } else {
    delete s[exclusive];
  }
}

function rewrite(s: Node, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const key of Object.keys(s)) if (s[key] === null && key !== 'default' && key !== 'example') delete s[key];
  delete s.id;
  if (Array.isArray(s.enum) && s.enum.length === 0) delete s.enum;
  if (Array.isArray(s.items) && s.items.length === 0) delete s.items;
  exclusiveBound(s, 'exclusiveMaximum', 'maximum');
  exclusiveBound(s, 'exclusiveMinimum', 'minimum');
  for (const [max, min] of COUNT_BOUNDS) {
    if (typeof s[min] === 'number' && s[min] < 0) delete s[min];
    if (typeof s[max] === 'number' && s[max] < 0) {
      s[max] = 0;
      s[min] = Math.max(1, typeof s[min] === 'number' ? s[min] : 0);
    }
  }
  for (const key of SCHEMA_KEYS) if (isNode(s[key])) rewrite(s[key], depth + 1);
  for (const key of SCHEMA_LIST_KEYS)
    if (Array.isArray(s[key])) for (const child of s[key] as unknown[]) if (isNode(child)) rewrite(child, depth + 1);
  for (const key of SCHEMA_MAP_KEYS)
    if (isNode(s[key])) for (const child of Object.values(s[key])) if (isNode(child)) rewrite(child, depth + 1);
}

/** The schema ajv compiles for `schema`, a JSON copy (the symbol marks of the OpenAPI builder are dropped too). */
export function toAjvDialect(schema: unknown): object {
  const copy = JSON.parse(JSON.stringify(schema)) as unknown;
  if (isNode(copy)) rewrite(copy, 0);
  return copy as object;
}
