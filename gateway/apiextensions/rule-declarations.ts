// What a CustomResourceDefinition's schema tells the CEL compiler about `self` at a rule's node, as upstream's
// schema-typed declarations do: the object types to check field selections against (a field the schema lacks is a
// compile error), and the size bounds the cost estimate may assume (maxLength, maxItems, maxProperties; otherwise
// as much as fits in one request, upstream's 3 MiB). The root, and embedded resources, also have apiVersion, kind and
// metadata (of which rules see name and generateName only).
import type { JSONSchema } from '../../api/schema.js';
import {
  additionalOf,
  itemsOf,
  propertiesOf,
  schemaAt,
  type JSONSchemaProps,
} from '../../api/apiextensions/v1/schema-props.js';
import { celTypesOfSchema, type CelSchemaTypes, type DeclaredSize } from '../../policies/cel/index.js';

/** kube-apiserver's request size limit, which bounds every value its estimates cannot otherwise bound. */
const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
// Smallest serialized forms, upstream's: `""`, a digit, `true`, `[]`, `{}`.
const MIN_STRING_SIZE = 2;
const MIN_NUMBER_SIZE = 1;
const MIN_BOOL_SIZE = 4;
const MIN_AGGREGATE_SIZE = 2;
// Upstream's bounds for the JSON forms of dates and durations.
const FORMAT_LENGTHS: Record<string, number> = { date: 12, 'date-time': 34, duration: 34 };

const CAP = Number.MAX_SAFE_INTEGER;

const RESOURCE_META: Record<string, JSONSchemaProps> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
};

/** The node as rules see it: at the root and on embedded resources, with apiVersion, kind and metadata. */
export function asRuleSubject(s: JSONSchemaProps, isRoot: boolean): JSONSchemaProps {
  if (!isRoot && s['x-kubernetes-embedded-resource'] !== true) return s;
  return { ...s, type: 'object', properties: { ...s.properties, ...RESOURCE_META } };
}

/** The CEL type of `self` at a node, with the object types it reaches; formatted strings typed as upstream does. */
export function ruleSubjectTypes(subject: JSONSchemaProps): CelSchemaTypes {
  return celTypesOfSchema(subject as JSONSchema, 'self', { typedFormats: true });
}

function minSerializedSize(s: JSONSchemaProps | undefined): number {
  switch (s?.type) {
    case 'string':
      return MIN_STRING_SIZE;
    case 'integer':
    case 'number':
      return MIN_NUMBER_SIZE;
    case 'boolean':
      return MIN_BOOL_SIZE;
    default:
      return s?.['x-kubernetes-int-or-string'] ? MIN_NUMBER_SIZE : MIN_AGGREGATE_SIZE;
  }
}

const bounded = (declared: unknown, estimate: number): number =>
  typeof declared === 'number' && declared >= 0 ? declared : estimate;

function maxStringLength(s: JSONSchemaProps): number {
  // maxLength counts characters; a character may take four bytes, which is what the traversal costs are counted in.
  if (typeof s.maxLength === 'number') return Math.max(0, s.maxLength) * 4;
  const enumLengths = (s.enum ?? []).map((v) => (typeof v === 'string' ? v.length : 0));
  if (enumLengths.length > 0) return Math.max(...enumLengths);
  return FORMAT_LENGTHS[s.format ?? ''] ?? MAX_REQUEST_SIZE_BYTES - 2;
}

/** The most items of a list whose items have this schema (upstream's estimate when maxItems is not declared). */
const estimatedMaxItems = (items: JSONSchemaProps | undefined) =>
  Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(items) + 1));

/** The most entries of a map: a key of at least `""`, a colon, a comma and the smallest value. */
const estimatedMaxEntries = (values: JSONSchemaProps | undefined) =>
  Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (minSerializedSize(values) + 6));

const UNBOUNDED_KEY: DeclaredSize = { maxSize: MAX_REQUEST_SIZE_BYTES - 2 };

/** The size bounds of a node's values, or undefined where the schema leaves the value open. */
export function declaredSizeOf(raw: unknown): DeclaredSize | undefined {
  const s = schemaAt(raw);
  if (!s || s['x-kubernetes-int-or-string'] || s['x-kubernetes-preserve-unknown-fields']) return undefined;
  switch (s.type) {
    case 'string':
      return { maxSize: maxStringLength(s) };
    case 'integer':
    case 'number':
    case 'boolean':
      return { maxSize: 1 };
    case 'array': {
      const items = itemsOf(s);
      return { maxSize: bounded(s.maxItems, estimatedMaxItems(items)), element: declaredSizeOf(items) };
    }
    case 'object': {
      const values = additionalOf(s);
      if (values || s.additionalProperties === true)
        return {
          maxSize: bounded(s.maxProperties, estimatedMaxEntries(values)),
          element: declaredSizeOf(values),
          key: UNBOUNDED_KEY,
        };
      const properties = new Map(propertiesOf(s));
      // Declared lazily: a schema may be deep, and most rules read a few fields of it.
      return {
        maxSize: bounded(s.maxProperties, properties.size),
        field: (name) => declaredSizeOf(properties.get(name)),
      };
    }
    default:
      return undefined;
  }
}

/**
 * How many times a rule at a node below `ancestors` can run for one object: the product of the largest sizes of the
 * lists and maps on the way down (upstream's cardinality), so that a rule on the items of a list is charged for each.
 */
export function cardinalityOf(ancestors: readonly JSONSchemaProps[]): number {
  let cardinality = 1;
  for (const s of ancestors) {
    let factor = 1;
    if (s.type === 'array') factor = bounded(s.maxItems, estimatedMaxItems(itemsOf(s)));
    else if (s.type === 'object' && (additionalOf(s) || s.additionalProperties === true))
      factor = bounded(s.maxProperties, estimatedMaxEntries(additionalOf(s)));
    cardinality = Math.min(CAP, cardinality * factor);
  }
  return cardinality;
}
