// Schema pieces and rules shared by the four RBAC kinds (pkg/apis/rbac/validation in kube-apiserver).
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import { arr, named, obj, str, stringList } from '../../common/schema-builders.js';
import { asArr, asObj, asStr, immutable, root } from '../../common/validation-helpers.js';
import { dns1123Subdomain, pathSegmentName } from '../../meta/validation.js';

export const RBAC_GROUP = 'rbac.authorization.platform.io';
/** Stock kubectl writes this group into roleRef and subjects (`kubectl create rolebinding`); it names the same API. */
const RBAC_GROUP_K8S = 'rbac.authorization.k8s.io';
const RBAC_GROUPS = [RBAC_GROUP, RBAC_GROUP_K8S];
/** Typed clients (`kubectl create role|rolebinding|...`) and existing manifests reach the four kinds at upstream's group. */
export const RBAC_GROUP_ALIASES = [RBAC_GROUP_K8S];

/** roleRef and subject groups are stored in our spelling whichever one the client wrote. */
function canonicalGroup(group: unknown): unknown {
  return group === RBAC_GROUP_K8S ? RBAC_GROUP : group;
}
const RBAC = 'io.platform.api.rbac.v1';
const SUBJECT_KINDS = ['ServiceAccount', 'User', 'Group'];

export const policyRuleSchema = named(
  `${RBAC}.PolicyRule`,
  obj(
    {
      verbs: stringList(
        "Verbs that apply to all the resources and non-resource URLs of this rule; '*' means all.",
        'atomic',
      ),
      apiGroups: stringList('API groups of the resources; "" is the core group, \'*\' means all.', 'atomic'),
      resources: stringList(
        "Resources this rule applies to; '*' means all, a subresource is written resource/subresource.",
        'atomic',
      ),
      resourceNames: stringList('Optional allow-list of object names; empty means no restriction.', 'atomic'),
      nonResourceURLs: stringList(
        'Partial URLs a user may access; a trailing * is a wildcard. Only in ClusterRoles bound through ClusterRoleBindings; a rule applies either to resources or to non-resource URLs.',
        'atomic',
      ),
    },
    'PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to.',
    ['verbs'],
  ),
);

export const rulesSchema = arr(
  policyRuleSchema,
  'Rules holds all the PolicyRules for this role; permissions are purely additive.',
  'atomic',
);

export const roleRefSchema = named(
  `${RBAC}.RoleRef`,
  obj(
    {
      apiGroup: str('APIGroup is the group for the resource being referenced.'),
      kind: str('Kind is the type of resource being referenced: Role or ClusterRole.'),
      name: str('Name is the name of resource being referenced, case-sensitive.'),
    },
    'RoleRef contains information that points to the role being used. Immutable: delete and recreate the binding to change it.',
    ['apiGroup', 'kind', 'name'],
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export const subjectSchema = named(
  `${RBAC}.Subject`,
  obj(
    {
      kind: str('Kind of object being referenced: User, Group or ServiceAccount.'),
      apiGroup: str(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects and to rbac.authorization.platform.io for User and Group subjects.',
      ),
      name: str('Name of the object being referenced, case-sensitive.'),
      namespace: str('Namespace of the referenced object; only for ServiceAccount subjects.'),
    },
    'Subject contains a reference to the object or user identities a role binding applies to.',
    ['kind', 'name'],
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export const bindingProperties = (subjectsDescription: string): Record<string, JSONSchema> => ({
  subjects: arr(subjectSchema, subjectsDescription, 'atomic'),
  roleRef: roleRefSchema,
});

export function validateRules(rules: unknown, namespaced: boolean): FieldError[] {
  return asArr(rules).flatMap((raw, i) => {
    const r = asObj(raw) ?? {};
    const at = root('rules').index(i);
    const errs: FieldError[] = [];
    if (asArr(r.verbs).length === 0)
      errs.push(fieldErrors.required(at.child('verbs'), 'verbs must contain at least one value'));
    const urls = asArr(r.nonResourceURLs);
    if (urls.length > 0) {
      if (namespaced)
        errs.push(
          fieldErrors.invalid(at.child('nonResourceURLs'), urls, 'namespaced rules cannot apply to non-resource URLs'),
        );
      if (asArr(r.apiGroups).length > 0 || asArr(r.resources).length > 0 || asArr(r.resourceNames).length > 0) {
        errs.push(
          fieldErrors.invalid(
            at.child('nonResourceURLs'),
            urls,
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      }
      return errs;
    }
    if (asArr(r.apiGroups).length === 0)
      errs.push(fieldErrors.required(at.child('apiGroups'), 'resource rules must supply at least one api group'));
    if (asArr(r.resources).length === 0)
      errs.push(fieldErrors.required(at.child('resources'), 'resource rules must supply at least one resource'));
    return errs;
  });
}

function validateSubject(raw: unknown, at: FieldPath, namespacedBinding: boolean): FieldError[] {
  const s = asObj(raw) ?? {};
  const errs: FieldError[] = [];
  const name = asStr(s.name) ?? '';
  const kind = asStr(s.kind);
  const apiGroup = asStr(s.apiGroup) ?? '';
  const namespace = asStr(s.namespace) ?? '';
  if (!name) errs.push(fieldErrors.required(at.child('name')));
  switch (kind) {
    case 'ServiceAccount':
      if (name) for (const p of dns1123Subdomain(name)) errs.push(fieldErrors.invalid(at.child('name'), name, p));
      if (apiGroup !== '') errs.push(fieldErrors.notSupported(at.child('apiGroup'), apiGroup, ['']));
      if (!namespacedBinding && !namespace) errs.push(fieldErrors.required(at.child('namespace')));
      break;
    case 'User':
    case 'Group':
      if (!RBAC_GROUPS.includes(apiGroup))
        errs.push(fieldErrors.notSupported(at.child('apiGroup'), apiGroup, [RBAC_GROUP]));
      if (namespace) errs.push(fieldErrors.forbidden(at.child('namespace'), `may not be set for ${kind} subjects`));
      break;
    default:
      errs.push(fieldErrors.notSupported(at.child('kind'), kind ?? '', SUBJECT_KINDS));
  }
  return errs;
}

export function validateBinding(obj: KObject, namespacedBinding: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asObj(obj.roleRef);
  const at = root('roleRef');
  if (!ref) errs.push(fieldErrors.required(at));
  else {
    const apiGroup = asStr(ref.apiGroup) ?? '';
    if (!RBAC_GROUPS.includes(apiGroup))
      errs.push(fieldErrors.notSupported(at.child('apiGroup'), apiGroup, [RBAC_GROUP]));
    const kinds = namespacedBinding ? ['Role', 'ClusterRole'] : ['ClusterRole'];
    const kind = asStr(ref.kind) ?? '';
    if (!kinds.includes(kind)) errs.push(fieldErrors.notSupported(at.child('kind'), kind, kinds));
    const name = asStr(ref.name) ?? '';
    if (!name) errs.push(fieldErrors.required(at.child('name')));
    else for (const p of pathSegmentName(name)) errs.push(fieldErrors.invalid(at.child('name'), name, p));
  }
  asArr(obj.subjects).forEach((s, i) => errs.push(...validateSubject(s, root('subjects').index(i), namespacedBinding)));
  return errs;
}

export function validateBindingUpdate(obj: KObject, old: KObject): FieldError[] {
  // A binding stored before groups were normalized may still spell roleRef.apiGroup the k8s.io way: the same group.
  const oldRef = asObj(old.roleRef);
  const before = oldRef ? { ...oldRef, apiGroup: canonicalGroup(oldRef.apiGroup) } : old.roleRef;
  return immutable('roleRef', obj.roleRef, before, 'cannot change roleRef');
}

/**
 * Subjects name their apiGroup implicitly: "" for ServiceAccount, the RBAC group for User and Group. The k8s.io
 * spelling of the RBAC group (roleRef and subjects) is rewritten to ours, so one group is stored and shown. An empty
 * apiGroup is left out, as upstream's JSON omits it: a manifest that does not spell it then matches what is read back,
 * and `kubectl apply` finds nothing to change.
 */
export function defaultSubjects(obj: KObject): void {
  const ref = asObj(obj.roleRef);
  if (ref && ref.apiGroup !== undefined) ref.apiGroup = canonicalGroup(ref.apiGroup);
  for (const raw of asArr(obj.subjects)) {
    const s = asObj(raw);
    if (!s) continue;
    if (s.apiGroup === '') delete s.apiGroup;
    else if (s.apiGroup !== undefined) s.apiGroup = canonicalGroup(s.apiGroup);
    else if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = RBAC_GROUP;
  }
}

/**
 * A binding with the groups of its roleRef and subjects passed through `map`: read through the rbac.authorization.k8s.io
 * alias they name that group, as what clients such as `kubectl auth reconcile` compare with their manifests.
 */
export function mapBindingGroups(obj: KObject, map: (group: string) => string): KObject {
  const mapped = (ref: unknown): unknown => {
    const r = asObj(ref);
    if (!r || typeof r.apiGroup !== 'string') return ref;
    const group = map(r.apiGroup);
    return group === r.apiGroup ? ref : { ...r, apiGroup: group };
  };
  const roleRef = mapped(obj.roleRef);
  const subjects = Array.isArray(obj.subjects) ? obj.subjects.map(mapped) : obj.subjects;
  const subjectsChanged = Array.isArray(subjects) && subjects.some((s, i) => s !== (obj.subjects as unknown[])[i]);
  if (roleRef === obj.roleRef && !subjectsChanged) return obj;
  const out: KObject = { ...obj };
  if (roleRef !== obj.roleRef) out.roleRef = roleRef;
  if (subjectsChanged) out.subjects = subjects;
  return out;
}
