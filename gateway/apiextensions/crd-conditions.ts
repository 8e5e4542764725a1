// What a CustomResourceDefinition's status should say, as upstream's naming, establishing and API-approval
// controllers decide it: which of its names it may use (none another definition of the group accepted first, none a
// kind served here in that group has; of two that came to hold one name at once, the one that precedes keeps it),
// NamesAccepted, Established once the names are accepted, and
// KubernetesAPIApprovalPolicyConformant in protected groups. A pure function of the definition and the names taken,
// so every replica comes to the same answer.
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { asObj, asStr } from '../../api/common/validation-helpers.js';
import {
  crdCondition,
  crdConditionsOf,
  crdSpecOf,
  namesOf,
  type CRDCondition,
  type CRDNames,
} from '../../api/apiextensions/v1/crd-types.js';
import { approvalState, isProtectedGroup } from '../../api/apiextensions/v1/api-approval.js';

/** Resource names (plural, singular, short) and kinds (kind, list kind) taken in one group. */
export interface NamePool {
  resources: Set<string>;
  kinds: Set<string>;
}

/**
 * The names others hold in a definition's group: `all` of them, and those held by kinds served here or by
 * definitions that precede it (older, or as old with a smaller name). A name two definitions came to hold at once
 * (each accepted by a different replica) stays with the one that precedes: the other lets it go.
 */
export interface TakenNames {
  all: NamePool;
  preceding: NamePool;
}

const emptyPool = (): NamePool => ({ resources: new Set(), kinds: new Set() });

/** The names the kinds served here hold in each of their group names (aliases included), by group. */
export function builtinNames(defs: readonly KindDefinition[]): Map<string, NamePool> {
  const byGroup = new Map<string, NamePool>();
  for (const def of defs)
    for (const group of [def.group, ...(def.groupAliases ?? [])]) {
      const taken = byGroup.get(group) ?? emptyPool();
      byGroup.set(group, taken);
      for (const r of [def.resource, def.singular, ...(def.shortNames ?? [])]) taken.resources.add(r);
      taken.kinds.add(def.kind).add(`${def.kind}List`);
    }
  return byGroup;
}

function precedes(a: KObject, b: KObject): boolean {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  return ta !== tb ? ta < tb : (a.metadata.name ?? '') < (b.metadata.name ?? '');
}

function addAccepted(pool: NamePool, other: KObject): void {
  const accepted = namesOf(asObj(other.status)?.acceptedNames);
  for (const r of [accepted.plural, accepted.singular, ...accepted.shortNames]) if (r) pool.resources.add(r);
  for (const k of [accepted.kind, accepted.listKind]) if (k) pool.kinds.add(k);
}

/** The names the other definitions of `crd`'s group have been accepted under, plus the built-in ones. */
export function takenNames(
  crd: KObject,
  others: Iterable<KObject>,
  builtins: ReadonlyMap<string, NamePool>,
): TakenNames {
  const group = asStr(crdSpecOf(crd).group) ?? '';
  const builtin = builtins.get(group);
  const pool = (): NamePool => ({ resources: new Set(builtin?.resources), kinds: new Set(builtin?.kinds) });
  const taken: TakenNames = { all: pool(), preceding: pool() };
  for (const other of others) {
    if (other.metadata.name === crd.metadata.name || asStr(crdSpecOf(other).group) !== group) continue;
    addAccepted(taken.all, other);
    if (precedes(other, crd)) addAccepted(taken.preceding, other);
  }
  return taken;
}

const inUse = (name: string): string => `${JSON.stringify(name)} is already in use`;

interface Naming {
  names: CRDNames;
  condition: CRDCondition;
}

/**
 * upstream's calculateNamesAndConditions: a conflicting name keeps its accepted value and names the reason; a name
 * held at once with a definition that precedes is let go.
 */
export function acceptNames(crd: KObject, taken: TakenNames): Naming {
  const requested = namesOf(crdSpecOf(crd).names);
  const accepted = namesOf(asObj(crd.status)?.acceptedNames);
  const names: CRDNames = { ...accepted };
  let conflict: { reason: string; message: string } | undefined;
  const problem = (name: string, held: boolean, pool: 'resources' | 'kinds'): string | undefined => {
    if (held) return name !== '' && taken.preceding[pool].has(name) ? inUse(name) : undefined;
    return taken.all[pool].has(name) ? inUse(name) : undefined;
  };
  const take = (key: 'plural' | 'singular' | 'kind' | 'listKind', reason: string, pool: 'resources' | 'kinds') => {
    const held = requested[key] === accepted[key];
    const message = problem(requested[key], held, pool);
    if (!message) names[key] = requested[key];
    else {
      conflict = { reason, message };
      if (held) names[key] = '';
    }
  };
  take('plural', 'PluralConflict', 'resources');
  take('singular', 'SingularConflict', 'resources');
  const shortProblems = requested.shortNames.flatMap(
    (s) => problem(s, accepted.shortNames.includes(s), 'resources') ?? [],
  );
  if (shortProblems.length > 0) {
    conflict = {
      reason: 'ShortNamesConflict',
      message: shortProblems.length === 1 ? shortProblems[0] : `[${shortProblems.join(', ')}]`,
    };
    names.shortNames = accepted.shortNames.filter((s) => !taken.preceding.resources.has(s));
  } else names.shortNames = requested.shortNames;
  take('kind', 'KindConflict', 'kinds');
  take('listKind', 'ListKindConflict', 'kinds');
  names.categories = requested.categories;
  const condition: CRDCondition = conflict
    ? { type: 'NamesAccepted', status: 'False', ...conflict }
    : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
  return { names, condition };
}

function established(crd: KObject, namesAccepted: boolean): CRDCondition {
  const old = crdCondition(crd, 'Established');
  if (old?.status === 'True') return old;
  return namesAccepted
    ? {
        type: 'Established',
        status: 'True',
        reason: 'InitialNamesAccepted',
        message: 'the initial names have been accepted',
      }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
}

const APPROVAL_REASONS = {
  Approved: 'ApprovedAnnotation',
  Bypassed: 'UnapprovedAnnotation',
  Missing: 'MissingAnnotation',
  Invalid: 'InvalidAnnotation',
} as const;

function approval(crd: KObject): CRDCondition | undefined {
  if (!isProtectedGroup(asStr(crdSpecOf(crd).group) ?? '')) return undefined;
  const { state, reason } = approvalState(crd);
  return {
    type: 'KubernetesAPIApprovalPolicyConformant',
    status: state === 'Approved' ? 'True' : 'False',
    reason: APPROVAL_REASONS[state],
    message: reason,
  };
}

const sameCondition = (a: CRDCondition | undefined, b: CRDCondition): boolean =>
  a !== undefined && a.status === b.status && a.reason === b.reason && a.message === b.message;

/**
 * The status `crd` should have given the names taken (undefined when it already has it). A condition keeps its
 * lastTransitionTime unless its status flips, as upstream's SetCRDCondition does.
 */
export function desiredStatus(crd: KObject, taken: TakenNames, now: string): Record<string, unknown> | undefined {
  const naming = acceptNames(crd, taken);
  const wanted = [naming.condition, established(crd, naming.condition.status === 'True'), approval(crd)].filter(
    (c): c is CRDCondition => c !== undefined,
  );
  const current = crdConditionsOf(crd);
  const status = asObj(crd.status) ?? {};
  const namesChanged = JSON.stringify(namesOf(status.acceptedNames)) !== JSON.stringify(naming.names);
  if (
    !namesChanged &&
    wanted.every((w) =>
      sameCondition(
        current.find((c) => c.type === w.type),
        w,
      ),
    )
  )
    return undefined;
  const conditions = [...current];
  for (const w of wanted) {
    const i = conditions.findIndex((c) => c.type === w.type);
    const old = conditions[i];
    const next: CRDCondition = {
      type: w.type,
      status: w.status,
      lastTransitionTime: old?.status === w.status ? (old.lastTransitionTime ?? now) : now,
      reason: w.reason,
      message: w.message,
    };
    if (i < 0) conditions.push(next);
    else conditions[i] = next;
  }
  return { ...status, acceptedNames: compactNames(naming.names), conditions };
}

/** The names as the Go type writes them: plural and kind always, the rest only when set. */
function compactNames(n: CRDNames): Record<string, unknown> {
  return {
    plural: n.plural,
    ...(n.singular ? { singular: n.singular } : {}),
    ...(n.shortNames.length ? { shortNames: n.shortNames } : {}),
    kind: n.kind,
    ...(n.listKind ? { listKind: n.listKind } : {}),
    ...(n.categories.length ? { categories: n.categories } : {}),
  };
}
