// The quota resource names Gatehouse knows, after upstream's evaluator registry (pkg/quota/v1/evaluator/core):
// every served namespaced kind is counted by a generic object-count evaluator under `count/<resource>[.<group>]`,
// and three core kinds also under their legacy names. The pod, service and PVC evaluators own further names
// (cpu, memory, pods, services, requests.storage...) that a Gatehouse namespace can never consume, since none of
// those kinds is served: upstream reports them as 0 in such a namespace, and so does Gatehouse.
import { ownValue, type KObject } from '../../api/meta/types.js';
import { asArr, asObj, specOf } from '../../api/common/validation-helpers.js';

/** Core resources upstream still counts under the name it used before `count/<resource>` existed. */
const LEGACY_ALIASES: Record<string, string> = {
  configmaps: 'configmaps',
  resourcequotas: 'resourcequotas',
  secrets: 'secrets',
};

/** `count/configmaps`, `count/replicasets.apps`: the generic object-count name of a group/resource. */
export function objectCountName(group: string, resource: string): string {
  return group ? `count/${resource}.${group}` : `count/${resource}`;
}

/** Every quota name one object of this group/resource consumes (1 each). */
export function countedNames(group: string, resource: string): string[] {
  const names = [objectCountName(group, resource)];
  const alias = group === '' ? ownValue(LEGACY_ALIASES, resource) : undefined;
  if (alias) names.push(alias);
  return names;
}

/** Names upstream's pod evaluator owns (podResources). */
const POD_NAMES = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'pods',
  'count/pods',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
]);
/** Names of the service and PVC evaluators, and of replication controllers (a legacy alias, never served here). */
const OTHER_UNSERVED_NAMES = new Set([
  'services',
  'services.nodeports',
  'services.loadbalancers',
  'count/services',
  'persistentvolumeclaims',
  'requests.storage',
  'count/persistentvolumeclaims',
  'replicationcontrollers',
  'count/replicationcontrollers',
]);
const STORAGE_CLASS_SUFFIXES = [
  '.storageclass.storage.k8s.io/persistentvolumeclaims',
  '.storageclass.storage.k8s.io/requests.storage',
];
const QUALIFIED_NAME =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;

/** `requests.example.com/gpu`: an extended resource, quota-able only with the requests prefix (as upstream). */
function isExtendedRequest(name: string): boolean {
  if (!name.startsWith('requests.')) return false;
  const rest = name.slice('requests.'.length);
  // Native resources have no domain, or one under kubernetes.io.
  if (!rest.includes('/') || rest.includes('kubernetes.io/') || rest.startsWith('requests.')) return false;
  return QUALIFIED_NAME.test(name) && name.split('/')[1].length <= 63;
}

/** Whether upstream would report 0 for this name in a namespace that holds no pods, services or PVCs. */
export function isUnservedEvaluatorName(name: string): boolean {
  return (
    POD_NAMES.has(name) ||
    OTHER_UNSERVED_NAMES.has(name) ||
    name.startsWith('hugepages-') ||
    name.startsWith('requests.hugepages-') ||
    isExtendedRequest(name) ||
    STORAGE_CLASS_SUFFIXES.some((s) => name.endsWith(s) && name.length > s.length)
  );
}

/**
 * Whether the quota restricts itself to scopes. Upstream's object-count evaluators support no scope
 * (MatchesNoScopeFunc): such a quota never matches an object, so it charges nothing and counts 0.
 */
export function hasScopes(quota: KObject): boolean {
  const spec = specOf(quota);
  return asArr(spec.scopes).length > 0 || asArr(asObj(spec.scopeSelector)?.matchExpressions).length > 0;
}
