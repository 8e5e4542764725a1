// Element order of merged lists. JSON lists are ordered, so a merge must decide where every element lands; these rules
// follow kube-apiserver (the "preserve order in strategic merge patch" design) so that kubectl apply leaves lists in the
// order of the manifest: the $setElementOrder list wins, then the order of the patch list, then the stored order for
// elements only the server knows. Elements are compared by identity: the merge-key value for lists of objects, the
// value itself for lists of primitives.
// Every step indexes the lists it consults by identity first, so a merge stays linear in the lists' lengths: a patch
// of 60,000 finalizers must not compare each element with every other.
import { canonicalJson } from '../../api/meta/canonical-json.js';
import { badPatch, isMap, PATCH_DIRECTIVE, show } from './strategic-merge-schema.js';

/**
 * What makes two elements "the same element": the merge-key value for lists of objects, the value itself for lists of
 * primitives; undefined when an element has no identity (no merge key). Identities are Map keys: primitives as they
 * are (a Map tells "1" from 1), and objects, which only malformed patches use as identities, as JSON with sorted keys
 * behind a NUL, so equal JSON values share a key. The rare string that starts with a NUL is quoted the same way.
 */
export type IdentityKey = string | number | boolean | null;
export type Identity = (item: unknown) => IdentityKey | undefined;

function identityKey(v: unknown): IdentityKey | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'object' && v !== null) return `\u0000${canonicalJson(v)}`;
  if (typeof v === 'string' && v.charCodeAt(0) === 0) return `\u0000${JSON.stringify(v)}`;
  return v as IdentityKey;
}

export function identityOf(mergeKey: string | undefined): Identity {
  if (!mergeKey) return identityKey;
  return (item) => (isMap(item) ? identityKey(item[mergeKey]) : undefined);
}

/** The first position of each identity in `list`. */
export function positionsOf(list: unknown[], id: Identity): Map<IdentityKey, number> {
  const at = new Map<IdentityKey, number>();
  list.forEach((item, i) => {
    const key = id(item);
    if (key !== undefined && !at.has(key)) at.set(key, i);
  });
  return at;
}

/** The identities present in `list`. */
export function identitiesOf(list: unknown[], id: Identity): Set<IdentityKey> {
  const keys = new Set<IdentityKey>();
  for (const item of list) {
    const key = id(item);
    if (key !== undefined) keys.add(key);
  }
  return keys;
}

function has(keys: Set<IdentityKey>, key: IdentityKey | undefined): boolean {
  return key !== undefined && keys.has(key);
}

/** Splits `items` into those present in `by` and the others, each keeping its relative order. */
export function partitionByPresence(items: unknown[], by: unknown[], id: Identity): [unknown[], unknown[]] {
  const wanted = identitiesOf(by, id);
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) (has(wanted, id(item)) ? present : absent).push(item);
  return [present, absent];
}

/** Keeps the elements of `list` whose identity is not in `doomed`. */
export function withoutIdentities(list: unknown[], doomed: Set<IdentityKey>, id: Identity): unknown[] {
  return doomed.size === 0 ? list : list.filter((item) => !has(doomed, id(item)));
}

function positionOf(positions: Map<IdentityKey, number>, item: unknown, id: Identity): number {
  const key = id(item);
  return key === undefined ? -1 : (positions.get(key) ?? -1);
}

/**
 * Stable sort by position in `order`. Upstream's comparator is not a strict order for elements missing from `order`;
 * those cannot occur for the lists kubectl builds, and here they keep their relative order after the others.
 */
function sortByOrder(items: unknown[], order: unknown[], id: Identity): unknown[] {
  const positions = positionsOf(order, id);
  return items
    .map((item, i) => ({ item, i, at: positionOf(positions, item, id) }))
    .sort((a, b) => (a.at < 0 ? Infinity : a.at) - (b.at < 0 ? Infinity : b.at) || a.i - b.i)
    .map((e) => e.item);
}

/**
 * Interleaves server-only elements (`left`) into the patch elements (`right`): a server-only element goes first only
 * when both elements are in the stored list and it came first there. Both inputs keep their relative order.
 */
function mergeSorted(left: unknown[], right: unknown[], serverOrder: unknown[], id: Identity): unknown[] {
  const positions = positionsOf(serverOrder, id);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = positionOf(positions, left[i], id);
      const ri = positionOf(positions, right[j], id);
      out.push(li >= 0 && ri >= 0 && li < ri ? left[i++] : right[j++]);
    }
  }
  return out;
}

/**
 * The final order of a merged list: patch elements sorted by `patchOrder`, server-only elements sorted by the stored
 * order, then the two interleaved by the stored order.
 */
export function normalizeElementOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: unknown[],
  serverOrder: unknown[],
  id: Identity,
): unknown[] {
  return mergeSorted(
    sortByOrder(serverOnly, serverOrder, id),
    sortByOrder(patchItems, patchOrder, id),
    serverOrder,
    id,
  );
}

/**
 * A $setElementOrder list must name every element the patch list adds or changes, in the same relative order
 * (deletions and other directive elements aside); anything else is a malformed patch.
 */
export function validateOrderAgainstPatch(
  patchList: unknown[],
  order: unknown[],
  id: Identity,
  path: string,
  field: string,
): void {
  const elements = patchList.filter((e) => !(isMap(e) && PATCH_DIRECTIVE in e));
  if (elements.length === 0 || order.length === 0) return;
  let p = 0;
  for (let o = 0; o < order.length && p < elements.length; o++) {
    if (id(elements[p]) === id(order[o])) p++;
  }
  if (p < elements.length) {
    throw badPatch(
      path,
      `the patch list ${show(patchList)} does not match the order in $setElementOrder/${field}: ${show(order)}`,
    );
  }
}
