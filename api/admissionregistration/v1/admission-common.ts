// Schema pieces, defaults and rules shared by the admissionregistration kinds: the policies and the webhook
// configurations (upstream's admissionregistration/v1 types and pkg/apis/admissionregistration/validation). The CEL expressions are compiled
// at write time by the gateway (gateway/admission/policy/expression-check.ts): api/ cannot reach the CEL environment.
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { JSONSchema } from '../../schema.js';
import { labelSelectorSchema } from '../../common/object-meta.js';
import { arr, describe, enumStr, named, obj, str, stringList } from '../../common/schema-builders.js';
import { asArr, asObj, asStr, type Obj, validateLabelSelector } from '../../common/validation-helpers.js';
import { qualifiedName } from '../../meta/validation.js';

export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.platform.io';
export const ADMISSIONREGISTRATION_GROUP_ALIASES = ['admissionregistration.k8s.io'];
const DEF = 'io.platform.api.admissionregistration.v1';

export const FAILURE_POLICIES = ['Fail', 'Ignore'];
// Sorted, as upstream's string sets list the supported values in an Unsupported value message.
export const MATCH_POLICIES = ['Equivalent', 'Exact'];
const OPERATIONS = ['*', 'CONNECT', 'CREATE', 'DELETE', 'UPDATE'];
const SCOPES = ['*', 'Cluster', 'Namespaced'];
const MAX_MATCH_CONDITIONS = 64;

/** Upstream's admission plugins never run on these, so that no policy or webhook can lock out the way to change them. */
const EXEMPT_CONFIGURATION_KINDS = new Set([
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
]);

/**
 * Is this kind one of admissionregistration's configuration kinds, which policies and webhooks never see (upstream's
 * IsExemptAdmissionConfigurationResource)? The `*.k8s.io` alias reaches the same definition, so the group is ours.
 */
export function isExemptAdmissionConfigurationKind(def: { group: string; kind: string }): boolean {
  return def.group === ADMISSIONREGISTRATION_GROUP && EXEMPT_CONFIGURATION_KINDS.has(def.kind);
}

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

export const ruleWithOperationsSchema = named(
  `${DEF}.RuleWithOperations`,
  obj(
    ruleProperties,
    'RuleWithOperations is a tuple of Operations and Resources. It is recommended to make sure that all the tuple expansions are valid.',
  ),
);

export const matchConditionSchema = named(
  `${DEF}.MatchCondition`,
  obj(
    {
      name: str(
        "Name is an identifier for this match condition, used for strategic merging of MatchConditions, as well as providing an identifier for logging purposes. Name must be a qualified name consisting of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character, with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'). Required.",
      ),
      expression: str(
        'Expression represents the expression which will be evaluated by CEL. Must evaluate to bool. Required.',
      ),
    },
    'MatchCondition represents a condition which must by fulfilled for a request to be sent to a webhook.',
    ['name', 'expression'],
  ),
);

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
  for (const list of [m.resourceRules, m.excludeResourceRules]) asArr(list).forEach(defaultRuleScope);
}

/** Operations, API groups, API versions: required, and a `*` alone or not at all. */
function validateSet(values: unknown[], at: FieldPath, what: string): FieldError[] {
  const errs: FieldError[] = [];
  if (values.length === 0) errs.push(fieldErrors.required(at));
  if (values.length > 1 && values.includes('*'))
    errs.push(fieldErrors.invalid(at, values, `if '*' is present, must not specify other ${what}`));
  return errs;
}

/**
 * Resources as upstream's validateResources: `*\/*` excludes every other entry, `*` excludes plain resources, and
 * `x/*` or `*\/y` excludes the subresource entries it already covers.
 */
function validateResources(resources: unknown[], at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (resources.length === 0) errs.push(fieldErrors.required(at));
  const wildcardSubresourceOf = new Set<string>();
  const wildcardResourceFor = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let plainResource = false;
  resources.forEach((raw, i) => {
    const entry = asStr(raw) ?? '';
    if (entry === '') {
      errs.push(fieldErrors.required(at.index(i)));
      return;
    }
    if (entry === '*/*') doubleWildcard = true;
    if (entry === '*') singleWildcard = true;
    const slash = entry.indexOf('/');
    if (slash < 0) {
      // As upstream, the last plain entry decides: `["pods", "*"]` passes, `["*", "pods"]` does not.
      plainResource = entry !== '*';
      return;
    }
    const [resource, sub] = [entry.slice(0, slash), entry.slice(slash + 1)];
    if (wildcardSubresourceOf.has(resource))
      errs.push(fieldErrors.invalid(at.index(i), entry, `if '${resource}/*' is present, must not specify ${entry}`));
    if (wildcardResourceFor.has(sub))
      errs.push(fieldErrors.invalid(at.index(i), entry, `if '*/${sub}' is present, must not specify ${entry}`));
    if (sub === '*') wildcardSubresourceOf.add(resource);
    if (resource === '*') wildcardResourceFor.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    errs.push(fieldErrors.invalid(at, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && plainResource)
    errs.push(
      fieldErrors.invalid(at, resources, "if '*' is present, must not specify other resources without subresources"),
    );
  return errs;
}

/** Upstream's validateRuleWithOperations, subresources allowed (as for webhooks and policies alike). */
export function validateRuleWithOperations(rule: Obj, at: FieldPath): FieldError[] {
  const operations = asArr(rule.operations);
  const errs = validateSet(operations, at.child('operations'), 'operations');
  operations.forEach((op, i) => {
    if (!OPERATIONS.includes(asStr(op) ?? ''))
      errs.push(fieldErrors.notSupported(at.child('operations').index(i), op, OPERATIONS));
  });
  errs.push(...validateSet(asArr(rule.apiGroups), at.child('apiGroups'), 'API groups'));
  errs.push(...validateSet(asArr(rule.apiVersions), at.child('apiVersions'), 'API versions'));
  asArr(rule.apiVersions).forEach((v, i) => {
    if (v === '') errs.push(fieldErrors.required(at.child('apiVersions').index(i)));
  });
  errs.push(...validateResources(asArr(rule.resources), at.child('resources')));
  const scope = rule.scope;
  if (scope !== undefined && !SCOPES.includes(asStr(scope) ?? ''))
    errs.push(fieldErrors.notSupported(at.child('scope'), scope, SCOPES));
  return errs;
}

/** Upstream's SetDefaults_Rule: a rule without a scope covers both. */
export function defaultRuleScope(rule: unknown): void {
  const r = asObj(rule);
  if (r) r.scope ??= '*';
}

/**
 * matchConditions of a policy or a webhook, up to their CEL: at most 64, each with an expression and a qualified,
 * unique name. The expressions are compiled by the gateway.
 */
export function validateMatchConditions(raw: unknown, at: FieldPath): FieldError[] {
  const conditions = asArr(raw);
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS)
    errs.push(fieldErrors.tooMany(at, conditions.length, MAX_MATCH_CONDITIONS));
  const seen = new Set<string>();
  conditions.forEach((item, i) => {
    const condition = asObj(item) ?? {};
    if ((asStr(condition.expression) ?? '').trim() === '')
      errs.push(fieldErrors.required(at.index(i).child('expression')));
    const name = asStr(condition.name) ?? '';
    const nameAt = at.index(i).child('name');
    if (name === '') errs.push(fieldErrors.required(nameAt));
    else for (const p of qualifiedName(name)) errs.push(fieldErrors.invalid(nameAt, name, p));
    if (name !== '' && seen.has(name)) errs.push(fieldErrors.duplicate(nameAt, name));
    seen.add(name);
  });
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
    asArr(m[name]).forEach((rule, i) =>
      errs.push(...validateRuleWithOperations(asObj(rule) ?? {}, at.child(name).index(i))),
    );
  return errs;
}
