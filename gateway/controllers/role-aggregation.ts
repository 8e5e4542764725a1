// The role-aggregation controller: a ClusterRole with aggregationRule.clusterRoleSelectors gets as rules the union
// of the rules of every other ClusterRole matching one of its selectors: matching roles in name order, each rule
// once, so every replica computes the same list. It watches ClusterRoles and recomputes on every change, so a
// labelled role appearing, changing or going away shows in the aggregate; hand-written rules are replaced.
import type { KObject } from '../../api/meta/types.js';
import { labelSelectorFromObject } from '../../api/meta/selectors.js';
import { isStatusError } from '../../api/meta/errors.js';
import { RBAC_GROUP, type PolicyRule, type RoleObject } from '../../policies/rbac/types.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { startCachedReconciler } from './cached-reconciler.js';
import type { Controller } from './namespace-lifecycle.js';
import { canonicalJson as canonical } from '../../api/meta/canonical-json.js';
import { cloneJson } from '../../api/meta/clone.js';

/** The rules `role` aggregates from `all`, or undefined when it has no aggregationRule. */
export function aggregatedRules(role: RoleObject, all: Iterable<RoleObject>): PolicyRule[] | undefined {
  const raw = role.aggregationRule?.clusterRoleSelectors;
  if (!role.aggregationRule) return undefined;
  const selectors = (raw ?? []).map((s) => labelSelectorFromObject(s).selector);
  const matching = [...all]
    .filter((r) => r.metadata.name !== role.metadata.name)
    .filter((r) => selectors.some((s) => s.matches(r.metadata.labels)))
    .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const seen = new Set<string>();
  const rules: PolicyRule[] = [];
  for (const r of matching) {
    for (const rule of r.rules ?? []) {
      const key = canonical(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(cloneJson(rule));
    }
  }
  return rules;
}

export function startRoleAggregationController(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number },
): Controller {
  const store = registry.byKind(RBAC_GROUP, 'ClusterRole');
  if (!store) return { async stop() {} };
  return startCachedReconciler(
    store,
    async (objects, stopped) => {
      const roles = [...objects.values()] as RoleObject[];
      let ok = true;
      for (const role of roles) {
        if (stopped()) return true;
        const rules = aggregatedRules(role, roles);
        if (!rules || canonical(rules) === canonical(role.rules ?? [])) continue;
        try {
          await store.patch(
            '',
            role.metadata.name ?? '',
            (current: KObject) => ({ ...current, rules }),
            internalWrite(),
            '',
          );
        } catch (e) {
          if (isStatusError(e) && e.code === 404) continue;
          ok = false;
          opts.log(`error: role aggregation: clusterrole ${role.metadata.name}: ${(e as Error).message}`);
        }
      }
      return ok;
    },
    { log: opts.log, retryMs: opts.retryMs ?? 500 },
  );
}
