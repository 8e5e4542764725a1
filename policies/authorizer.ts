// Authorizers form a union: asked in order, the first Allow or Deny decides; all NoOpinion means 403.
import type { UserInfo } from '../api/meta/user.js';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
}

/** The request attributes an authorizer sees (the spec's list in document 2). */
export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** Non-resource requests. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export interface Authorizer {
  readonly name: string;
  authorize(attrs: Attributes, signal?: AbortSignal): Promise<AuthorizationResult>;
}

export const NO_OPINION: AuthorizationResult = { decision: 'NoOpinion', reason: '' };

export function createAuthorizerUnion(members: Authorizer[]): Authorizer {
  return {
    name: 'union',
    async authorize(attrs, signal) {
      // Allocated only once a member gives a reason: most requests are decided by the first member.
      let reasons: string[] | undefined;
      for (const member of members) {
        const result = await member.authorize(attrs, signal);
        if (result.decision !== 'NoOpinion') return result;
        if (result.reason) (reasons ??= []).push(result.reason);
      }
      return { decision: 'NoOpinion', reason: reasons ? reasons.join('\n') : '' };
    },
  };
}

/** A rule as SelfSubjectRulesReview reports it (authorization.platform.io/v1 ResourceRule). */
export interface ResourceRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

export interface NonResourceRule {
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface RulesResult {
  resourceRules: ResourceRule[];
  nonResourceRules: NonResourceRule[];
  /** True when some authorizer cannot enumerate its rules (webhooks): the lists may be a subset. */
  incomplete: boolean;
  evaluationError?: string;
}

/** Implemented by authorizers that can list what a user may do (RBAC); SelfSubjectRulesReview asks each in order. */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): Promise<RulesResult>;
}
