// Does one rule allow one request, does one subject name one user: the matching rules of upstream's RBAC
// (rbac/v1 helpers), written for the attribute shape of policies/authorizer.ts.
import type { Attributes } from '../authorizer.js';
import type { UserInfo } from '../../api/meta/user.js';
import type { PolicyRule, Subject } from './types.js';

export const ALL = '*';

function hasOrAll(list: readonly string[] | undefined, value: string): boolean {
  if (!list) return false;
  for (const v of list) if (v === ALL || v === value) return true;
  return false;
}

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return hasOrAll(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return hasOrAll(rule.apiGroups, group);
}

/**
 * `combined` is `resource` or `resource/subresource`. A rule names a subresource as `resource/sub`, or that
 * subresource of every resource as a star, a slash and `sub`; a plain `resource` never covers its subresources.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource))
      return true;
  }
  return false;
}

/** No names means every name; with names, a request without a name (list, watch, create) matches none. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith('*') && path.startsWith(url.replace(/\*+$/, ''))) return true;
  }
  return false;
}

export type RequestAttributes = Pick<
  Attributes,
  'verb' | 'isResourceRequest' | 'path' | 'apiGroup' | 'resource' | 'subresource' | 'name'
>;

export function ruleAllows(attrs: RequestAttributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, attrs.verb)) return false;
  if (!attrs.isResourceRequest) return nonResourceURLMatches(rule, attrs.path);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  return (
    apiGroupMatches(rule, attrs.apiGroup) &&
    resourceMatches(rule, combined, attrs.subresource) &&
    resourceNameMatches(rule, attrs.name)
  );
}

export const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * Whether `subject` names `user`. A ServiceAccount subject without a namespace means the binding's namespace
 * (only a RoleBinding has one). Unknown kinds and invalid subjects match nobody; the caller reports them.
 */
export function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return !subject.namespace && user.name === subject.name;
    case 'Group':
      return !subject.namespace && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns !== '' && user.name === `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/** Why a subject can never match, for the authorizer's error list; undefined for a well-formed subject. */
export function subjectProblem(subject: Subject): string | undefined {
  switch (subject.kind) {
    case 'User':
    case 'Group':
      return subject.namespace ? `${subject.kind} subject "${subject.name}" may not have a namespace` : undefined;
    case 'ServiceAccount':
      return undefined;
    default:
      return `unsupported subject kind: "${String(subject.kind)}"`;
  }
}

/** `User "alice"`, `ServiceAccount "name/namespace"` as upstream's reason strings write subjects. */
export function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') {
    const ns = subject.namespace || bindingNamespace;
    return `${subject.kind} ${JSON.stringify(`${subject.name}/${ns}`)}`;
  }
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}
