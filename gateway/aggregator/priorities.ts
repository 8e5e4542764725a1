// The discovery order of the group-versions Gatehouse serves itself, as the groupPriorityMinimum and
// versionPriority of their Local APIServices. Upstream's groups take the numbers kube-apiserver's autoregistration
// gives them (its table of built-in group-versions); a `*.platform.io` group takes the numbers of the `*.k8s.io`
// group it stands for, one higher on the group so that it sorts just ahead of its alias, as discovery lists it.

export interface GroupVersionRef {
  group: string;
  version: string;
}

export interface APIServicePriority {
  group: number;
  version: number;
}

const UPSTREAM: Record<string, APIServicePriority> = {
  '/v1': { group: 18000, version: 1 },
  // Not in kube-apiserver's table (the aggregator serves the group itself); these are the numbers its
  // v1.apiregistration.k8s.io APIService carries.
  'apiregistration.k8s.io/v1': { group: 18000, version: 15 },
  'apps/v1': { group: 17800, version: 15 },
  'events.k8s.io/v1': { group: 17750, version: 15 },
  'authentication.k8s.io/v1': { group: 17700, version: 15 },
  'authentication.k8s.io/v1beta1': { group: 17700, version: 9 },
  'authorization.k8s.io/v1': { group: 17600, version: 15 },
  'autoscaling/v1': { group: 17500, version: 15 },
  'batch/v1': { group: 17400, version: 15 },
  'networking.k8s.io/v1': { group: 17200, version: 15 },
  'rbac.authorization.k8s.io/v1': { group: 17000, version: 15 },
  'admissionregistration.k8s.io/v1': { group: 16700, version: 15 },
  'apiextensions.k8s.io/v1': { group: 16700, version: 15 },
  'flowcontrol.apiserver.k8s.io/v1': { group: 16100, version: 21 },
};

const PLATFORM_SUFFIX = '.platform.io';

/** The priorities of a group-version served here, or undefined for one the table does not know. */
export function priorityOf({ group, version }: GroupVersionRef): APIServicePriority | undefined {
  const upstream = UPSTREAM[`${group}/${version}`];
  if (upstream) return upstream;
  if (!group.endsWith(PLATFORM_SUFFIX)) return undefined;
  const alias = UPSTREAM[`${group.slice(0, -PLATFORM_SUFFIX.length)}.k8s.io/${version}`];
  return alias && { group: alias.group + 1, version: alias.version };
}
