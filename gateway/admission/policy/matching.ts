// Whether a write falls under a MatchResources (a policy's matchConstraints or a binding's narrowing), as upstream's
// generic policy matcher decides: exclude rules first, then the resource rules, the namespace and object selectors.
import { asArr, asObj } from '../../../api/common/validation-helpers.js';
import { ruleMatches, selectorsMatch, type MatchAttributes, type SelectorInput } from '../match-rules.js';

export type { MatchAttributes, SelectorInput };

/**
 * `emptyRulesMatchAll`: a binding's matchResources without resourceRules narrows only by its selectors and excludes;
 * a policy's matchConstraints must name its resources.
 */
export function matchResourcesMatch(
  raw: unknown,
  a: MatchAttributes,
  labels: SelectorInput,
  emptyRulesMatchAll: boolean,
): boolean {
  const m = asObj(raw) ?? {};
  const equivalent = m.matchPolicy !== 'Exact';
  if (asArr(m.excludeResourceRules).some((r) => ruleMatches(r, a, equivalent))) return false;
  const rules = asArr(m.resourceRules);
  if (!(rules.length === 0 ? emptyRulesMatchAll : rules.some((r) => ruleMatches(r, a, equivalent)))) return false;
  return selectorsMatch(m.namespaceSelector, m.objectSelector, labels);
}
