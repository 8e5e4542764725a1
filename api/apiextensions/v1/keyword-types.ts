// The JSON type of every keyword of a schema node, as decoding into upstream's JSONSchemaProps checks it: a keyword
// of the wrong type (`maxLength: "5"`, `required: true`) makes kube-apiserver refuse the whole body when it decodes
// it. The openAPIV3Schema subtree is kept as it came (crd-schema.ts), so the same refusal is a field error here,
// naming the keyword. A null keyword is absent, as it decodes to nil. Bounds whose meaning needs a positive number
// are checked too: a non-positive multipleOf could never be met.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import type { JSONSchemaProps } from './schema-props.js';

type Expected = 'int64' | 'number' | 'boolean' | 'string' | 'string list' | 'schema list' | 'schema map' | 'schema';

const EXPECTED: Record<string, Expected> = {
  maxLength: 'int64',
  minLength: 'int64',
  maxItems: 'int64',
  minItems: 'int64',
  maxProperties: 'int64',
  minProperties: 'int64',
  maximum: 'number',
  minimum: 'number',
  multipleOf: 'number',
  exclusiveMaximum: 'boolean',
  exclusiveMinimum: 'boolean',
  uniqueItems: 'boolean',
  nullable: 'boolean',
  'x-kubernetes-preserve-unknown-fields': 'boolean',
  'x-kubernetes-embedded-resource': 'boolean',
  'x-kubernetes-int-or-string': 'boolean',
  id: 'string',
  $schema: 'string',
  $ref: 'string',
  description: 'string',
  title: 'string',
  type: 'string',
  format: 'string',
  pattern: 'string',
  'x-kubernetes-list-type': 'string',
  'x-kubernetes-map-type': 'string',
  required: 'string list',
  'x-kubernetes-list-map-keys': 'string list',
  allOf: 'schema list',
  anyOf: 'schema list',
  oneOf: 'schema list',
  properties: 'schema map',
  patternProperties: 'schema map',
  definitions: 'schema map',
  not: 'schema',
};

const INT64_LIMIT = 2 ** 63;
const isSchema = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);

function fits(expected: Expected, v: unknown): boolean {
  switch (expected) {
    case 'int64':
      return typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v <= INT64_LIMIT;
    case 'number':
    case 'boolean':
    case 'string':
      return typeof v === expected;
    case 'string list':
      return Array.isArray(v) && v.every((x) => typeof x === 'string');
    case 'schema list':
      return Array.isArray(v) && v.every(isSchema);
    case 'schema map':
      return isSchema(v) && Object.values(v as object).every(isSchema);
    case 'schema':
      return isSchema(v);
  }
}

const DESCRIBED: Record<Expected, string> = {
  int64: 'an integer',
  number: 'a number',
  boolean: 'a boolean',
  string: 'a string',
  'string list': 'a list of strings',
  'schema list': 'a list of schemas',
  'schema map': 'a map of schemas',
  schema: 'a schema',
};

export function keywordTypeErrors(s: JSONSchemaProps, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const node = s as Record<string, unknown>;
  for (const [key, expected] of Object.entries(EXPECTED)) {
    const v = node[key];
    if (v === undefined || v === null || fits(expected, v)) continue;
    errs.push(fieldErrors.invalid(at.child(key), v, `must be ${DESCRIBED[expected]}`));
  }
  const items = node.items;
  if (items !== undefined && items !== null && !isSchema(items) && !(Array.isArray(items) && items.every(isSchema)))
    errs.push(fieldErrors.invalid(at.child('items'), items, 'must be a schema or a list of schemas'));
  for (const key of ['additionalProperties', 'additionalItems'])
    if (node[key] !== undefined && node[key] !== null && typeof node[key] !== 'boolean' && !isSchema(node[key]))
      errs.push(fieldErrors.invalid(at.child(key), node[key], 'must be a schema or a boolean'));
  if (typeof node.multipleOf === 'number' && node.multipleOf <= 0)
    errs.push(fieldErrors.invalid(at.child('multipleOf'), node.multipleOf, 'must be greater than zero'));
  return errs;
}
