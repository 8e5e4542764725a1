// The two computations quota rests on, free of I/O so they are unit-tested alone: the status the controller
// writes for a quota from what it observed in the namespace, and the charge admission makes for one new object.
import type { KObject } from '../../api/meta/types.js';
import { asStrMap, specOf, statusOf } from '../../api/common/validation-helpers.js';
import { hasScopes } from './resource-names.js';
import {
  addQuantities,
  canonicalQuantity,
  compareQuantityStrings,
  countQuantity,
  prettyPrint,
  type ResourceList,
} from './quantities.js';

export interface QuotaStatus {
  hard: ResourceList;
  used: ResourceList;
}

/**
 * What the namespace holds of one quota resource name: a count, or undefined when Gatehouse cannot measure the
 * name at all (a count of a kind it does not serve, an unknown name).
 */
export type Observe = (name: string) => number | undefined;

function sortedList(entries: Iterable<[string, string]>): ResourceList {
  return Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * The status the controller writes: hard = spec.hard; used = the observed amount of every hard name. A name it
 * cannot measure keeps the used value it had (as upstream's syncResourceQuota merges over the old status); used
 * holds hard's names only. `raiseOnly` never lowers a recorded value: after a create, admission has already charged
 * objects that may not be stored yet, and only a deletion (or a full resync) may give quota back.
 */
export function computeQuotaStatus(quota: KObject, observe: Observe, opts: { raiseOnly?: boolean } = {}): QuotaStatus {
  const hard = sortedList(Object.entries(asStrMap(specOf(quota).hard)).map(([k, v]) => [k, canonicalQuantity(v)]));
  const previous = asStrMap(statusOf(quota).used);
  const scoped = hasScopes(quota);
  const used: [string, string][] = [];
  for (const name of Object.keys(hard)) {
    const seen = observe(name);
    const before = previous[name];
    if (seen === undefined) {
      if (before !== undefined) used.push([name, canonicalQuantity(before)]);
      continue;
    }
    // A scoped quota matches no object of the kinds Gatehouse serves: the usage it tracks is 0.
    const now = countQuantity(scoped ? 0 : seen);
    const keep = opts.raiseOnly && before !== undefined && compareQuantityStrings(before, now) > 0;
    used.push([name, keep ? canonicalQuantity(before) : now]);
  }
  return { hard, used: sortedList(used) };
}

/** Why admission refuses a create: the text after `<resource> "<name>" is forbidden: `. */
export class QuotaDenied extends Error {}

/**
 * Checks one new object (consuming 1 of each of `names`) against one quota's status, as upstream's
 * CheckRequest does: undefined when the quota does not constrain it (scoped, or none of the names in
 * status.hard); the new status.used otherwise. Throws QuotaDenied when the usage is unknown or would exceed hard.
 */
export function chargeCreate(quota: KObject, names: readonly string[]): ResourceList | undefined {
  if (hasScopes(quota)) return undefined;
  const status = statusOf(quota);
  const hard = asStrMap(status.hard);
  const used = asStrMap(status.used);
  const restricted = names.filter((n) => n in hard);
  if (restricted.length === 0) return undefined;
  const quotaName = quota.metadata.name ?? '';
  // hasUsageStats: the controller has not measured this quota yet, so nothing can be decided.
  const unknown = restricted.filter((n) => !(n in used));
  if (unknown.length > 0)
    throw new QuotaDenied(`status unknown for quota: ${quotaName}, resources: ${[...restricted].sort().join(',')}`);
  const next: ResourceList = { ...used };
  const exceeded: string[] = [];
  for (const name of restricted) {
    next[name] = addQuantities(used[name], '1');
    if (compareQuantityStrings(next[name], hard[name]) > 0) exceeded.push(name);
  }
  if (exceeded.length > 0) {
    const pick = (list: ResourceList): ResourceList => Object.fromEntries(exceeded.map((n) => [n, list[n]]));
    const requested = Object.fromEntries(exceeded.map((n) => [n, countQuantity(1)]));
    throw new QuotaDenied(
      `exceeded quota: ${quotaName}, requested: ${prettyPrint(requested)}, used: ${prettyPrint(pick(used))}, limited: ${prettyPrint(pick(hard))}`,
    );
  }
  return sortedList(Object.entries(next));
}
