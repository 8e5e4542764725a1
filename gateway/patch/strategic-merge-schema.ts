// What the strategic merge patch engine needs to know about schemas and JSON values. Only the patch markers matter
// here (x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key): kube-apiserver's strategic merge patch reads
// nothing else, so a list with x-kubernetes-list-type: map but no patch strategy is replaced wholesale, exactly as
// upstream does; the list-type and map-type markers belong to server-side apply.
import type { JSONSchema } from '../../api/schema.js';
import { errors, type StatusError } from '../../api/meta/errors.js';
import { isObject, ownValue } from '../../api/meta/types.js';

export type JsonMap = Record<string, unknown>;

export const PATCH_DIRECTIVE = '$patch';
export const RETAIN_KEYS = '$retainKeys';
export const SET_ELEMENT_ORDER = '$setElementOrder';
export const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';

export const isMap = isObject;

/** Keys that steer the merge and never reach the stored object. */
export function isDirectiveKey(key: string): boolean {
  return (
    key === PATCH_DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(SET_ELEMENT_ORDER) ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST)
  );
}

/** A schema and its allOf parts: a property may be declared by any of them. */
function parts(schema: JSONSchema | undefined): JSONSchema[] {
  if (!schema) return [];
  return [schema, ...(schema.allOf ?? []).flatMap(parts)];
}

/**
 * The schema of one field of a map. Undefined means the field is unknown (not declared, or under
 * x-kubernetes-preserve-unknown-fields), and the engine then merges it like a JSON merge patch.
 */
export function fieldSchema(schema: JSONSchema | undefined, key: string): JSONSchema | undefined {
  const all = parts(schema);
  for (const s of all) {
    const p = ownValue(s.properties, key);
    if (p) return p;
  }
  for (const s of all) {
    if (typeof s.additionalProperties === 'object') return s.additionalProperties;
  }
  return undefined;
}

export function itemSchema(schema: JSONSchema | undefined): JSONSchema | undefined {
  return parts(schema).find((s) => s.items)?.items;
}

function strategies(schema: JSONSchema | undefined): string[] {
  const declared = parts(schema).find((s) => s['x-kubernetes-patch-strategy'] !== undefined)?.[
    'x-kubernetes-patch-strategy'
  ];
  return (declared ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface ListStrategy {
  /** False: the patch's list replaces the stored one (atomic, set or map lists without a patch strategy). */
  merge: boolean;
  /** Set for lists of objects merged element by element; absent for lists of primitives merged as a union. */
  mergeKey?: string;
}

export function listStrategy(schema: JSONSchema | undefined): ListStrategy {
  if (!strategies(schema).includes('merge')) return { merge: false };
  const mergeKey = parts(schema).find((s) => s['x-kubernetes-patch-merge-key'])?.['x-kubernetes-patch-merge-key'];
  return mergeKey ? { merge: true, mergeKey } : { merge: true };
}

/** Maps declared with patch strategy `replace` take the patch's map instead of merging into the stored one. */
export function replacesMap(schema: JSONSchema | undefined): boolean {
  return strategies(schema).includes('replace');
}

export function isPrimitive(v: unknown): boolean {
  return v === null || typeof v !== 'object';
}

export function childPath(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

export function elementPath(path: string, index: number): string {
  return `${path}[${index}]`;
}

/** A value shortened for error messages: patches can be large and the message is printed by kubectl. */
export function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 120 ? `${s.slice(0, 117)}...` : s;
}

export function badPatch(path: string, message: string): StatusError {
  return errors.badRequest(`invalid strategic merge patch at ${path || 'the top level'}: ${message}`);
}

/** `$setElementOrder/<field>` and `$deleteFromPrimitiveList/<field>` name the field they apply to after the slash. */
export function directiveField(key: string, prefix: string, path: string): string {
  const field = key.startsWith(`${prefix}/`) ? key.slice(prefix.length + 1) : '';
  if (!field) throw badPatch(path, `malformed directive key "${key}": expected "${prefix}/<field name>"`);
  return field;
}
