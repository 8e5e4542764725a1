// Element order of merged lists. JSON lists are ordered, so a merge must decide where every element lands; these rules
// follow kube-apiserver (the "preserve order in strategic merge patch" design) so that kubectl apply leaves lists in the
// order of the manifest: the $setElementOrder list wins, then the order of the patch list, then the stored order for
// elements only the server knows. Elements are compared by identity: the merge-key value for lists of objects, the
// value itself for lists of primitives.
import { badPatch, isMap, PATCH_DIRECTIVE, sameValue, show } from './strategic-merge-schema.js';

/** What makes two elements "the same element": undefined when an element has no identity (no merge key). */
export type Identity = (item: unknown) => unknown;

export function identityOf(mergeKey: string | undefined): Identity {
  if (!mergeKey) return (item) => item;
  return (item) => (isMap(item) ? item[mergeKey] : undefined);
}

export function indexIn(list: unknown[], item: unknown, id: Identity): number {
  const wanted = id(item);
  if (wanted === undefined) return -1;
  return list.findIndex((other) => {
    const v = id(other);
    return v !== undefined && sameValue(v, wanted);
  });
}

/** Splits `items` into those present in `by` and the others, each keeping its relative order. */
export function partitionByPresence(items: unknown[], by: unknown[], id: Identity): [unknown[], unknown[]] {
  const present: unknown[] = [];
  const absent: unknown[] = [];
  for (const item of items) (indexIn(by, item, id) >= 0 ? present : absent).push(item);
  return [present, absent];
}

/**
 * Stable sort by position in `order`. Upstream's comparator is not a strict order for elements missing from `order`;
 * those cannot occur for the lists kubectl builds, and here they keep their relative order after the others.
 */
function sortByOrder(items: unknown[], order: unknown[], id: Identity): unknown[] {
  return items
    .map((item, i) => ({ item, i, at: indexIn(order, item, id) }))
    .sort((a, b) => (a.at < 0 ? Infinity : a.at) - (b.at < 0 ? Infinity : b.at) || a.i - b.i)
    .map((e) => e.item);
}

/**
 * Interleaves server-only elements (`left`) into the patch elements (`right`): a server-only element goes first only
 * when both elements are in the stored list and it came first there. Both inputs keep their relative order.
 */
function mergeSorted(left: unknown[], right: unknown[], serverOrder: unknown[], id: Identity): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexIn(serverOrder, left[i], id);
      const ri = indexIn(serverOrder, right[j], id);
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
  patchItems: unknown[], serverOnly: unknown[], patchOrder: unknown[], serverOrder: unknown[], id: Identity,
): unknown[] {
  return mergeSorted(sortByOrder(serverOnly, serverOrder, id), sortByOrder(patchItems, patchOrder, id), serverOrder, id);
}

/**
 * A $setElementOrder list must name every element the patch list adds or changes, in the same relative order
 * (deletions and other directive elements aside); anything else is a malformed patch.
 */
export function validateOrderAgainstPatch(patchList: unknown[], order: unknown[], id: Identity, path: string, field: string): void {
  const elements = patchList.filter((e) => !(isMap(e) && PATCH_DIRECTIVE in e));
  if (elements.length === 0 || order.length === 0) return;
  let p = 0;
  for (let o = 0; o < order.length && p < elements.length; o++) {
    if (sameValue(id(elements[p]), id(order[o]))) p++;
  }
  if (p < elements.length) {
    throw badPatch(path, `the patch list ${show(patchList)} does not match the order in $setElementOrder/${field}: ${show(order)}`);
  }
}
