// Printer columns shared by the kinds: the cells kube-apiserver's table printers (pkg/printers/internalversion)
// compute, so `kubectl get` prints the same thing against Gatehouse. The server always fills every cell, wide ones
// included; kubectl hides `priority: 1` columns unless asked for `-o wide`. Cells read objects through safe readers:
// a missing field gives upstream's placeholder, never an exception.
import type { KObject } from '../meta/types.js';
import type { TableColumn } from '../scheme.js';
import { labelSelectorFromObject } from '../meta/selectors.js';
import { parseQuantity } from '../meta/quantity.js';
import { asArr, asObj, asStr, type Obj } from './validation-helpers.js';

/** Walks nested objects; anything missing or not an object along the way gives undefined. */
export function pathOf(obj: unknown, ...keys: string[]): unknown {
  let at: unknown = obj;
  for (const key of keys) {
    const o = asObj(at);
    if (!o) return undefined;
    at = o[key];
  }
  return at;
}

/** A finite number, else 0 (the Go zero value the upstream printers would see). */
export const intOf = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
export const countKeys = (v: unknown): number => Object.keys(asObj(v) ?? {}).length;
/** printBoolPtr: `True`/`False`, `<unset>` for an absent optional boolean. */
export const boolText = (v: unknown): string => (typeof v === 'boolean' ? (v ? 'True' : 'False') : '<unset>');

/**
 * duration.HumanDuration: two significant units at most, coarser as the duration grows. Up to two seconds in the
 * future still reads `0s` (clock skew between machines); further is `<invalid>`.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** translateTimestampSince: the age of an RFC 3339 timestamp, `<unknown>` when it is unset or unreadable. */
export function ageOf(timestamp: unknown, now: number = Date.now()): string {
  const t = typeof timestamp === 'string' && timestamp !== '' ? Date.parse(timestamp) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(now - t);
}

/** metav1.FormatLabelSelector: requirements sorted by key; `<none>` for an empty or absent selector. */
export function formatLabelSelector(sel: unknown): string {
  const { selector, errors } = labelSelectorFromObject(sel);
  if (errors.length > 0) return '<error>';
  return selector.toString() || '<none>';
}

/** layoutContainerCells: container names and images of a pod template, each comma-joined in template order. */
export function containerCells(template: unknown): { names: string; images: string } {
  const containers = asArr(pathOf(template, 'spec', 'containers')).map((c) => asObj(c) ?? {});
  return {
    names: containers.map((c) => asStr(c.name) ?? '').join(','),
    images: containers.map((c) => asStr(c.image) ?? '').join(','),
  };
}

/** A quantity as resource.Quantity prints it; anything unparsable is shown as stored. */
function quantityText(v: unknown): string {
  if (typeof v !== 'string') return '0';
  try {
    return parseQuantity(v).canonical;
  } catch {
    return v;
  }
}

/**
 * The REQUEST and LIMIT cells of a ResourceQuota: `resource: used/hard` for every resource in status.hard, sorted
 * by name, `limits.*` in the limit cell and everything else (requests.*, plain names, counts) in the request cell.
 */
export function quotaSummary(obj: KObject): { request: string; limit: string } {
  const hard = asObj(pathOf(obj, 'status', 'hard')) ?? {};
  const used = asObj(pathOf(obj, 'status', 'used')) ?? {};
  const request: string[] = [];
  const limit: string[] = [];
  for (const resource of Object.keys(hard).sort()) {
    const pieces = resource.split('.');
    const into = pieces.length > 1 && pieces[0] === 'limits' ? limit : request;
    into.push(`${resource}: ${quantityText(used[resource])}/${quantityText(hard[resource])}`);
  }
  return { request: request.join(', '), limit: limit.join(', ') };
}

/** Node STATUS: the Ready condition (Ready, NotReady, or Unknown without one), plus SchedulingDisabled. */
export function nodeStatus(obj: KObject): string {
  const ready = asArr(pathOf(obj, 'status', 'conditions'))
    .map((c) => asObj(c) ?? {})
    .filter((c) => c.type === 'Ready')
    .at(-1);
  const status = [ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (pathOf(obj, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** Label prefix whose suffix names a role (`node-role.platform.io/control-plane: ""`). */
export const NODE_ROLE_PREFIX = 'node-role.platform.io/';
/** Older single-role label whose value names the role. */
export const NODE_ROLE_LABEL = 'platform.io/role';

/** Node ROLES: roles from both labels, deduplicated and sorted, comma-joined; `<none>` without any. */
export function nodeRoles(obj: KObject): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(asObj(pathOf(obj, 'metadata', 'labels')) ?? {})) {
    if (key.startsWith(NODE_ROLE_PREFIX) && key.length > NODE_ROLE_PREFIX.length)
      roles.add(key.slice(NODE_ROLE_PREFIX.length));
    else if (key === NODE_ROLE_LABEL && typeof value === 'string' && value !== '') roles.add(value);
  }
  return [...roles].sort().join(',') || '<none>';
}

/** The first status.addresses entry of one type, `<none>` without one. */
export function nodeAddress(obj: KObject, type: 'InternalIP' | 'ExternalIP'): string {
  const found = asArr(pathOf(obj, 'status', 'addresses'))
    .map((a) => asObj(a) ?? {})
    .find((a) => a.type === type);
  return asStr(found?.address) ?? '<none>';
}

/** A status.nodeInfo field; upstream prints `<unknown>` for the empty ones of the wide columns. */
export function nodeInfo(obj: KObject, field: string, empty = ''): string {
  return asStr(pathOf(obj, 'status', 'nodeInfo', field)) || empty;
}

/** rbac.SubjectsStrings: users, groups and `namespace/name` service accounts; other kinds are not shown. */
export function bindingSubjects(obj: KObject): { users: string[]; groups: string[]; serviceAccounts: string[] } {
  const out = { users: [] as string[], groups: [] as string[], serviceAccounts: [] as string[] };
  for (const s of asArr(obj.subjects).map((x): Obj => asObj(x) ?? {})) {
    const name = asStr(s.name) ?? '';
    if (s.kind === 'User') out.users.push(name);
    else if (s.kind === 'Group') out.groups.push(name);
    else if (s.kind === 'ServiceAccount') out.serviceAccounts.push(`${asStr(s.namespace) ?? ''}/${name}`);
  }
  return out;
}

export const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created.';

/** AGE, placed where upstream places it in each kind's column list. */
export const ageColumn: TableColumn = {
  name: 'Age',
  type: 'string',
  priority: 0,
  description: AGE_DESCRIPTION,
  cell: (obj) => ageOf(pathOf(obj, 'metadata', 'creationTimestamp')),
};

/** A column of type string (the type of almost every upstream column, whatever the cell holds). */
export function column(name: string, description: string, cell: TableColumn['cell'], priority = 0): TableColumn {
  return { name, type: 'string', priority, description, cell };
}

/** A column of counts; the cell is a JSON number. */
export function integerColumn(name: string, description: string, cell: (obj: KObject) => number): TableColumn {
  return { name, type: 'integer', priority: 0, description, cell };
}

/** The CONTAINERS, IMAGES and SELECTOR `-o wide` columns of workloads that own a pod template. */
export function podTemplateWideColumns(
  templateOf: (obj: KObject) => unknown,
  selectorOf: (obj: KObject) => unknown,
  selectorDescription: string,
): TableColumn[] {
  return [
    column('Containers', 'Names of each container in the template.', (obj) => containerCells(templateOf(obj)).names, 1),
    column(
      'Images',
      'Images referenced by each container in the template.',
      (obj) => containerCells(templateOf(obj)).images,
      1,
    ),
    column('Selector', selectorDescription, (obj) => formatLabelSelector(selectorOf(obj)), 1),
  ];
}

/** ROLE, AGE and the wide USERS, GROUPS, SERVICEACCOUNTS of RoleBinding and ClusterRoleBinding. */
export function bindingColumns(noun: 'roleBinding' | 'clusterRoleBinding', roleRefDescription: string): TableColumn[] {
  const joined = (pick: keyof ReturnType<typeof bindingSubjects>) => (obj: KObject) =>
    bindingSubjects(obj)[pick].join(', ');
  return [
    column(
      'Role',
      roleRefDescription,
      (obj) => `${asStr(pathOf(obj, 'roleRef', 'kind')) ?? ''}/${asStr(pathOf(obj, 'roleRef', 'name')) ?? ''}`,
    ),
    ageColumn,
    column('Users', `Users in the ${noun}`, joined('users'), 1),
    column('Groups', `Groups in the ${noun}`, joined('groups'), 1),
    column('ServiceAccounts', `ServiceAccounts in the ${noun}`, joined('serviceAccounts'), 1),
  ];
}
