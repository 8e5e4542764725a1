// Pruning: drops fields the schema does not know, in place, and reports where they were (the paths kube-apiserver
// puts in `unknown field "spec.foo"`). Nulls on non-nullable fields are dropped silently, as decoding a built-in
// type does: clients routinely send `creationTimestamp: null`.
import type { JSONSchema } from '../schema.js';
import { isObject, ownValue } from '../meta/types.js';

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function pruneValue(schema: JSONSchema, value: unknown, path: string, unknown: string[]): void {
  if (Array.isArray(value)) {
    if (!schema.items) return;
    value.forEach((item, i) => {
      if (isContainer(item)) pruneValue(schema.items!, item, `${path}[${i}]`, unknown);
    });
    return;
  }
  if (!isObject(value)) return;
  const props = schema.properties;
  const additional = schema.additionalProperties;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  // A schema with no structure at all (no properties, no map values) only makes sense as an opaque subtree.
  const opaque = !props && additional === undefined && !schema.type;
  // for-in rather than Object.entries: no array of pairs per object (decoded JSON has no inherited keys), and
  // deleting the key being visited is allowed. Child paths are built only for children that can hold fields.
  for (const key in value) {
    const child = value[key];
    const known = ownValue(props, key);
    if (known) {
      if (child === null && !known.nullable) delete value[key];
      else if (isContainer(child)) pruneValue(known, child, join(path, key), unknown);
    } else if (isObject(additional)) {
      if (child === null && !additional.nullable) delete value[key];
      else if (isContainer(child)) pruneValue(additional, child, `${path}[${key}]`, unknown);
    } else if (additional === true || preserve || opaque) {
      continue;
    } else {
      delete value[key];
      unknown.push(join(path, key));
    }
  }
}

function isContainer(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Removes unknown fields of `value` in place; returns their paths in document order. */
export function pruneUnknownFields(schema: JSONSchema, value: unknown): string[] {
  const unknown: string[] = [];
  pruneValue(schema, value, '', unknown);
  return unknown;
}
