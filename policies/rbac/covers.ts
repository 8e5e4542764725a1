// Whether one set of rules covers another (upstream's rbac validation Covers): the escalation checks compare what
// a user holds with what a role or binding would grant. Requested rules are broken into single-permission pieces,
// each of which some held rule must cover on its own.
import type { PolicyRule } from './types.js';
import { ALL } from './rule-matching.js';

/** One rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0)
          for (const n of names)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [n] });
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

const has = (set: readonly string[] | undefined, v: string): boolean => (set ?? []).includes(v);
const hasAll = (set: readonly string[] | undefined, values: readonly string[] | undefined): boolean =>
  (values ?? []).every((v) => has(set, v));

function resourcesCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, ALL) || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0 || !has(owner, `*${path.slice(slash)}`)) return false;
  }
  return true;
}

function urlCovers(owner: string, wanted: string): boolean {
  return owner === wanted || (owner.endsWith('*') && wanted.startsWith(owner.replace(/\*+$/, '')));
}

function urlsCover(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((w) => (owner ?? []).some((o) => urlCovers(o, w)));
}

export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const ownerNames = owner.resourceNames ?? [];
  const names =
    (sub.resourceNames ?? []).length === 0
      ? ownerNames.length === 0
      : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return (
    verbs &&
    groups &&
    resourcesCover(owner.resources, sub.resources) &&
    names &&
    urlsCover(owner.nonResourceURLs, sub.nonResourceURLs)
  );
}

/** The pieces of `wanted` that no rule of `held` covers (empty: covered). */
export function uncovered(held: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  return wanted.flatMap(breakdownRule).filter((sub) => !held.some((h) => ruleCovers(h, sub)));
}

/** Merges single-verb pieces that differ only in the verb, so a message lists `Verbs:["get" "list"]` once. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const byTarget = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = JSON.stringify([r.apiGroups ?? [], r.resources ?? [], r.resourceNames ?? [], r.nonResourceURLs ?? []]);
    const seen = byTarget.get(key);
    if (seen) {
      for (const v of r.verbs) if (!seen.verbs.includes(v)) seen.verbs.push(v);
    } else {
      byTarget.set(key, { ...r, verbs: [...r.verbs] });
    }
  }
  return [...byTarget.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/** upstream's CompactString: `{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}`. */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if (r.apiGroups?.length) parts.push(`APIGroups:${goQuoteList(r.apiGroups)}`);
  if (r.resources?.length) parts.push(`Resources:${goQuoteList(r.resources)}`);
  if (r.nonResourceURLs?.length) parts.push(`NonResourceURLs:${goQuoteList(r.nonResourceURLs)}`);
  if (r.resourceNames?.length) parts.push(`ResourceNames:${goQuoteList(r.resourceNames)}`);
  if (r.verbs?.length) parts.push(`Verbs:${goQuoteList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
