// Strategic merge patch (application/strategic-merge-patch+json), the patch kubectl apply (client-side) and
// kubectl patch send for built-in kinds. It is a JSON merge patch whose lists merge by the kind's schema, plus
// directives kubectl's three-way diff emits. Rules follow k8s.io/apimachinery/pkg/util/strategicpatch (apply side):
// - maps merge recursively; null deletes a key; `$patch: replace` replaces the map, `$patch: delete` empties it;
//   `$retainKeys: [...]` drops stored keys not listed, then merges;
// - lists with patch strategy `merge` and a merge key merge element by element (`{key, $patch: delete}` removes one,
//   a `{$patch: replace}` element makes the rest of the patch list replace the stored list);
// - lists of primitives with strategy `merge` are unions; `$deleteFromPrimitiveList/<field>` removes values;
// - every other list (atomic, set, map without strategy, unknown field) is replaced by the patch's list;
// - `$setElementOrder/<field>` fixes the order of a merged list.
// Directive keys never reach the result, even inside values the stored object did not have (upstream's newer
// releases strip them there too).
import type { JSONSchema } from '../../api/schema.js';
import { errors } from '../../api/meta/errors.js';
import {
  badPatch,
  childPath,
  DELETE_FROM_PRIMITIVE_LIST,
  directiveField,
  elementPath,
  fieldSchema,
  isDirectiveKey,
  isMap,
  isPrimitive,
  itemSchema,
  type JsonMap,
  listStrategy,
  type ListStrategy,
  PATCH_DIRECTIVE,
  replacesMap,
  RETAIN_KEYS,
  SET_ELEMENT_ORDER,
  show,
} from './strategic-merge-schema.js';
import {
  identitiesOf,
  identityOf,
  type IdentityKey,
  normalizeElementOrder,
  partitionByPresence,
  positionsOf,
  validateOrderAgainstPatch,
  withoutIdentities,
} from './strategic-merge-order.js';
import { cloneJson, setOwn, shallowCopy } from '../../api/meta/clone.js';
import { ownValue } from '../../api/meta/types.js';

/**
 * Applies a strategic merge patch to `original` as described by `schema` (the kind's full object schema). Pure:
 * neither input is modified and the result shares no objects with them. Malformed directives throw 400.
 */
export function strategicMergePatch(original: unknown, patch: unknown, schema: JSONSchema): unknown {
  if (!isMap(patch)) throw errors.badRequest('a strategic merge patch must be a JSON object');
  const base = isMap(original) ? cloneJson(original) : {};
  // A top-level `$patch: delete` empties the object, as upstream does; validation then rejects it.
  return mergeMap(base, patch, schema, '') ?? {};
}

/** Merges a patch map that may carry `$patch`; undefined means the map is deleted. */
function mergeMap(
  original: JsonMap,
  patch: JsonMap,
  schema: JSONSchema | undefined,
  path: string,
): JsonMap | undefined {
  if (!(PATCH_DIRECTIVE in patch)) return mergeFields(original, patch, schema, path);
  const directive = patch[PATCH_DIRECTIVE];
  const rest = withoutKey(patch, PATCH_DIRECTIVE);
  switch (directive) {
    case 'replace':
      return mergeFields({}, rest, schema, path);
    case 'delete':
      return undefined;
    case 'merge':
      // Upstream rejects an explicit `merge` on maps; it is the default, so accepting it is harmless.
      return mergeFields(original, rest, schema, path);
    default:
      throw badPatch(path, `unknown patch type ${show(directive)} in map; expected "replace", "delete" or "merge"`);
  }
}

/** Merges the fields of a patch map without a `$patch` directive. */
function mergeFields(original: JsonMap, patch: JsonMap, schema: JSONSchema | undefined, path: string): JsonMap {
  // The function's own shallow copy: it is filled in place, the stored values it holds are never modified.
  // (shallowCopy, not a spread: the fields added to a spread's copy would give it a hidden class of its own.)
  const result: JsonMap = RETAIN_KEYS in patch ? retainKeys(original, patch, path) : shallowCopy(original);

  // Lists named by $setElementOrder are merged and ordered first; the plain merge below skips them.
  const ordered = new Set<IdentityKey>();
  for (const [key, order] of Object.entries(patch)) {
    if (!key.startsWith(SET_ELEMENT_ORDER)) continue;
    const field = directiveField(key, SET_ELEMENT_ORDER, path);
    const fs = fieldSchema(schema, field);
    const strategy = listStrategy(fs);
    if (!Array.isArray(order)) throw badPatch(path, `${key} must be a list, got ${show(order)}`);
    // Replaced lists keep the order of the patch's own list: kubectl sends $setElementOrder only for merged lists.
    if (!strategy.merge) continue;
    ordered.add(field);
    setField(
      result,
      field,
      orderedList(ownValue(result, field), ownValue(patch, field), order, field, strategy, fs, childPath(path, field)),
    );
  }

  for (const [key, value] of Object.entries(patch)) {
    if (isDirectiveKey(key) || ordered.has(key)) continue;
    setField(result, key, mergeValue(ownValue(result, key), value, fieldSchema(schema, key), childPath(path, key)));
  }

  // Deletions run last so that a value both merged in and deleted by the same patch ends up deleted.
  for (const [key, values] of Object.entries(patch)) {
    if (!key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) continue;
    const field = directiveField(key, DELETE_FROM_PRIMITIVE_LIST, path);
    setField(result, field, deleteFromPrimitiveList(ownValue(result, field), values, key, childPath(path, field)));
  }
  return result;
}

/** The new value of a field; undefined removes it. */
function mergeValue(current: unknown, patch: unknown, schema: JSONSchema | undefined, path: string): unknown {
  if (patch === null) return undefined;
  if (isMap(patch)) {
    const base = isMap(current) && !replacesMap(schema) ? current : {};
    // `$patch: delete` empties a stored map but keeps the key, exactly as upstream (its tests expect `{}`);
    // where the stored value is missing or no map, there is nothing to empty and the key stays absent.
    return mergeMap(base, patch, schema, path) ?? (isMap(current) ? {} : undefined);
  }
  if (Array.isArray(patch)) return mergeList(Array.isArray(current) ? current : [], patch, schema, path);
  return patch;
}

/** A list element of a patch taken as a whole: directives applied, and dropped if it deletes itself. */
function freshElement(element: unknown, schema: JSONSchema | undefined, path: string): unknown {
  return element === null ? null : mergeValue(undefined, element, schema, path);
}

function mergeList(current: unknown[], patch: unknown[], schema: JSONSchema | undefined, path: string): unknown[] {
  const strategy = listStrategy(schema);
  const items = itemSchema(schema);
  if (!strategy.merge) {
    return patch.flatMap((e, i) => {
      const v = freshElement(e, items, elementPath(path, i));
      return v === undefined ? [] : [v];
    });
  }
  if (strategy.mergeKey) return mergeKeyedList(current, patch, strategy.mergeKey, items, path);
  return mergePrimitiveList(current, patch, path);
}

function requirePrimitives(list: unknown[], path: string, what: string): void {
  list.forEach((e, i) => {
    if (!isPrimitive(e)) {
      throw badPatch(
        elementPath(path, i),
        `${what} may hold only primitive values (the list has no merge key), got ${show(e)}`,
      );
    }
  });
}

/** Union of the stored and patch values, duplicates dropped, ordered like upstream. */
function mergePrimitiveList(current: unknown[], patch: unknown[], path: string): unknown[] {
  requirePrimitives(patch, path, 'a list merged as a set');
  const id = identityOf(undefined);
  const seen = new Set<IdentityKey>();
  const merged: unknown[] = [];
  for (const list of [current, patch]) {
    for (const v of list) {
      const key = id(v)!;
      if (!seen.has(key)) {
        seen.add(key);
        merged.push(v);
      }
    }
  }
  const [inPatch, serverOnly] = partitionByPresence(merged, patch, id);
  return normalizeElementOrder(inPatch, serverOnly, patch, current, id);
}

/** Element-wise merge by `mergeKey`, with `$patch: delete` and `$patch: replace` elements. */
function mergeKeyedList(
  current: unknown[],
  patch: unknown[],
  mergeKey: string,
  items: JSONSchema | undefined,
  path: string,
): unknown[] {
  const id = identityOf(mergeKey);
  const deleted = new Set<IdentityKey>();
  let replace = false;
  const updates: JsonMap[] = [];
  patch.forEach((element, i) => {
    const at = elementPath(path, i);
    if (!isMap(element))
      throw badPatch(at, `elements of a list merged by "${mergeKey}" must be objects, got ${show(element)}`);
    const directive = element[PATCH_DIRECTIVE];
    const hasKey = mergeKey in element && element[mergeKey] !== null;
    if (directive === 'replace') {
      replace = true;
      return;
    }
    if (directive !== undefined && directive !== 'delete' && directive !== 'merge') {
      throw badPatch(
        at,
        `unknown patch type ${show(directive)} in list element; expected "delete", "replace" or "merge"`,
      );
    }
    // An explicit `$patch: merge` element without a key says nothing; upstream rejects it, accepting is harmless.
    if (directive === 'merge' && !hasKey) return;
    if (!hasKey) throw badPatch(at, `element ${show(element)} does not contain the merge key "${mergeKey}"`);
    if (directive === 'delete') deleted.add(id(element)!);
    else updates.push(directive === undefined ? element : withoutKey(element, PATCH_DIRECTIVE));
  });

  if (replace) return updates.map((u, i) => mergeFields({}, u, items, elementPath(path, i)));

  // Every deletion applies before any update, as upstream: a later element re-adding a deleted key adds it anew.
  const base = withoutIdentities(current, deleted, id);
  const merged = [...base];
  const positions = positionsOf(merged, id);
  updates.forEach((u, i) => {
    const key = id(u)!;
    const at = positions.get(key);
    if (at !== undefined) merged[at] = mergeFields(merged[at] as JsonMap, u, items, elementPath(path, i));
    else {
      positions.set(key, merged.length);
      merged.push(mergeFields({}, u, items, elementPath(path, i)));
    }
  });
  const [inPatch, serverOnly] = partitionByPresence(merged, updates, id);
  return normalizeElementOrder(inPatch, serverOnly, updates, base, id);
}

/** A merged list put in the order of its `$setElementOrder` directive; a stored value that is no list stays as is. */
function orderedList(
  current: unknown,
  patchList: unknown,
  order: unknown[],
  field: string,
  strategy: ListStrategy,
  schema: JSONSchema | undefined,
  path: string,
): unknown {
  if (patchList !== undefined && !Array.isArray(patchList)) {
    throw badPatch(path, `must be a list to go with $setElementOrder/${field}, got ${show(patchList)}`);
  }
  const id = identityOf(strategy.mergeKey);
  if (strategy.mergeKey) {
    const key = strategy.mergeKey;
    order.forEach((e) => {
      if (!isMap(e) || !(key in e))
        throw badPatch(
          path,
          `every $setElementOrder/${field} element must be an object with the merge key "${key}", got ${show(e)}`,
        );
    });
  } else {
    requirePrimitives(order, path, `$setElementOrder/${field}`);
  }
  const base = Array.isArray(current) ? current : undefined;
  if (base === undefined && patchList === undefined) return current;
  // Merging first reports a patch element without its merge key as such, not as an order mismatch.
  const merged = patchList === undefined ? (base ?? []) : mergeList(base ?? [], patchList, schema, path);
  validateOrderAgainstPatch(patchList ?? [], order, id, path, field);
  const [named, serverOnly] = partitionByPresence(merged, order, id);
  return normalizeElementOrder(named, serverOnly, order, base ?? [], id);
}

function deleteFromPrimitiveList(current: unknown, values: unknown, key: string, path: string): unknown {
  if (!Array.isArray(values)) throw badPatch(path, `${key} must be a list of values to delete, got ${show(values)}`);
  requirePrimitives(values, path, key);
  // Deleting from a missing or null list leaves it as it is (it never creates the list).
  if (!Array.isArray(current)) return current;
  // Any list, merged or not: upstream's current releases remove the values from lists without a strategy too.
  const id = identityOf(undefined);
  return withoutIdentities(current, identitiesOf(values, id), id);
}

/** Sets or (for undefined) removes a key of a map the caller owns; "__proto__" is a key like any other. */
function setField(map: JsonMap, key: string, value: unknown): void {
  if (value === undefined) delete map[key];
  else setOwn(map, key, value);
}

function withoutKey(map: JsonMap, key: string): JsonMap {
  if (!(key in map)) return map;
  const { [key]: _dropped, ...rest } = map;
  return rest;
}

/** `$retainKeys`: stored keys not listed are dropped; the patch itself may only set listed keys. */
function retainKeys(original: JsonMap, patch: JsonMap, path: string): JsonMap {
  const list = patch[RETAIN_KEYS];
  if (!Array.isArray(list) || !list.every((k) => typeof k === 'string')) {
    throw badPatch(path, `$retainKeys must be a list of field names, got ${show(list)}`);
  }
  const keep = new Set<string>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v !== null && !isDirectiveKey(k) && !keep.has(k)) {
      throw badPatch(path, `field "${k}" is set by the patch but missing from its $retainKeys list ${show(list)}`);
    }
  }
  return Object.fromEntries(Object.entries(original).filter(([k]) => keep.has(k)));
}
