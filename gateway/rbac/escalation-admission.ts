// Escalation prevention as a validating admission plugin on the four RBAC kinds (see policies/rbac/escalation.ts).
// The server's own writes (no user: bootstrap policy, role aggregation) are not checked.
import type { Authorizer } from '../../policies/authorizer.js';
import { checkRbacWrite } from '../../policies/rbac/escalation.js';
import type { RbacKind } from '../../policies/rbac/index.js';
import type { RbacRuleResolver } from '../../policies/rbac/rule-resolver.js';
import { RBAC_GROUP } from '../../policies/rbac/types.js';
import type { AdmissionPlugin } from '../admission/plugin.js';

const KINDS = new Set<string>(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

export function createRbacEscalationAdmission(deps: {
  authorizer: Authorizer;
  resolver: RbacRuleResolver;
}): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    handles: (def) => def.group === RBAC_GROUP && KINDS.has(def.kind),
    async validate(req) {
      if (!req.user || req.subresource !== '') return;
      await checkRbacWrite(
        {
          kind: req.def.kind as RbacKind,
          namespace: req.namespace,
          name: req.name,
          object: req.object,
          oldObject: req.oldObject,
          user: req.user,
        },
        deps,
      );
    },
  };
}
