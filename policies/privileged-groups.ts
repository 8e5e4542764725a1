// The system:masters bypass: members of a privileged group are allowed before any configured mode is asked,
// exactly as kube-apiserver puts its privileged-groups authorizer at the head of the chain whatever the modes are.
import type { Authorizer, RuleResolver } from './authorizer.js';
import { NO_OPINION } from './authorizer.js';

export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';

export function createPrivilegedGroupsAuthorizer(
  groups: string[] = [SYSTEM_PRIVILEGED_GROUP],
): Authorizer & RuleResolver {
  const privileged = new Set(groups);
  return {
    name: 'privileged-groups',
    async authorize(attrs) {
      return attrs.user.groups.some((g) => privileged.has(g)) ? { decision: 'Allow', reason: '' } : NO_OPINION;
    },
    // Lists nothing, as upstream, whose privileged-group authorizer stays out of rule resolution: what a member may do
    // is what the configured modes list (AlwaysAllow's everything, RBAC's cluster-admin binding and the rest).
    // Listing everything here as well printed every such rule twice in `kubectl auth can-i --list`. It still answers
    // rulesFor, because the union counts a member without it as one that cannot list (an incomplete answer).
    async rulesFor() {
      return { resourceRules: [], nonResourceRules: [], incomplete: false };
    },
  };
}
