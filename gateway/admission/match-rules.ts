// What ValidatingAdmissionPolicy and the admission webhooks match a write by, as upstream's shared rule and selector
// matchers do: a rule (operations, groups, versions, resources with `*`, `*/*`, `*/status`, scope), the namespace
// selector (on the labels of the request's namespace) and the object selector (on the old or the new object's
// labels). Under matchPolicy Equivalent a rule naming the `*.k8s.io` alias of one of our groups matches a request in
// our group (and the other way round): they are one API served under two names. Under Exact only the group the
// request was made at matches, alias or not.
import { asArr, asObj, asStr, selectorMatches } from '../../api/common/validation-helpers.js';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Registry } from '../registry/registry.js';

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
export function selects(selector: unknown, labels: Record<string, string>): boolean {
  const s = asObj(selector);
  if (!s || (asArr(s.matchExpressions).length === 0 && Object.keys(asObj(s.matchLabels) ?? {}).length === 0))
    return true;
  return selectorMatches(s, labels);
}

/** The namespace and object selectors of one match, on the labels `selectorInput` gathered. */
export function selectorsMatch(namespaceSelector: unknown, objectSelector: unknown, labels: SelectorInput): boolean {
  // Cluster-scoped objects other than Namespaces are never filtered by the namespace selector, as upstream.
  if (labels.namespaceLabels !== undefined && !selects(namespaceSelector, labels.namespaceLabels)) return false;
  if (labels.objectLabels === undefined && labels.oldObjectLabels === undefined) return true;
  return [labels.objectLabels, labels.oldObjectLabels].some((l) => l !== undefined && selects(objectSelector, l));
}

const labelsOf = (o: KObject | undefined) => (o ? (o.metadata.labels ?? {}) : undefined);

const isNamespace = (def: KindDefinition) => def.group === '' && def.kind === 'Namespace';

/** A Namespace is matched by the namespace selector on its own labels, as upstream. */
export function selectorInput(
  def: KindDefinition,
  namespaceObject: KObject | undefined,
  object: KObject | undefined,
  oldObject: KObject | undefined,
): SelectorInput {
  return {
    namespaceLabels: def.namespaced
      ? (namespaceObject?.metadata.labels ?? {})
      : isNamespace(def)
        ? labelsOf(object ?? oldObject)
        : undefined,
    objectLabels: labelsOf(object),
    oldObjectLabels: labelsOf(oldObject),
  };
}

/** The Namespace object of a namespaced write, undefined when there is none (or it cannot be read). */
export async function namespaceObjectOf(
  registry: Registry,
  req: { def: KindDefinition; namespace: string },
): Promise<KObject | undefined> {
  if (!req.def.namespaced || req.namespace === '') return undefined;
  try {
    // From the storage's cache, as upstream reads it from its namespace informer: no consistent read per write.
    return await registry.byKind('', 'Namespace')?.get('', req.namespace, { match: 'any' });
  } catch {
    return undefined;
  }
}
