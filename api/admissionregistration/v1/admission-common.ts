// Schema pieces, defaults and rules shared by ValidatingAdmissionPolicy and its binding (upstream's
// admissionregistration/v1 types and pkg/apis/admissionregistration/validation). The CEL expressions are compiled
// at write time by the gateway (gateway/admission/policy/expression-check.ts): api/ cannot reach the CEL environment.
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { JSONSchema } from '../../schema.js';
import { labelSelectorSchema } from '../../common/object-meta.js';
import { arr, describe, enumStr, named, obj, str, stringList } from '../../common/schema-builders.js';
import { asArr, asObj, asStr, type Obj, validateLabelSelector } from '../../common/validation-helpers.js';

export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.platform.io';
export const ADMISSIONREGISTRATION_GROUP_ALIASES = ['admissionregistration.k8s.io'];
const DEF = 'io.platform.api.admissionregistration.v1';

export const FAILURE_POLICIES = ['Fail', 'Ignore'];
export const MATCH_POLICIES = ['Exact', 'Equivalent'];
const OPERATIONS = ['*', 'CREATE', 'UPDATE', 'DELETE', 'CONNECT'];
const SCOPES = ['Cluster', 'Namespaced', '*'];

const ruleProperties: Record<string, JSONSchema> = {
  operations: stringList(
    'Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added.',
    'atomic',
  ),
  apiGroups: stringList("APIGroups is the API groups the resources belong to. '*' is all groups.", 'atomic'),
  apiVersions: stringList("APIVersions is the API versions the resources belong to. '*' is all versions.", 'atomic'),
  resources: stringList(
    "Resources is a list of resources this rule applies to. 'pods/*' means all subresources of pods, '*/scale' means all scale subresources, '*/*' means all resources and their subresources.",
    'atomic',
  ),
  scope: str('scope specifies the scope of this rule: "Cluster", "Namespaced" or "*" (the default).'),
};

const namedRuleSchema = named(
  `${DEF}.NamedRuleWithOperations`,
  obj(
    {
      resourceNames: stringList(
        'ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.',
        'atomic',
      ),
      ...ruleProperties,
    },
    'NamedRuleWithOperations is a tuple of Operations and Resources with ResourceNames.',
  ),
);

export const matchResourcesSchema = named(
  `${DEF}.MatchResources`,
  obj(
    {
      namespaceSelector: describe(
        labelSelectorSchema,
        'NamespaceSelector decides whether to run the admission control policy on an object based on whether the namespace for that object matches the selector. Default to the empty LabelSelector, which matches everything.',
      ),
      objectSelector: describe(
        labelSelectorSchema,
        'ObjectSelector decides whether to run the validation based on if the object has matching labels. Default to the empty LabelSelector, which matches everything.',
      ),
      resourceRules: arr(
        namedRuleSchema,
        'ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy matches.',
        'atomic',
      ),
      excludeResourceRules: arr(
        namedRuleSchema,
        'ExcludeResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy should not care about. The exclude rules take precedence over include rules.',
        'atomic',
      ),
      matchPolicy: enumStr(
        MATCH_POLICIES,
        'matchPolicy defines how the "MatchResources" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Defaults to "Equivalent"',
      ),
    },
    'MatchResources decides whether to run the admission control policy on an object based on whether it meets the match criteria.',
  ),
);

/** Upstream's defaults of a MatchResources: Equivalent, selectors matching everything, every rule's scope `*`. */
export function defaultMatchResources(m: Obj): void {
  m.matchPolicy ??= 'Equivalent';
  m.namespaceSelector ??= {};
  m.objectSelector ??= {};
  for (const list of [m.resourceRules, m.excludeResourceRules])
    for (const rule of asArr(list)) {
      const r = asObj(rule);
      if (r) r.scope ??= '*';
    }
}

function validateSet(values: unknown[], at: FieldPath, what: string, allowed?: string[]): FieldError[] {
  const errs: FieldError[] = [];
  if (values.length === 0) errs.push(fieldErrors.required(at));
  if (values.length > 1 && values.includes('*'))
    errs.push(fieldErrors.invalid(at, values, `if '*' is present, must not specify other ${what}`));
  const seen = new Set<unknown>();
  values.forEach((v, i) => {
    if (seen.has(v)) errs.push(fieldErrors.duplicate(at.index(i), v));
    seen.add(v);
    if (allowed && !allowed.includes(asStr(v) ?? '')) errs.push(fieldErrors.notSupported(at.index(i), v, allowed));
  });
  return errs;
}

/** Resources: `a`, `a/b`, `*`, `*\/b`, `a/*`; a `*` alone excludes the others, as upstream's validateResources. */
function validateResources(resources: unknown[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(at));
  const withSub = new Map<string, Set<string>>();
  resources.forEach((raw, i) => {
    const r = asStr(raw) ?? '';
    if (r === '') {
      errs.push(fieldErrors.required(at.index(i)));
      return;
    }
    if (r === '*/*' || r === '*') {
      if (resources.length > 1)
        errs.push(fieldErrors.invalid(at, resources, `if '${r}' is present, must not specify other resources`));
      return;
    }
    const [res, sub = ''] = r.split('/', 2);
    if (!withSub.has(res)) withSub.set(res, new Set());
    const subs = withSub.get(res)!;
    if (subs.has(sub)) errs.push(fieldErrors.duplicate(at.index(i), r));
    subs.add(sub);
  });
  return errs;
}

function validateRule(rule: Obj, at: FieldPath, allowSubresources: boolean): FieldError[] {
  const errs = [
    ...validateSet(asArr(rule.operations), at.child('operations'), 'operations', OPERATIONS),
    ...validateSet(asArr(rule.apiGroups), at.child('apiGroups'), 'API groups'),
    ...validateSet(asArr(rule.apiVersions), at.child('apiVersions'), 'API versions'),
    ...(allowSubresources ? validateResources(asArr(rule.resources), at.child('resources')) : []),
  ];
  asArr(rule.apiVersions).forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(at.child('apiVersions').index(i)));
  });
  const scope = rule.scope;
  if (scope !== undefined && !SCOPES.includes(asStr(scope) ?? ''))
    errs.push(fieldErrors.notSupported(at.child('scope'), scope, SCOPES));
  return errs;
}

/** `required`: the policy's matchConstraints must name resourceRules; a binding's narrowing may leave them out. */
export function validateMatchResources(raw: unknown, at: FieldPath, required: boolean): FieldError[] {
  const m = asObj(raw);
  if (!m) return required ? [fieldErrors.required(at)] : [];
  const errs: FieldError[] = [];
  const policy = m.matchPolicy;
  if (policy !== undefined && !MATCH_POLICIES.includes(asStr(policy) ?? ''))
    errs.push(fieldErrors.notSupported(at.child('matchPolicy'), policy, MATCH_POLICIES));
  for (const name of ['namespaceSelector', 'objectSelector'])
    if (m[name] !== undefined) errs.push(...validateLabelSelector(m[name], at.child(name)));
  const rules = asArr(m.resourceRules);
  if (required && rules.length === 0) errs.push(fieldErrors.required(at.child('resourceRules')));
  for (const name of ['resourceRules', 'excludeResourceRules'])
    asArr(m[name]).forEach((rule, i) => errs.push(...validateRule(asObj(rule) ?? {}, at.child(name).index(i), true)));
  return errs;
}
