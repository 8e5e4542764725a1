// The rules of a FlowSchema: which subjects (users, groups, service accounts) and which requests (resource and
// non-resource) one member of `spec.rules` matches, with upstream's schema and validation
// (pkg/apis/flowcontrol/validation's subject and policy rule checks).
import type { FieldError, FieldPath } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import { arr, bool, enumStr, named, obj, str, stringList } from '../../common/schema-builders.js';
import { asArr, asObj, asStr, type Obj } from '../../common/validation-helpers.js';
import { dns1123Label, dns1123Subdomain } from '../../meta/validation.js';
import { FLOWCONTROL_DEF, hasWildcard } from './flowcontrol-common.js';

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
const NAMESPACE_INTRO = "each member of this list must be '*' or a DNS-1123 label; ";

export const nameOnly = (def: string, help: string, what: string) =>
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

export const policyRulesWithSubjectsSchema = named(
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

/** The member each subject kind names: it must be there, and the others must not. */
const MEMBER_OF_KIND: Record<string, string> = { User: 'user', Group: 'group', ServiceAccount: 'serviceAccount' };
const KIND_OF_MEMBER: Record<string, string> = { user: 'User', group: 'Group', serviceAccount: 'ServiceAccount' };

function validateSubject(subject: Obj, at: FieldPath): FieldError[] {
  const kind = asStr(subject.kind) ?? '';
  const field = Object.hasOwn(MEMBER_OF_KIND, kind) ? MEMBER_OF_KIND[kind] : undefined;
  if (!field) return [fieldErrors.notSupported(at.child('kind'), subject.kind ?? '', SUBJECT_KINDS)];
  const errs: FieldError[] = [];
  const member = asObj(subject[field]);
  const memberAt = at.child(field);
  if (!member) errs.push(fieldErrors.required(memberAt, `${field} is required when subject kind is '${kind}'`));
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
    if (other === field || subject[other] === undefined || subject[other] === null) continue;
    errs.push(
      fieldErrors.forbidden(
        at.child(other),
        `${other} is forbidden when subject kind is not '${KIND_OF_MEMBER[other]}'`,
      ),
    );
  }
  return errs;
}

/** One member of a FlowSchema's `spec.rules`: its subjects, and at least one resource or non-resource rule. */
export function validatePolicyRules(rule: Obj, at: FieldPath): FieldError[] {
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
