// Walks the rules that apply to a user in a namespace, binding by binding, the way upstream's
// DefaultRuleResolver.VisitRulesFor does: every ClusterRoleBinding first, then the RoleBindings of the namespace.
// The authorizer, SelfSubjectRulesReview and the escalation checks all read rules through this one walk.
import type { UserInfo } from '../../api/meta/user.js';
import { describeSubject, subjectMatches, subjectProblem } from './rule-matching.js';
import { RBAC_GROUP, type BindingObject, type PolicyRule, type RbacSource, type RoleRef } from './types.js';

/** Where a rule came from, rendered lazily: only an allowing rule's source is ever printed. */
export interface RuleSource {
  describe(): string;
}

/** Return false to stop the walk. `err` reports a binding that contributes nothing (unresolvable roleRef...). */
export type RuleVisitor = (
  source: RuleSource | undefined,
  rule: PolicyRule | undefined,
  err: string | undefined,
) => boolean;

export interface RuleResolution {
  rules: PolicyRule[];
  errors: string[];
}

export function createRuleResolver(source: RbacSource) {
  /** The rules a roleRef grants, as seen from `bindingNamespace` ('' for a ClusterRoleBinding). */
  function roleRefRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[]; err?: string } {
    switch (ref.kind) {
      case 'ClusterRole': {
        const role = source.getClusterRole(ref.name);
        if (!role) return { rules: [], err: `clusterrole.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
        return { rules: role.rules ?? [] };
      }
      case 'Role': {
        const role = bindingNamespace ? source.getRole(bindingNamespace, ref.name) : undefined;
        if (!role) return { rules: [], err: `role.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found` };
        return { rules: role.rules ?? [] };
      }
      default:
        return { rules: [], err: `unsupported role reference kind: ${JSON.stringify(String(ref.kind))}` };
    }
  }

  /** Visits one binding's rules when a subject names the user; false when the visitor stopped the walk. */
  function visitBinding(binding: BindingObject, user: UserInfo, bindingNamespace: string, visit: RuleVisitor): boolean {
    let matched: number | undefined;
    const subjects = binding.subjects ?? [];
    for (let i = 0; i < subjects.length; i++) {
      const problem = subjectProblem(subjects[i]);
      if (problem) {
        if (!visit(undefined, undefined, problem)) return false;
        continue;
      }
      if (matched === undefined && subjectMatches(subjects[i], user, bindingNamespace)) matched = i;
    }
    if (matched === undefined) return true;
    const subject = subjects[matched];
    const { rules, err } = roleRefRules(binding.roleRef, bindingNamespace);
    if (err) return visit(undefined, undefined, err);
    const describe = bindingNamespace
      ? () =>
          `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${bindingNamespace}`)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, bindingNamespace)}`
      : () =>
          `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, '')}`;
    const from: RuleSource = { describe };
    for (const rule of rules) if (!visit(from, rule, undefined)) return false;
    return true;
  }

  /** Cluster-wide grants first, then those of `namespace` (none for ''). */
  function visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    for (const binding of source.clusterRoleBindings()) {
      if (!visitBinding(binding, user, '', visit)) return;
    }
    if (!namespace) return;
    for (const binding of source.roleBindings(namespace)) {
      if (!visitBinding(binding, user, namespace, visit)) return;
    }
  }

  return {
    roleRefRules,
    visitRulesFor,

    /** Every rule the user holds in `namespace` (cluster-wide ones included) and the problems met on the way. */
    rulesFor(user: UserInfo, namespace: string): RuleResolution {
      const rules: PolicyRule[] = [];
      const errors: string[] = [];
      visitRulesFor(user, namespace, (_from, rule, err) => {
        if (rule) rules.push(rule);
        if (err) errors.push(err);
        return true;
      });
      return { rules, errors };
    },
  };
}

export type RbacRuleResolver = ReturnType<typeof createRuleResolver>;
