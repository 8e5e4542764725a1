// Schema-driven walks over JSON objects for server-side apply: which paths an object sets, how two versions differ,
// how an applied configuration merges into the live object, and removing paths. The list and map semantics come from
// the kind's schema markers (x-kubernetes-list-type, -list-map-keys, -map-type), as structured-merge-diff reads them
// from OpenAPI: lists default to atomic, maps and objects to granular; fields the schema does not describe are
// treated as granular maps and atomic lists.
import type { JSONSchema } from '../../../api/schema.js';
import { isObject, ownValue } from '../../../api/meta/types.js';
import {
  FieldSet,
  fieldElement,
  indexElement,
  keyElement,
  valueElement,
  type FieldPath,
  type PathElement,
} from './field-set.js';
import { cloneJson, setOwn } from '../../../api/meta/clone.js';

type Json = unknown;
type JsonMap = Record<string, unknown>;

type Shape =
  | { kind: 'scalar' }
  | { kind: 'atomic' }
  | { kind: 'object'; schema?: JSONSchema }
  | { kind: 'set'; item?: JSONSchema }
  | { kind: 'map-list'; keys: string[]; item?: JSONSchema };

function parts(schema: JSONSchema | undefined): JSONSchema[] {
  if (!schema) return [];
  return [schema, ...(schema.allOf ?? []).flatMap(parts)];
}

/** What the walks read of a schema (its allOf parts merged), resolved once per schema node: every write walks. */
interface SchemaInfo {
  type?: JSONSchema['type'];
  intOrString: boolean;
  listType?: JSONSchema['x-kubernetes-list-type'];
  listMapKeys: string[];
  atomicMap: boolean;
  item?: JSONSchema;
  properties: Map<string, JSONSchema>;
  additional?: JSONSchema;
  shapes: { object: Shape; set: Shape; mapList: Shape };
}

const EMPTY_INFO: SchemaInfo = {
  intOrString: false,
  listMapKeys: [],
  atomicMap: false,
  properties: new Map(),
  shapes: { object: { kind: 'object' }, set: { kind: 'set' }, mapList: { kind: 'map-list', keys: [] } },
};
const infos = new WeakMap<JSONSchema, SchemaInfo>();

function infoOf(schema: JSONSchema | undefined): SchemaInfo {
  if (!schema) return EMPTY_INFO;
  let info = infos.get(schema);
  if (info) return info;
  const all = parts(schema);
  const marker = <K extends keyof JSONSchema>(key: K): JSONSchema[K] | undefined =>
    all.find((s) => s[key] !== undefined)?.[key];
  const properties = new Map<string, JSONSchema>();
  for (const s of all)
    for (const [k, v] of Object.entries(s.properties ?? {})) if (!properties.has(k)) properties.set(k, v);
  const item = all.find((s) => s.items)?.items;
  const listMapKeys = marker('x-kubernetes-list-map-keys') ?? [];
  info = {
    type: marker('type'),
    intOrString: !!marker('x-kubernetes-int-or-string'),
    listType: marker('x-kubernetes-list-type'),
    listMapKeys,
    atomicMap: marker('x-kubernetes-map-type') === 'atomic',
    item,
    properties,
    additional: all.map((s) => s.additionalProperties).find((a): a is JSONSchema => typeof a === 'object'),
    shapes: {
      object: { kind: 'object', schema },
      set: { kind: 'set', item },
      mapList: { kind: 'map-list', keys: listMapKeys, item },
    },
  };
  infos.set(schema, info);
  return info;
}

function childSchema(schema: JSONSchema | undefined, key: string): { schema?: JSONSchema; declared: boolean } {
  const info = infoOf(schema);
  const declared = info.properties.get(key);
  if (declared) return { schema: declared, declared: true };
  return { schema: info.additional, declared: false };
}

function hasProperties(schema: JSONSchema | undefined): boolean {
  return infoOf(schema).properties.size > 0;
}

const SCALAR: Shape = { kind: 'scalar' };
const ATOMIC: Shape = { kind: 'atomic' };

/** The shape a value has under its schema; without a schema the value's own type decides. */
function shapeOf(schema: JSONSchema | undefined, value: Json): Shape {
  const info = infoOf(schema);
  if (info.intOrString) return SCALAR;
  const type = info.type ?? (Array.isArray(value) ? 'array' : isObject(value) ? 'object' : undefined);
  if (type === 'array') {
    if (info.listType === 'set') return info.shapes.set;
    if (info.listType === 'map') return info.shapes.mapList;
    return ATOMIC;
  }
  if (type === 'object') return info.atomicMap ? ATOMIC : info.shapes.object;
  return SCALAR;
}

function isEmptyValue(v: Json): boolean {
  return (
    v === null ||
    v === undefined ||
    (Array.isArray(v) && v.length === 0) ||
    (isObject(v) && Object.keys(v).length === 0)
  );
}

/** The key of a keyed-list element; a key field missing from the element takes its schema default, if any. */
function listElement(shape: Shape, item: Json, index: number): PathElement {
  if (shape.kind === 'set') return valueElement(item);
  if (shape.kind === 'map-list' && isObject(item) && shape.keys.length > 0) {
    const keys: JsonMap = {};
    for (const k of shape.keys) {
      const v = item[k] ?? childSchema(shape.item, k).schema?.default;
      if (v !== undefined) keys[k] = v;
    }
    return keyElement(keys);
  }
  return indexElement(index);
}

/** Elements of a list by path element, first occurrence wins (as upstream ignores repeats). */
function indexList(shape: Shape, list: Json): { order: PathElement[]; byElement: Map<PathElement, Json> } {
  const order: PathElement[] = [];
  const byElement = new Map<PathElement, Json>();
  if (!Array.isArray(list)) return { order, byElement };
  list.forEach((item, i) => {
    const pe = listElement(shape, item, i);
    if (byElement.has(pe)) return;
    byElement.set(pe, item);
    order.push(pe);
  });
  return { order, byElement };
}

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && equal(a[k], b[k]));
  }
  return false;
}

/** Every path `value` sets: leaves, map entries, list elements, and atomic values as a whole. */
export function toFieldSet(value: Json, schema: JSONSchema | undefined): FieldSet {
  const set = new FieldSet();
  // One path array, pushed and popped: every write walks its whole object.
  const path: PathElement[] = [];
  const walk = (v: Json, s: JSONSchema | undefined): void => {
    const shape = shapeOf(s, v);
    if (shape.kind === 'scalar' || shape.kind === 'atomic' || isEmptyValue(v)) {
      set.insert(path);
      return;
    }
    if (shape.kind === 'object') {
      for (const key in v as JsonMap) {
        const { schema: cs, declared } = childSchema(shape.schema, key);
        path.push(fieldElement(key));
        walk((v as JsonMap)[key], cs);
        if (!declared) set.insert(path);
        path.pop();
      }
      return;
    }
    const { order, byElement } = indexList(shape, v);
    for (const pe of order) {
      path.push(pe);
      walk(byElement.get(pe), shape.item);
      set.insert(path);
      path.pop();
    }
  };
  if (isObject(value)) walk(value, schema);
  return set;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, path by path (structured-merge-diff's Compare). */
export function compare(lhs: Json, rhs: Json, schema: JSONSchema | undefined): Comparison {
  const result: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  const path: PathElement[] = [];
  const leaf = (l: Json, r: Json): void => {
    if (l === undefined) result.added.insert(path);
    else if (r === undefined) result.removed.insert(path);
    else if (!equal(l, r)) result.modified.insert(path);
  };
  const walk = (l: Json, r: Json, s: JSONSchema | undefined, isEntry: boolean): void => {
    // Shared subtrees (frozen stored objects reused by the update) cannot differ.
    if (l === r && l !== undefined) return;
    const shape = shapeOf(s, r ?? l);
    if (shape.kind === 'scalar' || shape.kind === 'atomic' || (isEmptyValue(l) && isEmptyValue(r))) {
      if (path.length > 0) leaf(l, r);
      return;
    }
    if (shape.kind === 'object') {
      const lm = isObject(l) ? l : {};
      const rm = isObject(r) ? r : {};
      const visit = (key: string) => {
        const { schema: cs, declared } = childSchema(shape.schema, key);
        path.push(fieldElement(key));
        walk(ownValue(lm, key), ownValue(rm, key), cs, !declared);
        path.pop();
      };
      for (const key in lm) visit(key);
      for (const key in rm) if (!Object.hasOwn(lm, key)) visit(key);
    } else {
      const left = indexList(shape, l);
      const right = indexList(shape, r);
      const visit = (pe: PathElement) => {
        path.push(pe);
        walk(left.byElement.get(pe), right.byElement.get(pe), shape.item, true);
        path.pop();
      };
      for (const pe of left.order) visit(pe);
      for (const pe of right.order) if (!left.byElement.has(pe)) visit(pe);
    }
    // A map, granular list, map entry or list element that appeared or went is itself a path (the `.` of
    // FieldsV1); a struct is not, since upstream's typed objects always carry their (non-pointer) structs.
    const nilable = isEntry || shape.kind !== 'object' || !hasProperties(shape.schema);
    if (nilable && path.length > 0 && (l === undefined || r === undefined)) leaf(l, r);
  };
  walk(lhs, rhs, schema, false);
  return result;
}

/** Merges an applied configuration into the live object: config values win, granular parts merge. */
export function merge(live: Json, config: Json, schema: JSONSchema | undefined): Json {
  if (config === undefined) return cloneJson(live);
  if (live === undefined || live === null) return cloneJson(config);
  const shape = shapeOf(schema, config);
  if (shape.kind === 'scalar' || shape.kind === 'atomic') return cloneJson(config);
  if (shape.kind === 'object') {
    if (!isObject(live) || !isObject(config)) return cloneJson(config);
    const out: JsonMap = {};
    // Own keys, read and set: a map may hold the key "__proto__" or "constructor" like any other.
    for (const key of new Set([...Object.keys(live), ...Object.keys(config)])) {
      setOwn(out, key, merge(ownValue(live, key), ownValue(config, key), childSchema(shape.schema, key).schema));
    }
    return out;
  }
  if (!Array.isArray(live) || !Array.isArray(config)) return cloneJson(config);
  return mergeLists(shape, live, config);
}

/**
 * Keyed and set lists keep the live order for elements the config does not mention, and take the config's order for
 * the ones it does (structured-merge-diff's interleaving).
 */
function mergeLists(shape: Shape, live: Json[], config: Json[]): Json[] {
  const item = shape.kind === 'set' || shape.kind === 'map-list' ? shape.item : undefined;
  const l = indexList(shape, live);
  const r = indexList(shape, config);
  const shared = r.order.filter((pe) => l.byElement.has(pe));
  let nextShared = 0;
  const out: Json[] = [];
  let li = 0;
  let ri = 0;
  while (li < l.order.length || ri < r.order.length) {
    if (li < l.order.length && ri < r.order.length) {
      const pe = l.order[li];
      if (pe === r.order[ri]) {
        out.push(merge(l.byElement.get(pe), r.byElement.get(pe), item));
        li++;
        ri++;
        nextShared++;
        continue;
      }
      if (r.byElement.has(pe) && nextShared < shared.length && shared[nextShared] !== pe) {
        li++;
        continue;
      }
    }
    if (li < l.order.length && !r.byElement.has(l.order[li])) {
      out.push(cloneJson(l.byElement.get(l.order[li])));
      li++;
      continue;
    }
    if (ri < r.order.length) {
      const pe = r.order[ri];
      out.push(merge(l.byElement.get(pe), r.byElement.get(pe), item));
      ri++;
      if (nextShared < shared.length && shared[nextShared] === pe) nextShared++;
      continue;
    }
    // A live element the config lists but that was already taken in the config's order.
    li++;
  }
  return out;
}

/**
 * Removes the given paths from `obj` in place (a path whose ancestor is removed goes with it). List elements are
 * found through one index per list and dropped together at the end, so removing many elements of a long list stays
 * linear.
 */
export function removePaths(obj: Json, paths: readonly FieldPath[], schema: JSONSchema | undefined): void {
  const lists = new Map<Json[], ListRemoval>();
  for (const path of paths) removePath(obj, path, schema, lists);
  for (const [list, { doomed }] of lists) {
    if (doomed.size === 0) continue;
    let kept = 0;
    for (let i = 0; i < list.length; i++) if (!doomed.has(i)) list[kept++] = list[i];
    list.length = kept;
  }
}

interface ListRemoval {
  /** First position of each element's path element. */
  positions: Map<PathElement, number>;
  doomed: Set<number>;
}

function removePath(obj: Json, path: FieldPath, schema: JSONSchema | undefined, lists: Map<Json[], ListRemoval>): void {
  let node: Json = obj;
  let s = schema;
  for (let i = 0; i < path.length; i++) {
    const pe = path[i];
    const last = i === path.length - 1;
    if (pe.startsWith('f:')) {
      if (!isObject(node)) return;
      const key = pe.slice(2);
      if (last) {
        delete node[key];
        return;
      }
      s = childSchema(s, key).schema;
      node = ownValue(node, key);
      continue;
    }
    if (!Array.isArray(node)) return;
    const shape = shapeOf(s, node);
    let removal = lists.get(node);
    if (removal === undefined) {
      const positions = new Map<PathElement, number>();
      node.forEach((item, n) => {
        const element = listElement(shape, item, n);
        if (!positions.has(element)) positions.set(element, n);
      });
      removal = { positions, doomed: new Set() };
      lists.set(node, removal);
    }
    const index = removal.positions.get(pe);
    if (index === undefined || removal.doomed.has(index)) return;
    if (last) {
      removal.doomed.add(index);
      return;
    }
    s = shape.kind === 'set' || shape.kind === 'map-list' ? shape.item : undefined;
    node = node[index];
  }
}
