// Defaulting of custom objects from their schema's `default` values, as upstream's structural defaulting: a field
// the object leaves out gets a copy of its default, inside objects, maps and list items alike. It runs on every
// write after pruning and on every read of a stored object, so objects stored before a default was added get it too.
import { isObject } from '../../meta/types.js';
import { additionalOf, itemsOf, MAX_SCHEMA_DEPTH, propertiesOf, type JSONSchemaProps } from './schema-props.js';

/**
 * Whether a `default` stands anywhere at or below `schema`, remembered per schema node: every write and every read
 * of a custom object walks its schema, and most subtrees (metadata-like maps, lists of plain items) declare none.
 */
const defaultsBelow = new WeakMap<JSONSchemaProps, boolean>();

function declaresDefaults(schema: JSONSchemaProps, depth = 0): boolean {
  let known = defaultsBelow.get(schema);
  if (known === undefined) {
    const items = itemsOf(schema);
    const additional = additionalOf(schema);
    // Nesting is bounded when the definition is written; the depth guard only keeps a cycle from looping.
    known =
      depth <= MAX_SCHEMA_DEPTH &&
      (propertiesOf(schema).some(([, child]) => child.default !== undefined || declaresDefaults(child, depth + 1)) ||
        (items !== undefined && declaresDefaults(items, depth + 1)) ||
        (additional !== undefined && declaresDefaults(additional, depth + 1)));
    defaultsBelow.set(schema, known);
  }
  return known;
}

/** `value` with the defaults of `schema` filled in: the same value when nothing was missing, else a new one. */
export function withSchemaDefaults(schema: JSONSchemaProps, value: unknown): unknown {
  if (!declaresDefaults(schema)) return value;
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (!items) return value;
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const defaulted = withSchemaDefaults(items, item);
      if (defaulted !== item) (out ??= [...value])[i] = defaulted;
    });
    return out ?? value;
  }
  if (!isObject(value)) return value;
  let out: Record<string, unknown> | undefined;
  const set = (key: string, v: unknown) => ((out ??= { ...value })[key] = v);
  const properties = propertiesOf(schema);
  for (const [key, child] of properties) {
    if (!Object.hasOwn(value, key)) {
      if (child.default !== undefined) set(key, withSchemaDefaults(child, structuredClone(child.default)));
      continue;
    }
    const defaulted = withSchemaDefaults(child, value[key]);
    if (defaulted !== value[key]) set(key, defaulted);
  }
  const additional = additionalOf(schema);
  if (additional) {
    const declared = new Set(properties.map(([key]) => key));
    for (const [key, child] of Object.entries(value)) {
      if (declared.has(key)) continue;
      const defaulted = withSchemaDefaults(additional, child);
      if (defaulted !== child) set(key, defaulted);
    }
  }
  return out ?? value;
}
