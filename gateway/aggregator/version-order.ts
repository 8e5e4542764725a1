// The orders kube-aggregator lists group-versions in: groups by groupPriorityMinimum (higher first) then name, the
// versions of a group by versionPriority (higher first) then the kube-aware version order (GA before beta before
// alpha, then the higher major, then the higher minor; names outside that scheme last, in string order).

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STABILITY: Record<string, number> = { alpha: 0, beta: 1, '': 2 };

/** Positive when `a` sorts before `b` (is the more preferred), negative when after, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const ma = KUBE_VERSION.exec(a);
  const mb = KUBE_VERSION.exec(b);
  if (!ma && !mb) return a < b ? 1 : -1;
  if (!ma) return -1;
  if (!mb) return 1;
  const stability = STABILITY[ma[2] ?? ''] - STABILITY[mb[2] ?? ''];
  if (stability !== 0) return stability;
  const major = Number(ma[1]) - Number(mb[1]);
  if (major !== 0) return major;
  return Number(ma[3] ?? 0) - Number(mb[3] ?? 0);
}

export interface Prioritized {
  group: string;
  version: string;
  groupPriority: number;
  versionPriority: number;
}

/** Versions of one group, the preferred one first. */
export function byVersionPriority<T extends Prioritized>(versions: T[]): T[] {
  return [...versions].sort(
    (a, b) => b.versionPriority - a.versionPriority || compareKubeAwareVersions(b.version, a.version),
  );
}

/**
 * Group-versions gathered by group, groups in aggregated discovery's order: a group's priority is the highest of its
 * versions', ties broken by group name.
 */
export function groupsByPriority<T extends Prioritized>(gvs: T[]): { group: string; versions: T[] }[] {
  const byGroup = new Map<string, T[]>();
  for (const gv of gvs) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
  const top = (versions: T[]): number => Math.max(...versions.map((v) => v.groupPriority));
  return [...byGroup.entries()]
    .sort(([ga, va], [gb, vb]) => top(vb) - top(va) || (ga < gb ? -1 : ga > gb ? 1 : 0))
    .map(([group, versions]) => ({ group, versions: byVersionPriority(versions) }));
}

/**
 * The legacy /apis order, as kube-aggregator's apisHandler builds it: APIServices by groupPriorityMinimum, ties by
 * APIService name (`<version>.<group>`), each group placed where its first APIService falls.
 */
export function groupsByAPIServiceOrder<T extends Prioritized>(gvs: T[]): { group: string; versions: T[] }[] {
  const name = (gv: T): string => `${gv.version}.${gv.group}`;
  const sorted = [...gvs].sort(
    (a, b) => b.groupPriority - a.groupPriority || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0),
  );
  const byGroup = new Map<string, T[]>();
  for (const gv of sorted) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
  return [...byGroup.entries()].map(([group, versions]) => ({ group, versions: byVersionPriority(versions) }));
}
