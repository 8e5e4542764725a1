// FlowSchema: which requests (by subject, verb and target) go to which priority level, and how they are told apart
// into flows. Fields, defaults, rules, columns and wire form are flowcontrol.apiserver.k8s.io/v1's.
import type { KindDefinition } from '../../scheme.js';
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { canonicalJson } from '../../meta/canonical-json.js';
import { kindSchema } from '../../common/object-meta.js';
import { arr, bool, describe, enumStr, int32, named, obj, str, stringList } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, asStr, type Obj, root, specOf, statusOf } from '../../common/validation-helpers.js';
import { dns1123Label, dns1123Subdomain } from '../../meta/validation.js';
import { ageColumn, column } from '../../common/printers.js';
import {
  conditionsSchema,
  EXEMPT_NAME,
  FLOWCONTROL_DEF,
  FLOWCONTROL_GROUP,
  FLOWCONTROL_GROUP_ALIASES,
  hasWildcard,
  validateConditions,
} from './flowcontrol-common.js';
import { MANDATORY_FLOW_SCHEMAS } from './bootstrap-configuration.js';

export const DISTINGUISHER_METHODS = ['ByNamespace', 'ByUser'];
export const SUBJECT_KINDS = ['Group', 'ServiceAccount', 'User'];
// Sorted, as upstream's string set lists them in an Unsupported value message.
export const SUPPORTED_VERBS = [
  'create',
  'delete',
  'deletecollection',
  'get',
  'list',
  'patch',
  'proxy',
  'update',
  'watch',
];
export const DEFAULT_MATCHING_PRECEDENCE = 1000;
export const MAX_MATCHING_PRECEDENCE = 10000;
export const DANGLING_CONDITION = 'Dangling';
const NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

const nameOnly = (def: string, help: string, what: string) =>
  named(`${FLOWCONTROL_DEF}.${def}`, obj({ name: str(help) }, what, ['name']));

const subjectSchema = named(
  `${FLOWCONTROL_DEF}.Subject`,
  obj(
    {
      kind: enumStr(SUBJECT_KINDS, '`kind` indicates which one of the other fields is non-empty. Required'),
      user: nameOnly(
        'UserSubject',
        '`name` is the username that matches, or "*" to match all usernames. Required.',
        '`user` matches based on username.',
      ),
      group: nameOnly(
        'GroupSubject',
        'name is the user group that matches, or "*" to match all user groups. Required.',
        '`group` matches based on user group name.',
      ),
      serviceAccount: named(
        `${FLOWCONTROL_DEF}.ServiceAccountSubject`,
        obj(
          {
            namespace: str('`namespace` is the namespace of matching ServiceAccount objects. Required.'),
            name: str('`name` is the name of matching ServiceAccount objects, or "*" to match regardless of name.'),
          },
          '`serviceAccount` matches ServiceAccounts.',
          ['namespace', 'name'],
        ),
      ),
    },
    'Subject matches the originator of a request, as identified by the request authentication system.',
    ['kind'],
  ),
);

const resourceRuleSchema = named(
  `${FLOWCONTROL_DEF}.ResourcePolicyRule`,
  obj(
    {
      verbs: stringList('`verbs` is a list of matching verbs and may not be empty. "*" matches all verbs.', 'set'),
      apiGroups: stringList('`apiGroups` is a list of matching API groups and may not be empty.', 'set'),
      resources: stringList('`resources` is a list of matching resources and may not be empty.', 'set'),
      clusterScope: bool('`clusterScope` indicates whether to match requests that do not specify a namespace.'),
      namespaces: stringList(
        '`namespaces` is a list of target namespaces that restricts matches. "*" matches every namespace.',
        'set',
      ),
    },
    "ResourcePolicyRule is a predicate that matches some resource requests, testing the request's verb and the target resource.",
    ['verbs', 'apiGroups', 'resources'],
  ),
);

const nonResourceRuleSchema = named(
  `${FLOWCONTROL_DEF}.NonResourcePolicyRule`,
  obj(
    {
      verbs: stringList('`verbs` is a list of matching verbs and may not be empty. "*" matches all verbs.', 'set'),
      nonResourceURLs: stringList(
        '`nonResourceURLs` is a set of url prefixes that a user should have access to and may not be empty. "*" matches all non-resource urls.',
        'set',
      ),
    },
    'NonResourcePolicyRule is a predicate that matches non-resource requests according to their verb and the target non-resource URL.',
    ['verbs', 'nonResourceURLs'],
  ),
);

const specSchema = obj(
  {
    priorityLevelConfiguration: nameOnly(
      'PriorityLevelConfigurationReference',
      '`name` is the name of the priority level configuration being referenced Required.',
      '`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster. Required.',
    ),
    matchingPrecedence: int32(
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. Each value must be ranged in [1,10000]; 1000 when not specified.',
    ),
    distinguisherMethod: named(
      `${FLOWCONTROL_DEF}.FlowDistinguisherMethod`,
      obj(
        {
          type: enumStr(DISTINGUISHER_METHODS, '`type` is the type of flow distinguisher method. Required.'),
        },
        '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.',
        ['type'],
      ),
    ),
    rules: arr(
      named(
        `${FLOWCONTROL_DEF}.PolicyRulesWithSubjects`,
        obj(
          {
            subjects: arr(
              subjectSchema,
              'subjects is the list of normal user, serviceaccount, or group that this rule cares about.',
              'atomic',
            ),
            resourceRules: arr(
              resourceRuleSchema,
              '`resourceRules` is a slice of ResourcePolicyRules that identify matching requests according to their verb and the target resource.',
              'atomic',
            ),
            nonResourceRules: arr(
              nonResourceRuleSchema,
              '`nonResourceRules` is a list of NonResourcePolicyRules that identify matching requests according to their verb and the target non-resource URL.',
              'atomic',
            ),
          },
          'PolicyRulesWithSubjects prescribes a test that applies to a request to an apiserver.',
          ['subjects'],
        ),
      ),
      '`rules` describes which requests will match this flow schema.',
      'atomic',
    ),
  },
  "FlowSchemaSpec describes how the FlowSchema's specification looks like.",
  ['priorityLevelConfiguration'],
);

function validateVerbs(verbs: unknown[], at: FieldPath): FieldError[] {
  if (verbs.length === 0) return [fieldErrors.required(at, 'verbs must contain at least one value')];
  if (hasWildcard(verbs))
    return verbs.length > 1 ? [fieldErrors.invalid(at, verbs, "if '*' is present, must not specify other verbs")] : [];
  return verbs.every((v) => SUPPORTED_VERBS.includes(asStr(v) ?? ''))
    ? []
    : [fieldErrors.notSupported(at, verbs, SUPPORTED_VERBS)];
}

/** A list that must name something, and `*` alone if at all. */
function validateMembers(values: unknown[], at: FieldPath, what: string, requiredDetail: string): FieldError[] {
  if (values.length === 0) return [fieldErrors.required(at, requiredDetail)];
  if (values.length > 1 && hasWildcard(values))
    return [fieldErrors.invalid(at, values, `if '*' is present, must not specify other ${what}`)];
  return [];
}

function validateResourceRule(rule: Obj, at: FieldPath): FieldError[] {
  const errs = validateVerbs(asArr(rule.verbs), at.child('verbs'));
  errs.push(
    ...validateMembers(
      asArr(rule.apiGroups),
      at.child('apiGroups'),
      'api groups',
      'resource rules must supply at least one api group',
    ),
    ...validateMembers(
      asArr(rule.resources),
      at.child('resources'),
      'resources',
      'resource rules must supply at least one resource',
    ),
  );
  const namespaces = asArr(rule.namespaces);
  const nsAt = at.child('namespaces');
  if (namespaces.length === 0 && rule.clusterScope !== true)
    errs.push(
      fieldErrors.required(nsAt, 'resource rules that are not cluster scoped must supply at least one namespace'),
    );
  else if (hasWildcard(namespaces)) {
    if (namespaces.length > 1)
      errs.push(fieldErrors.invalid(nsAt, namespaces, "if '*' is present, must not specify other namespaces"));
  } else
    namespaces.forEach((ns, i) => {
      for (const msg of dns1123Label(asStr(ns) ?? ''))
        errs.push(fieldErrors.invalid(nsAt.index(i), ns, NAMESPACE_INTRO + msg));
    });
  return errs;
}

/** Upstream's ValidateNonResourceURLPath: a path from the root, `*` only as the whole last segment. */
export function nonResourceURLProblem(path: string): string | undefined {
  if (path === '') return 'must not be empty';
  if (path === '/') return undefined;
  if (!path.startsWith('/')) return 'must start with slash';
  if (path.includes(' ')) return 'must not contain white-space';
  if (path.includes('//')) return 'must not contain double slash';
  const wildcards = path.split('*').length - 1;
  if (wildcards > 1 || (wildcards === 1 && !path.endsWith('/*'))) return 'wildcard can only do suffix matching';
  return undefined;
}

function validateNonResourceRule(rule: Obj, at: FieldPath): FieldError[] {
  const errs = validateVerbs(asArr(rule.verbs), at.child('verbs'));
  const urls = asArr(rule.nonResourceURLs);
  const urlsAt = at.child('nonResourceURLs');
  if (urls.length === 0) errs.push(fieldErrors.required(urlsAt, 'nonResourceURLs must contain at least one value'));
  else if (hasWildcard(urls)) {
    if (urls.length > 1)
      errs.push(fieldErrors.invalid(urlsAt, urls, "if '*' is present, must not specify other non-resource URLs"));
  } else
    urls.forEach((url, i) => {
      const problem = nonResourceURLProblem(asStr(url) ?? '');
      if (problem) errs.push(fieldErrors.invalid(urlsAt.index(i), url, problem));
    });
  return errs;
}

/** The member a subject's kind names must be there, and the others must not. */
const SUBJECT_MEMBERS: Record<string, { field: string; label: string }> = {
  User: { field: 'user', label: 'User' },
  Group: { field: 'group', label: 'Group' },
  ServiceAccount: { field: 'serviceAccount', label: 'ServiceAccount' },
};

function validateSubject(subject: Obj, at: FieldPath): FieldError[] {
  const kind = asStr(subject.kind) ?? '';
  const own = SUBJECT_MEMBERS[kind];
  if (!own) return [fieldErrors.notSupported(at.child('kind'), subject.kind ?? '', SUBJECT_KINDS)];
  const errs: FieldError[] = [];
  const member = asObj(subject[own.field]);
  const memberAt = at.child(own.field);
  if (!member) errs.push(fieldErrors.required(memberAt, `${own.field} is required when subject kind is '${kind}'`));
  else if (kind === 'ServiceAccount') {
    const name = asStr(member.name) ?? '';
    if (name === '') errs.push(fieldErrors.required(memberAt.child('name')));
    else if (name !== '*')
      for (const msg of dns1123Subdomain(name)) errs.push(fieldErrors.invalid(memberAt.child('name'), name, msg));
    const namespace = asStr(member.namespace) ?? '';
    if (namespace === '')
      errs.push(fieldErrors.required(memberAt.child('namespace'), 'must specify namespace for service account'));
    else
      for (const msg of dns1123Label(namespace))
        errs.push(fieldErrors.invalid(memberAt.child('namespace'), namespace, msg));
  } else if ((asStr(member.name) ?? '') === '') errs.push(fieldErrors.required(memberAt.child('name')));
  // Upstream checks the other members in this order: serviceAccount, user, group, whichever the kind is.
  for (const other of ['serviceAccount', 'user', 'group']) {
    if (other === own.field || subject[other] === undefined || subject[other] === null) continue;
    const label = Object.values(SUBJECT_MEMBERS).find((m) => m.field === other)?.label ?? other;
    errs.push(fieldErrors.forbidden(at.child(other), `${other} is forbidden when subject kind is not '${label}'`));
  }
  return errs;
}

function validateRule(rule: Obj, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const subjects = asArr(rule.subjects);
  if (subjects.length === 0)
    errs.push(fieldErrors.required(at.child('subjects'), 'subjects must contain at least one value'));
  subjects.forEach((s, i) => errs.push(...validateSubject(asObj(s) ?? {}, at.child('subjects').index(i))));
  const resourceRules = asArr(rule.resourceRules);
  const nonResourceRules = asArr(rule.nonResourceRules);
  if (resourceRules.length === 0 && nonResourceRules.length === 0)
    errs.push(fieldErrors.required(at, 'at least one of resourceRules and nonResourceRules has to be non-empty'));
  resourceRules.forEach((r, i) =>
    errs.push(...validateResourceRule(asObj(r) ?? {}, at.child('resourceRules').index(i))),
  );
  nonResourceRules.forEach((r, i) =>
    errs.push(...validateNonResourceRule(asObj(r) ?? {}, at.child('nonResourceRules').index(i))),
  );
  return errs;
}

function validateSpec(name: string, spec: Obj): FieldError[] {
  const at = root('spec');
  const errs: FieldError[] = [];
  const precedence = spec.matchingPrecedence;
  const precedenceAt = at.child('matchingPrecedence');
  if (typeof precedence === 'number') {
    if (precedence <= 0) errs.push(fieldErrors.invalid(precedenceAt, precedence, 'must be a positive value'));
    if (precedence > MAX_MATCHING_PRECEDENCE)
      errs.push(fieldErrors.invalid(precedenceAt, precedence, `must not be greater than ${MAX_MATCHING_PRECEDENCE}`));
    if (precedence === 1 && name !== EXEMPT_NAME)
      errs.push(
        fieldErrors.invalid(precedenceAt, precedence, "only the schema named 'exempt' may have matchingPrecedence 1"),
      );
  }
  const method = asObj(spec.distinguisherMethod);
  if (method && !DISTINGUISHER_METHODS.includes(asStr(method.type) ?? ''))
    errs.push(
      fieldErrors.notSupported(at.child('distinguisherMethod').child('type'), method.type ?? '', DISTINGUISHER_METHODS),
    );
  const levelAt = at.child('priorityLevelConfiguration').child('name');
  const level = asStr(asObj(spec.priorityLevelConfiguration)?.name) ?? '';
  if (level === '') errs.push(fieldErrors.required(levelAt, 'must reference a priority level'));
  else for (const msg of dns1123Subdomain(level)) errs.push(fieldErrors.invalid(levelAt, level, msg));
  asArr(spec.rules).forEach((r, i) => errs.push(...validateRule(asObj(r) ?? {}, at.child('rules').index(i))));
  return errs;
}

function validateFlowSchema(fs: KObject): FieldError[] {
  const name = fs.metadata.name ?? '';
  const errs = [...validateMetadata(fs, false, 'subdomain'), ...validateSpec(name, specOf(fs))];
  const mandatory = MANDATORY_FLOW_SCHEMAS.find((m) => m.metadata.name === name);
  // Upstream compares with the fixed value exactly: the server depends on these two schemas as defined.
  if (mandatory && canonicalJson(fs.spec) !== canonicalJson(defaultedSpec(mandatory)))
    errs.push(fieldErrors.invalid(root('spec'), fs.spec, `spec of '${name}' must equal the fixed value`));
  errs.push(...validateConditions(fs));
  return errs;
}

function defaults(fs: KObject): void {
  const spec = asObj(fs.spec);
  if (!spec) return;
  // Go's zero value is "unset" for this int32: an explicit 0 is defaulted too.
  if (spec.matchingPrecedence === undefined || spec.matchingPrecedence === 0)
    spec.matchingPrecedence = DEFAULT_MATCHING_PRECEDENCE;
}

function defaultedSpec(fs: KObject): unknown {
  const copy = structuredClone(fs);
  defaults(copy);
  return copy.spec;
}

/** MISSINGPL: the status of the Dangling condition, `?` before the server has judged the reference. */
export function missingLevelCell(fs: KObject): string {
  const dangling = asArr(statusOf(fs).conditions).find((c) => asObj(c)?.type === DANGLING_CONDITION);
  return asStr(asObj(dangling)?.status) ?? '?';
}

export const flowSchema: KindDefinition = {
  group: FLOWCONTROL_GROUP,
  version: 'v1',
  kind: 'FlowSchema',
  resource: 'flowschemas',
  singular: 'flowschema',
  namespaced: false,
  groupAliases: FLOWCONTROL_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema({
    group: FLOWCONTROL_GROUP,
    version: 'v1',
    kind: 'FlowSchema',
    description:
      'FlowSchema defines the schema of a group of flows. Note that a flow is made up of a set of inbound API requests with similar attributes and is identified by a pair of strings: the name of the FlowSchema and a "flow distinguisher".',
    properties: {
      spec: describe(specSchema, '`spec` is the specification of the desired behavior of a FlowSchema.'),
      status: obj(
        { conditions: conditionsSchema('FlowSchema') },
        'FlowSchemaStatus represents the current state of a FlowSchema.',
      ),
    },
  }),
  defaults,
  validate: validateFlowSchema,
  validateStatusUpdate: (fs) => validateConditions(fs),
  tableColumns: [
    column(
      'PriorityLevel',
      '`name` is the name of the priority level configuration being referenced Required.',
      (fs) => asStr(asObj(specOf(fs).priorityLevelConfiguration)?.name) ?? '',
    ),
    column(
      'MatchingPrecedence',
      '`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.',
      (fs) => specOf(fs).matchingPrecedence ?? 0,
    ),
    column(
      'DistinguisherMethod',
      '`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.',
      (fs) => asStr(asObj(specOf(fs).distinguisherMethod)?.type) ?? '<none>',
    ),
    ageColumn,
    column('MissingPL', 'references a broken or non-existent PriorityLevelConfiguration', missingLevelCell),
  ],
};
