// Classification as upstream's: the FlowSchemas in matchingPrecedence order (then by name), the first whose rules
// match the request decides its priority level and flow. A schema naming a level that does not exist (dangling) is
// passed over, as upstream passes it over, so that a mistyped level never swallows requests.
import type { UserInfo } from '../../api/meta/user.js';
import type { RequestInfo } from '../request/request-info.js';
import type {
  FlowSchemaObject,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  ResourcePolicyRule,
  Subject,
} from './types.js';

const ALL = '*';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** Upstream's order: lower matchingPrecedence first, then the name; an unset precedence is v1's default, 1000. */
export function sortSchemas(schemas: readonly FlowSchemaObject[]): FlowSchemaObject[] {
  const precedence = (s: FlowSchemaObject) => s.spec.matchingPrecedence ?? 1000;
  return [...schemas].sort(
    (a, b) =>
      precedence(a) - precedence(b) ||
      (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0),
  );
}

function subjectMatches(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.user?.name === ALL || subject.user?.name === user.name;
    case 'Group':
      return subject.group?.name === ALL || (subject.group !== undefined && user.groups.includes(subject.group.name));
    case 'ServiceAccount': {
      const sa = subject.serviceAccount;
      if (!sa || !user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
      return namespace === sa.namespace && (sa.name === ALL || name === sa.name);
    }
    default:
      return false;
  }
}

const listed = (values: readonly string[] | undefined, value: string): boolean =>
  values !== undefined && (values.includes(ALL) || values.includes(value));

function resourceRuleMatches(rule: ResourcePolicyRule, info: RequestInfo): boolean {
  if (!listed(rule.verbs, info.verb)) return false;
  // A rule may name the group as the client spelled it (an `*.k8s.io` alias) or as it is served.
  if (!listed(rule.apiGroups, info.apiGroup) && !(info.requestedGroup && listed(rule.apiGroups, info.requestedGroup)))
    return false;
  const resource = info.subresource ? `${info.resource}/${info.subresource}` : info.resource;
  if (!listed(rule.resources, resource)) return false;
  return info.namespace === '' ? rule.clusterScope === true : listed(rule.namespaces, info.namespace);
}

/** "*" matches every path, "/prefix/*" every path below the prefix, anything else the path itself. */
export function nonResourceURLMatches(pattern: string, path: string): boolean {
  if (pattern === ALL || pattern === path) return true;
  return pattern.endsWith('*') && path.startsWith(pattern.slice(0, -1));
}

function nonResourceRuleMatches(rule: NonResourcePolicyRule, info: RequestInfo): boolean {
  return (
    listed(rule.verbs, info.verb) && (rule.nonResourceURLs ?? []).some((url) => nonResourceURLMatches(url, info.path))
  );
}

export function rulesMatch(rules: PolicyRulesWithSubjects, user: UserInfo, info: RequestInfo): boolean {
  if (!(rules.subjects ?? []).some((subject) => subjectMatches(subject, user))) return false;
  return info.isResourceRequest
    ? (rules.resourceRules ?? []).some((rule) => resourceRuleMatches(rule, info))
    : (rules.nonResourceRules ?? []).some((rule) => nonResourceRuleMatches(rule, info));
}

export function schemaMatches(schema: FlowSchemaObject, user: UserInfo, info: RequestInfo): boolean {
  return (schema.spec.rules ?? []).some((rules) => rulesMatch(rules, user, info));
}

/** The flow within the level: the user, the namespace, or one flow for the whole schema. */
export function flowDistinguisher(schema: FlowSchemaObject, user: UserInfo, info: RequestInfo): string {
  switch (schema.spec.distinguisherMethod?.type) {
    case 'ByUser':
      return user.name;
    case 'ByNamespace':
      return info.namespace;
    default:
      return '';
  }
}

/** The first schema (of `sorted`) that matches and whose level exists; undefined when none does. */
export function classify(
  sorted: readonly FlowSchemaObject[],
  levelExists: (name: string) => boolean,
  user: UserInfo,
  info: RequestInfo,
): FlowSchemaObject | undefined {
  return sorted.find(
    (schema) => levelExists(schema.spec.priorityLevelConfiguration.name) && schemaMatches(schema, user, info),
  );
}
