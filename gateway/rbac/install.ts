// The RBAC and Node write checks, installed on the registry once the authorizer chain exists (they ask it for the
// `escalate` and `bind` verbs). Escalation prevention applies whatever the authorization modes, as upstream's
// RBAC storage does: with AlwaysAllow every escalate check is simply allowed. NodeRestriction applies while the chain
// in force has a Node authorizer; with --authorization-config that can change on reload, so `modes` may be a function
// asked at each write.
import type { Authorizer } from '../../policies/authorizer.js';
import type { AuthorizationMode } from '../../policies/build-authorizer.js';
import { createRuleResolver } from '../../policies/rbac/rule-resolver.js';
import type { RbacSource } from '../../policies/rbac/types.js';
import type { Registry } from '../registry/registry.js';
import { createRbacEscalationAdmission } from './escalation-admission.js';
import { createNodeRestrictionAdmission } from './node-restriction-admission.js';

export function installRbacAdmission(registry: Registry, deps: { authorizer: Authorizer; rbac: RbacSource; modes: readonly AuthorizationMode[] | (() => readonly string[]) }): void {
  registry.addAdmission(createRbacEscalationAdmission({ authorizer: deps.authorizer, resolver: createRuleResolver(deps.rbac) }));
  const { modes } = deps;
  if (typeof modes === 'function') registry.addAdmission(createNodeRestrictionAdmission(() => modes().includes('Node')));
  else if (modes.includes('Node')) registry.addAdmission(createNodeRestrictionAdmission());
}
