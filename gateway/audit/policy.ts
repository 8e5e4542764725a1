// The audit Policy (kube-apiserver's audit.k8s.io/v1 Policy, also accepted as audit.platform.io/v1): loading with
// the validation upstream applies (errors name the file and the rule's index), and the checker that picks a request's
// level: the first rule that matches wins, no match means None.
import { readFileSync } from 'node:fs';
import { decodeYamlDocument } from '../../policies/config/yaml-document.js';
import type { Attributes } from '../../policies/authorizer.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

export const POLICY_API_VERSIONS = ['audit.k8s.io/v1', 'audit.platform.io/v1'];

export interface GroupResources {
  group: string;
  resources: string[];
  resourceNames: string[];
}

export interface PolicyRule {
  level: Level;
  users: string[];
  userGroups: string[];
  verbs: string[];
  resources: GroupResources[];
  namespaces: string[];
  nonResourceURLs: string[];
  omitStages: Stage[];
  omitManagedFields?: boolean;
}

export interface AuditPolicy {
  rules: PolicyRule[];
  omitStages: Stage[];
  omitManagedFields: boolean;
}

/** What the policy decided for one request. */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

export class AuditPolicyError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Levels compare by their order in LEVELS: Request includes everything Metadata logs. */
export function levelAtLeast(level: Level, minimum: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(minimum);
}

/**
 * Groups in policies may be written with upstream's `*.k8s.io` names; requests to those aliases are served as the
 * `*.platform.io` group, so both sides compare in the canonical spelling.
 */
export function canonicalAuditGroup(group: string): string {
  return group.endsWith('.k8s.io') ? `${group.slice(0, -'.k8s.io'.length)}.platform.io` : group;
}

function stringList(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new AuditPolicyError(`${field}: Invalid value: must be a list of strings`);
  return value as string[];
}

function parseStages(value: unknown, field: string): Stage[] {
  const stages = stringList(value, field);
  stages.forEach((stage, i) => {
    if (!(STAGES as readonly string[]).includes(stage))
      throw new AuditPolicyError(
        `${field}[${i}]: Unsupported value: "${stage}": supported values: ${STAGES.map((s) => `"${s}"`).join(', ')}`,
      );
  });
  return stages as Stage[];
}

function parseGroupResources(value: unknown, field: string): GroupResources[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new AuditPolicyError(`${field}: Invalid value: must be a list`);
  return value.map((entry, i) => {
    const at = `${field}[${i}]`;
    if (!isObj(entry)) throw new AuditPolicyError(`${at}: Invalid value: must be an object`);
    const group = entry.group ?? '';
    if (typeof group !== 'string') throw new AuditPolicyError(`${at}.group: Invalid value: must be a string`);
    if (group !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(group))
      throw new AuditPolicyError(`${at}.group: Invalid value: "${group}": must be a DNS subdomain`);
    const resources = stringList(entry.resources, `${at}.resources`);
    const resourceNames = stringList(entry.resourceNames, `${at}.resourceNames`);
    if (resourceNames.length > 0 && resources.length === 0)
      throw new AuditPolicyError(
        `${at}.resourceNames: Invalid value: using resourceNames requires at least one resource`,
      );
    return { group: canonicalAuditGroup(group), resources, resourceNames };
  });
}

function parseRule(value: unknown, index: number): PolicyRule {
  const at = `rules[${index}]`;
  if (!isObj(value)) throw new AuditPolicyError(`${at}: Invalid value: must be an object`);
  if (!(LEVELS as readonly unknown[]).includes(value.level))
    throw new AuditPolicyError(
      `${at}.level: Unsupported value: ${JSON.stringify(value.level ?? '')}: supported values: ${LEVELS.map((l) => `"${l}"`).join(', ')}`,
    );
  const rule: PolicyRule = {
    level: value.level as Level,
    users: stringList(value.users, `${at}.users`),
    userGroups: stringList(value.userGroups, `${at}.userGroups`),
    verbs: stringList(value.verbs, `${at}.verbs`),
    resources: parseGroupResources(value.resources, `${at}.resources`),
    namespaces: stringList(value.namespaces, `${at}.namespaces`),
    nonResourceURLs: stringList(value.nonResourceURLs, `${at}.nonResourceURLs`),
    omitStages: parseStages(value.omitStages, `${at}.omitStages`),
  };
  if (value.omitManagedFields !== undefined && value.omitManagedFields !== null) {
    if (typeof value.omitManagedFields !== 'boolean')
      throw new AuditPolicyError(`${at}.omitManagedFields: Invalid value: must be a boolean`);
    rule.omitManagedFields = value.omitManagedFields;
  }
  if (rule.nonResourceURLs.length > 0 && (rule.resources.length > 0 || rule.namespaces.length > 0))
    throw new AuditPolicyError(
      `${at}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`,
    );
  rule.nonResourceURLs.forEach((url, i) => {
    if (!url.startsWith('/') && url !== '*')
      throw new AuditPolicyError(
        `${at}.nonResourceURLs[${i}]: Invalid value: "${url}": non-resource URL must start with "/"`,
      );
    if (url.slice(0, -1).includes('*'))
      throw new AuditPolicyError(
        `${at}.nonResourceURLs[${i}]: Invalid value: "${url}": "*" is allowed only at the end`,
      );
  });
  return rule;
}

/** Parses a policy document (YAML or JSON text); `source` names it in errors. */
export function parseAuditPolicy(text: string, source: string): AuditPolicy {
  let doc: unknown;
  try {
    doc = decodeYamlDocument(text);
  } catch (e) {
    throw new AuditPolicyError(`failed decoding audit policy file ${source}: ${(e as Error).message}`);
  }
  try {
    if (!isObj(doc)) throw new AuditPolicyError('not a Policy object');
    if (doc.kind !== 'Policy')
      throw new AuditPolicyError(`kind: Invalid value: ${JSON.stringify(doc.kind ?? '')}: must be Policy`);
    if (!POLICY_API_VERSIONS.includes(doc.apiVersion as string))
      throw new AuditPolicyError(
        `apiVersion: Invalid value: ${JSON.stringify(doc.apiVersion ?? '')}: must be one of ${POLICY_API_VERSIONS.join(', ')}`,
      );
    if (doc.rules !== undefined && doc.rules !== null && !Array.isArray(doc.rules))
      throw new AuditPolicyError('rules: Invalid value: must be a list');
    const rules = ((doc.rules as unknown[] | undefined) ?? []).map(parseRule);
    // Upstream refuses a policy without rules: it would silently audit nothing.
    if (rules.length === 0) throw new AuditPolicyError('loaded illegal policy with 0 rules');
    const omitManagedFields = doc.omitManagedFields ?? false;
    if (typeof omitManagedFields !== 'boolean')
      throw new AuditPolicyError('omitManagedFields: Invalid value: must be a boolean');
    return { rules, omitStages: parseStages(doc.omitStages, 'omitStages'), omitManagedFields };
  } catch (e) {
    throw new AuditPolicyError(`invalid audit policy file ${source}: ${(e as Error).message}`);
  }
}

export function loadAuditPolicy(file: string): AuditPolicy {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new AuditPolicyError(
      `unable to read audit policy file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseAuditPolicy(text, file);
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.slice(0, -1));
}

function resourceMatches(rule: PolicyRule, attrs: Attributes): boolean {
  if (!attrs.isResourceRequest) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(attrs.namespace)) return false;
  if (rule.resources.length === 0) return true;
  const group = canonicalAuditGroup(attrs.apiGroup);
  const combined = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  for (const gr of rule.resources) {
    if (gr.group !== group) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(attrs.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (attrs.subresource && res.startsWith('*/') && res.slice(2) === attrs.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === attrs.resource) return true;
    }
  }
  return false;
}

/** upstream's ruleMatches (pkg/audit/policy/checker.go). */
export function ruleMatches(rule: PolicyRule, attrs: Attributes): boolean {
  if (rule.users.length > 0 && !rule.users.includes(attrs.user.name)) return false;
  if (rule.userGroups.length > 0 && !attrs.user.groups.some((g) => rule.userGroups.includes(g))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return resourceMatches(rule, attrs);
  if (rule.nonResourceURLs.length > 0)
    return !attrs.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

const NOT_AUDITED: RequestAuditConfig = { level: 'None', omitStages: new Set(), omitManagedFields: false };

export function createPolicyChecker(policy: AuditPolicy): (attrs: Attributes) => RequestAuditConfig {
  // Each rule's answer is the same for every request it matches: built once.
  const configs = policy.rules.map((rule): RequestAuditConfig => ({
    level: rule.level,
    omitStages: new Set([...policy.omitStages, ...rule.omitStages]),
    omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields,
  }));
  return (attrs) => {
    for (let i = 0; i < policy.rules.length; i++) if (ruleMatches(policy.rules[i], attrs)) return configs[i];
    return NOT_AUDITED;
  };
}
