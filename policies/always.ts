// The two trivial authorizers of kube-apiserver's --authorization-mode, for tests and single-user setups.
import type { Authorizer, RuleResolver } from './authorizer.js';

export function createAlwaysAllowAuthorizer(): Authorizer & RuleResolver {
  return {
    name: 'AlwaysAllow',
    async authorize() {
      return { decision: 'Allow', reason: '' };
    },
    async rulesFor() {
      return {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      };
    },
  };
}

/**
 * Upstream AlwaysDeny answers NoOpinion, so a later mode could still allow; the spec says it "denies all requests",
 * so here it is a real Deny that ends the chain. The reason is upstream's wording.
 */
export function createAlwaysDenyAuthorizer(): Authorizer & RuleResolver {
  return {
    name: 'AlwaysDeny',
    async authorize() {
      return { decision: 'Deny', reason: 'Everything is forbidden.' };
    },
    async rulesFor() {
      return { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}
