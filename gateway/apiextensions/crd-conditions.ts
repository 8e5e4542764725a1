// What a CustomResourceDefinition's status should say, as upstream's naming, establishing and API-approval
// controllers decide it: which of its names it may use (none another definition of the group accepted first, none a
// kind served here in that group has), NamesAccepted, Established once the names are accepted, and
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
export interface TakenNames {
  resources: Set<string>;
  kinds: Set<string>;
}

const emptyTaken = (): TakenNames => ({ resources: new Set(), kinds: new Set() });

/** The names the kinds served here hold in each of their group names (aliases included), by group. */
export function builtinNames(defs: readonly KindDefinition[]): Map<string, TakenNames> {
  const byGroup = new Map<string, TakenNames>();
  for (const def of defs)
    for (const group of [def.group, ...(def.groupAliases ?? [])]) {
      const taken = byGroup.get(group) ?? emptyTaken();
      byGroup.set(group, taken);
      for (const r of [def.resource, def.singular, ...(def.shortNames ?? [])]) taken.resources.add(r);
      taken.kinds.add(def.kind).add(`${def.kind}List`);
    }
  return byGroup;
}

/** The names the other definitions of `group` have been accepted under, plus the built-in ones. */
export function takenNames(
  crd: KObject,
  others: Iterable<KObject>,
  builtins: ReadonlyMap<string, TakenNames>,
): TakenNames {
  const group = asStr(crdSpecOf(crd).group) ?? '';
  const builtin = builtins.get(group);
  const taken: TakenNames = {
    resources: new Set(builtin?.resources),
    kinds: new Set(builtin?.kinds),
  };
  for (const other of others) {
    if (other.metadata.name === crd.metadata.name || asStr(crdSpecOf(other).group) !== group) continue;
    const accepted = namesOf(asObj(other.status)?.acceptedNames);
    for (const r of [accepted.plural, accepted.singular, ...accepted.shortNames]) if (r) taken.resources.add(r);
    for (const k of [accepted.kind, accepted.listKind]) if (k) taken.kinds.add(k);
  }
  return taken;
}

const freshOrOwn = (requested: string, accepted: string, taken: Set<string>): string | undefined =>
  requested === accepted || !taken.has(requested) ? undefined : `${JSON.stringify(requested)} is already in use`;

interface Naming {
  names: CRDNames;
  condition: CRDCondition;
}

/** upstream's calculateNamesAndConditions: each conflicting name keeps its accepted value and names the reason. */
export function acceptNames(crd: KObject, taken: TakenNames): Naming {
  const requested = namesOf(crdSpecOf(crd).names);
  const accepted = namesOf(asObj(crd.status)?.acceptedNames);
  const names: CRDNames = { ...accepted };
  let conflict: { reason: string; message: string } | undefined;
  const take = (key: 'plural' | 'singular' | 'kind' | 'listKind', reason: string, pool: Set<string>) => {
    const problem = freshOrOwn(requested[key], accepted[key], pool);
    if (problem) conflict = { reason, message: problem };
    else names[key] = requested[key];
  };
  take('plural', 'PluralConflict', taken.resources);
  take('singular', 'SingularConflict', taken.resources);
  if (JSON.stringify(requested.shortNames) !== JSON.stringify(accepted.shortNames)) {
    const problems = requested.shortNames
      .filter((s) => !accepted.shortNames.includes(s))
      .flatMap((s) => freshOrOwn(s, '', taken.resources) ?? []);
    if (problems.length > 0)
      conflict = {
        reason: 'ShortNamesConflict',
        message: problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`,
      };
    else names.shortNames = requested.shortNames;
  }
  take('kind', 'KindConflict', taken.kinds);
  take('listKind', 'ListKindConflict', taken.kinds);
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
