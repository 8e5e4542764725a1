// Schema-driven defaulting: a field whose schema carries `default` is filled when absent (never when present, so an
// explicit 0 or false survives). Runs after pruning, on the decoded object, in place.
import type { JSONSchema } from '../schema.js';
import { isObject } from '../meta/types.js';
import { cloneJson } from '../meta/clone.js';

export function applySchemaDefaults(schema: JSONSchema, value: unknown): void {
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) applySchemaDefaults(schema.items, item);
    return;
  }
  if (!isObject(value)) return;
  for (const [name, sub] of Object.entries(schema.properties ?? {})) {
    if (value[name] === undefined && sub.default !== undefined) value[name] = cloneJson(sub.default);
    if (value[name] !== undefined) applySchemaDefaults(sub, value[name]);
  }
  if (isObject(schema.additionalProperties)) {
    const known = schema.properties ?? {};
    for (const [k, v] of Object.entries(value)) if (!(k in known)) applySchemaDefaults(schema.additionalProperties, v);
  }
}
