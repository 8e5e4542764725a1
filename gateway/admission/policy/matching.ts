// Whether a write falls under a MatchResources (a policy's matchConstraints or a binding's narrowing), as upstream's
// generic policy matcher decides: exclude rules first, then the resource rules, the namespace and object selectors.
// Under matchPolicy Equivalent a rule naming the `*.k8s.io` alias of one of our groups matches a request in our group
// (and the other way round): they are one API served under two names. Under Exact only the group the request was
// made at matches, alias or not.
import { asArr, asObj, asStr, selectorMatches } from '../../../api/common/validation-helpers.js';

export interface MatchAttributes {
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** The kind's own group ('' for core). */
  group: string;
  /** Every other name the same API is served under (the kind's groupAliases). */
  groupAliases: readonly string[];
  /** The group the client's path named (`group` or one of its aliases): what Exact matches. */
  requestGroup: string;
  version: string;
  resource: string;
  subresource: string;
  namespaced: boolean;
  name: string;
}

function resourceMatches(patterns: unknown[], resource: string, subresource: string): boolean {
  return patterns.some((raw) => {
    const pattern = asStr(raw) ?? '';
    if (pattern === '*/*') return true;
    const [res, sub] = pattern.includes('/') ? pattern.split('/', 2) : [pattern, ''];
    if (res !== '*' && res !== resource) return false;
    return sub === '*' || sub === subresource;
  });
}

function listMatches(values: unknown[], wanted: readonly string[]): boolean {
  return values.some((v) => v === '*' || (typeof v === 'string' && wanted.includes(v)));
}

export function ruleMatches(rawRule: unknown, a: MatchAttributes, equivalent: boolean): boolean {
  const rule = asObj(rawRule) ?? {};
  if (!listMatches(asArr(rule.operations), [a.operation])) return false;
  const groups = equivalent ? [a.group, ...a.groupAliases] : [a.requestGroup];
  if (!listMatches(asArr(rule.apiGroups), groups)) return false;
  if (!listMatches(asArr(rule.apiVersions), [a.version])) return false;
  if (!resourceMatches(asArr(rule.resources), a.resource, a.subresource)) return false;
  const scope = asStr(rule.scope) ?? '*';
  if (scope === 'Cluster' && a.namespaced) return false;
  if (scope === 'Namespaced' && !a.namespaced) return false;
  const names = asArr(rule.resourceNames);
  return names.length === 0 || names.includes(a.name);
}

export interface SelectorInput {
  /** Labels of the request's namespace; undefined for cluster-scoped objects other than Namespaces. */
  namespaceLabels?: Record<string, string>;
  objectLabels?: Record<string, string>;
  oldObjectLabels?: Record<string, string>;
}

/** An empty selector (`{}`) or none at all selects everything. */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  const s = asObj(selector);
  if (!s || (asArr(s.matchExpressions).length === 0 && Object.keys(asObj(s.matchLabels) ?? {}).length === 0))
    return true;
  return selectorMatches(s, labels);
}

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
  // Cluster-scoped objects other than Namespaces are never filtered by the namespace selector, as upstream.
  if (labels.namespaceLabels !== undefined && !selects(m.namespaceSelector, labels.namespaceLabels)) return false;
  const objectSelects = [labels.objectLabels, labels.oldObjectLabels].some(
    (l) => l !== undefined && selects(m.objectSelector, l),
  );
  return objectSelects || (labels.objectLabels === undefined && labels.oldObjectLabels === undefined);
}
