// Validation ratcheting (CRDValidationRatcheting, on by default in 1.32, KEP 4008): on an update, a value that
// fails its schema but is unchanged from the stored object does not fail the update, so a definition's schema can be
// tightened without refusing every write to objects stored before. "Unchanged" needs the new value paired with its
// old one: fields and map entries pair by name, items of an `x-kubernetes-list-type: map` list by their keys; the
// items of other lists cannot be paired, so only the list as a whole can be unchanged.
import type { FieldError } from '../../meta/field-errors.js';
import { isObject } from '../../meta/types.js';
import { additionalOf, itemsOf, propertiesOf, type JSONSchemaProps } from './schema-props.js';

/** Deep equality of two JSON values, object keys in any order. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  if (!isObject(a) || !isObject(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]));
}

/** The item of `oldList` with the keys of `item`, for a map list; undefined for a list whose items cannot pair. */
export function correlatedItem(list: JSONSchemaProps, item: unknown, oldList: unknown): unknown {
  const keys = list['x-kubernetes-list-map-keys'];
  if (list['x-kubernetes-list-type'] !== 'map' || !keys?.length || !Array.isArray(oldList) || !isObject(item))
    return undefined;
  return oldList.find((old) => isObject(old) && keys.every((k) => sameValue(old[k], item[k])));
}

/** `spec.items[2].name` → ['spec', 'items', '2', 'name']; `metadata.labels[a.b]` keeps `a.b` one segment. */
function pathSegments(field: string): string[] {
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < field.length; i++) {
    const c = field[i];
    if (c === '.' || c === '[') {
      if (current !== '') segments.push(current);
      current = '';
      if (c === '[') {
        const end = field.indexOf(']', i);
        if (end < 0) return [];
        segments.push(field.slice(i + 1, end));
        i = end;
      }
    } else current += c;
  }
  if (current !== '') segments.push(current);
  return segments;
}

/** The schema of a field of an object node: a declared property, or its map values. */
function fieldSchema(s: JSONSchemaProps | undefined, name: string): JSONSchemaProps | undefined {
  if (!s) return undefined;
  return propertiesOf(s).find(([property]) => property === name)?.[1] ?? additionalOf(s);
}

/**
 * Whether the value an error is about is unchanged from the stored object: the deepest value on the error's path
 * that pairs with an old one is deep-equal to it (everything under an unchanged value is unchanged).
 */
function unchangedAt(schema: JSONSchemaProps, segments: string[], obj: unknown, old: unknown): boolean {
  let s: JSONSchemaProps | undefined = schema;
  let value = obj;
  let previous = old;
  for (const segment of segments) {
    if (previous !== undefined && sameValue(value, previous)) return true;
    if (Array.isArray(value)) {
      const item: unknown = value[Number(segment)];
      if (!s || !/^\d+$/.test(segment)) return false;
      previous = correlatedItem(s, item, previous);
      if (previous === undefined) return false;
      value = item;
      s = itemsOf(s);
    } else if (isObject(value)) {
      value = Object.hasOwn(value, segment) ? value[segment] : undefined;
      previous = isObject(previous) && Object.hasOwn(previous, segment) ? previous[segment] : undefined;
      s = fieldSchema(s, segment);
    } else return false;
  }
  return previous !== undefined && sameValue(value, previous);
}

// What the server keeps in every object is validated as it is for every kind, never ratcheted.
const OBJECT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * The schema errors of an update without those about unchanged values. A missing required field is the error of
 * the object that lacks it, so it ratchets only when that object is unchanged.
 */
export function ratchetSchemaErrors(
  schema: JSONSchemaProps,
  errs: FieldError[],
  obj: unknown,
  old: unknown,
): FieldError[] {
  if (errs.length === 0) return errs;
  return errs.filter((e) => {
    if (e.type === 'InternalError') return true;
    const segments = e.field === '<root>' ? [] : pathSegments(e.field);
    if (segments.length > 0 && OBJECT_FIELDS.has(segments[0])) return true;
    const at = e.type === 'FieldValueRequired' ? segments.slice(0, -1) : segments;
    return !unchangedAt(schema, at, obj, old);
  });
}
