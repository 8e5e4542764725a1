// From the names a policy writes to the registry's kinds: its paramKind (group, alias group or version as written),
// and the exact group/version/resource triples of its matchConstraints, which type checking checks against.
import type { KindDefinition } from '../../../api/scheme.js';
import { asArr, asObj, asStr } from '../../../api/common/validation-helpers.js';
import { parseApiVersion } from '../../../api/proto/object-codec.js';

/** A store, or anything else that tells of a served kind. */
export interface Served {
  readonly def: KindDefinition;
}

const inGroup = (def: KindDefinition, group: string) => def.group === group || (def.groupAliases ?? []).includes(group);

/** The store of a paramKind, in its group or an alias of it; the version as written when served, else any. */
export function storeOfParamKind<S extends Served>(
  stores: readonly S[],
  paramKind: { apiVersion: string; kind: string },
): S | undefined {
  const { group, version } = parseApiVersion(paramKind.apiVersion);
  const candidates = stores.filter((s) => s.def.kind === paramKind.kind && inGroup(s.def, group));
  return candidates.find((s) => s.def.version === version) ?? candidates[0];
}

export interface MatchedKind {
  /** As upstream prints a GroupVersionKind, in the group the rule names: `apps/v1, Kind=Deployment`. */
  gvk: string;
  group: string;
  version: string;
  def: KindDefinition;
}

/** Upstream checks at most this many kinds per policy. */
const MAX_KINDS = 10;

/**
 * The kinds a policy's resourceRules name exactly, sorted by group, version and kind. As upstream: a rule with a
 * wildcard group or version names none, and wildcard resources and subresources are skipped.
 */
export function kindsOfRules(stores: readonly Served[], matchConstraints: unknown): MatchedKind[] {
  const found = new Map<string, MatchedKind>();
  for (const raw of asArr(asObj(matchConstraints)?.resourceRules)) {
    const rule = asObj(raw) ?? {};
    const groups = asArr(rule.apiGroups).map((g) => asStr(g) ?? '');
    const versions = asArr(rule.apiVersions).map((v) => asStr(v) ?? '');
    if (groups.some((g) => g.includes('*')) || versions.some((v) => v.includes('*'))) continue;
    const resources = asArr(rule.resources)
      .map((r) => asStr(r) ?? '')
      .filter((r) => !/[*/]/.test(r));
    for (const group of [...groups].sort())
      for (const version of [...versions].sort())
        for (const resource of [...resources].sort()) {
          const store = stores.find(
            (s) => s.def.resource === resource && s.def.version === version && inGroup(s.def, group),
          );
          if (!store) continue;
          const gvk = `${group}/${version}, Kind=${store.def.kind}`;
          found.set(gvk, { gvk, group, version, def: store.def });
          if (found.size === MAX_KINDS) return sortKinds(found);
        }
  }
  return sortKinds(found);
}

function sortKinds(found: Map<string, MatchedKind>): MatchedKind[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...found.values()].sort(
    (a, b) => cmp(a.group, b.group) || cmp(a.version, b.version) || cmp(a.def.kind, b.def.kind),
  );
}
