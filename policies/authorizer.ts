// Authorizers form a union: asked in order, the first Allow or Deny decides; all NoOpinion means 403.
import type { UserInfo } from '../api/meta/user.js';

export type Decision = 'Allow' | 'Deny' | 'NoOpinion';

export interface AuthorizationResult {
  decision: Decision;
  reason: string;
  /** Why the authorizer could not evaluate (webhook failure, match condition error); for access reviews and logs,
   * never the 403 message. */
  evaluationError?: string;
}

/** The request attributes an authorizer sees (kube-apiserver's authorizer attributes). */
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
  /** The authorizer type (`Webhook`, `RBAC`...) for metrics; defaults to the name. */
  readonly type?: string;
  /**
   * `callerGone` gives a signal aborted once the caller can no longer use the answer. Only an authorizer about to
   * wait on something (a webhook call) asks for it: making the signal costs an HTTP/2 request ~10 µs (a controller, a
   * close listener and a map entry per stream), which a decision taken in memory should not pay.
   */
  authorize(attrs: Attributes, callerGone?: CallerGone): Promise<AuthorizationResult>;
}

export type CallerGone = () => AbortSignal;

export const NO_OPINION: AuthorizationResult = { decision: 'NoOpinion', reason: '' };

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

/** Receives each terminal decision of a union member (metrics). */
export type DecisionObserver = (member: Authorizer, decision: Decision) => void;

export function isRuleResolver(a: unknown): a is RuleResolver {
  return typeof (a as Partial<RuleResolver>).rulesFor === 'function';
}

/** The union of authorizers, itself a RuleResolver: rules are gathered from every member that can list them; a member
 * that cannot (a webhook, or one without rulesFor) makes the answer `incomplete`. */
export function createAuthorizerUnion(members: Authorizer[], observe?: DecisionObserver): Authorizer & RuleResolver {
  return {
    name: 'union',
    async authorize(attrs, callerGone) {
      // Allocated only once a member gives a reason: most requests are decided by the first member.
      let reasons: string[] | undefined;
      let evaluationErrors: string[] | undefined;
      for (const member of members) {
        const result = await member.authorize(attrs, callerGone);
        if (result.decision !== 'NoOpinion') {
          observe?.(member, result.decision);
          if (!evaluationErrors || result.evaluationError !== undefined) return result;
          return { ...result, evaluationError: evaluationErrors.join('; ') };
        }
        if (result.reason) (reasons ??= []).push(result.reason);
        if (result.evaluationError) (evaluationErrors ??= []).push(result.evaluationError);
      }
      const out: AuthorizationResult = { decision: 'NoOpinion', reason: reasons ? reasons.join('\n') : '' };
      if (evaluationErrors) out.evaluationError = evaluationErrors.join('; ');
      return out;
    },
    async rulesFor(user, namespace) {
      const out: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const member of members) {
        if (!isRuleResolver(member)) {
          out.incomplete = true;
          continue;
        }
        let rules: RulesResult;
        try {
          rules = await member.rulesFor(user, namespace);
        } catch (e) {
          out.incomplete = true;
          errors.push((e as Error).message);
          continue;
        }
        out.resourceRules.push(...rules.resourceRules);
        out.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) out.incomplete = true;
        if (rules.evaluationError) errors.push(rules.evaluationError);
      }
      if (errors.length > 0) out.evaluationError = errors.join('; ');
      return out;
    },
  };
}
