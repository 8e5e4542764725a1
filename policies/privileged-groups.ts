// The system:masters bypass: members of a privileged group are allowed before any configured mode is asked,
// exactly as kube-apiserver puts its privileged-groups authorizer at the head of the chain whatever the modes are.
import type { Authorizer, RuleResolver } from './authorizer.js';
import { NO_OPINION } from './authorizer.js';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export function createPrivilegedGroupsAuthorizer(groups: string[] = [SYSTEM_PRIVILEGED_GROUP]): Authorizer & RuleResolver {
  const privileged = new Set(groups);
  return {
    name: 'privileged-groups',
    async authorize(attrs) {
      return attrs.user.groups.some((g) => privileged.has(g)) ? { decision: 'Allow', reason: '' } : NO_OPINION;
    },
    // Members of the group may do everything; SelfSubjectRulesReview says so rather than listing nothing.
    async rulesFor(user) {
      if (!user.groups.some((g) => privileged.has(g))) return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return {
        resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
        incomplete: false,
      };
    },
  };
}
