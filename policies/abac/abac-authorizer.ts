// ABAC (--authorization-mode=ABAC with --authorization-policy-file): one JSON Policy per line, in upstream's
// `abac.authorization.kubernetes.io/v1beta1` format so that existing policy files carry over unchanged. Blank lines
// and lines starting with `#` are skipped; any other line that is not a valid Policy stops start-up with its line
// number. Unversioned (v0) lines are read as upstream converts them. A request is allowed by the first policy whose subject, verb (readonly policies allow only get, list and
// watch) and resource or non-resource path match; otherwise NoOpinion ("No policy matched.").
import { readFileSync } from 'node:fs';
import type { UserInfo } from '../../api/meta/user.js';
import type { Attributes, Authorizer, RuleResolver, RulesResult } from '../authorizer.js';

export const ABAC_API_VERSION = 'abac.authorization.kubernetes.io/v1beta1';
const ABAC_V0_API_VERSION = 'abac.authorization.kubernetes.io/v0';

export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

export class PolicyFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PolicyFileError';
  }
}

const STRING_FIELDS = ['user', 'group', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const;

function parseLine(line: string): PolicySpec {
  let obj: unknown;
  try {
    obj = JSON.parse(line);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`, { cause: e });
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) throw new Error('not a JSON object');
  const policy = obj as Record<string, unknown>;
  // Unversioned lines and v0 are the original flat format, converted as upstream converts them.
  if (policy.apiVersion === undefined || policy.apiVersion === '' || policy.apiVersion === ABAC_V0_API_VERSION) {
    if (policy.kind !== undefined && policy.kind !== '' && policy.kind !== 'Policy')
      throw new Error(`kind must be "Policy", got ${JSON.stringify(policy.kind)}`);
    return fromV0(policy);
  }
  if (policy.apiVersion !== ABAC_API_VERSION)
    throw new Error(`unsupported apiVersion ${JSON.stringify(policy.apiVersion)} (expected ${ABAC_API_VERSION})`);
  if (policy.kind !== 'Policy') throw new Error(`kind must be "Policy", got ${JSON.stringify(policy.kind ?? '')}`);
  return specOf(policy.spec ?? {});
}

/**
 * v0 semantics: no user and no group (or `*` for either) means every authenticated user; an empty namespace or
 * resource means all; every API group; empty namespace and resource also allow every non-resource path.
 */
function fromV0(policy: Record<string, unknown>): PolicySpec {
  const v0 = specOf(policy);
  const out: PolicySpec = { ...v0, apiGroup: '*', nonResourcePath: '' };
  if ((v0.user === '' && v0.group === '') || v0.user === '*' || v0.group === '*') {
    out.group = 'system:authenticated';
    if (v0.user === '*' || v0.group === '*') out.user = '';
  }
  if (v0.namespace === '') out.namespace = '*';
  if (v0.resource === '') out.resource = '*';
  if (v0.namespace === '' && v0.resource === '') out.nonResourcePath = '*';
  return out;
}

function specOf(spec: unknown): PolicySpec {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec)) throw new Error('spec must be an object');
  const s = spec as Record<string, unknown>;
  const out: PolicySpec = {
    user: '',
    group: '',
    readonly: false,
    apiGroup: '',
    resource: '',
    namespace: '',
    nonResourcePath: '',
  };
  for (const key of STRING_FIELDS) {
    if (s[key] === undefined || s[key] === null) continue;
    if (typeof s[key] !== 'string') throw new Error(`spec.${key} must be a string`);
    out[key] = s[key];
  }
  if (s.readonly !== undefined && s.readonly !== null) {
    if (typeof s.readonly !== 'boolean') throw new Error('spec.readonly must be a boolean');
    out.readonly = s.readonly;
  }
  return out;
}

/** Parses a policy file's text; `file` only names it in errors. */
export function parsePolicyFile(text: string, file: string): PolicySpec[] {
  const policies: PolicySpec[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    try {
      policies.push(parseLine(line));
    } catch (e) {
      throw new PolicyFileError(`error reading policy file ${file}, line ${i + 1}: ${(e as Error).message}`);
    }
  });
  return policies;
}

export function loadPolicyFile(file: string): PolicySpec[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PolicyFileError(
      `error reading policy file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parsePolicyFile(text, file);
}

function subjectMatches(p: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user) {
    if (p.user !== '*' && p.user !== user.name) return false;
    matched = true;
  }
  if (p.group) {
    if (p.group !== '*' && !user.groups.includes(p.group)) return false;
    matched = true;
  }
  return matched;
}

const READ_ONLY = new Set(['get', 'list', 'watch']);

function verbMatches(p: PolicySpec, attrs: Attributes): boolean {
  return READ_ONLY.has(attrs.verb) || !p.readonly;
}

function resourceMatches(p: PolicySpec, attrs: Attributes): boolean {
  return (
    attrs.isResourceRequest &&
    (p.namespace === '*' || p.namespace === attrs.namespace) &&
    (p.resource === '*' || p.resource === attrs.resource) &&
    (p.apiGroup === '*' || p.apiGroup === attrs.apiGroup)
  );
}

function nonResourceMatches(p: PolicySpec, attrs: Attributes): boolean {
  if (attrs.isResourceRequest || p.nonResourcePath === '') return false;
  if (p.nonResourcePath === '*' || p.nonResourcePath === attrs.path) return true;
  return p.nonResourcePath.endsWith('*') && attrs.path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

export function matchesPolicy(p: PolicySpec, attrs: Attributes): boolean {
  return (
    subjectMatches(p, attrs.user) &&
    verbMatches(p, attrs) &&
    (resourceMatches(p, attrs) || nonResourceMatches(p, attrs))
  );
}

export function createAbacAuthorizer(policies: PolicySpec[]): Authorizer & RuleResolver {
  return {
    name: 'ABAC',
    type: 'ABAC',
    async authorize(attrs) {
      return policies.some((p) => matchesPolicy(p, attrs))
        ? { decision: 'Allow', reason: '' }
        : { decision: 'NoOpinion', reason: 'No policy matched.' };
    },
    async rulesFor(user, namespace): Promise<RulesResult> {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      for (const p of policies) {
        if (!subjectMatches(p, user)) continue;
        const verbs = p.readonly ? ['get', 'list', 'watch'] : ['*'];
        if (p.resource && (p.namespace === '*' || p.namespace === namespace)) {
          out.resourceRules.push({ verbs, apiGroups: [p.apiGroup], resources: [p.resource] });
        }
        // Paths have no namespace: upstream lists them only from policies whose namespace matches, which hides the
        // usual namespace-less non-resource policies; here they are listed whatever the namespace asked.
        if (p.nonResourcePath) out.nonResourceRules.push({ verbs: [...verbs], nonResourceURLs: [p.nonResourcePath] });
      }
      return out;
    },
  };
}
