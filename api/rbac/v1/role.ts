// Role: a namespaced set of permission rules. Resource rules only: non-resource URLs have no namespace.
import type { KindDefinition } from '../../scheme.js';
import { kindSchema } from '../../common/object-meta.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { RBAC_GROUP, RBAC_GROUP_ALIASES, rulesSchema, validateRules } from './rbac-common.js';

export const role: KindDefinition = {
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'Role',
  resource: 'roles',
  singular: 'role',
  groupAliases: RBAC_GROUP_ALIASES,
  namespaced: true,
  statusSubresource: false,
  tracksGeneration: false,
  // PUT on a missing role or binding creates it, as upstream allows for RBAC objects.
  allowCreateOnUpdate: true,
  schema: kindSchema({
    group: RBAC_GROUP,
    version: 'v1',
    kind: 'Role',
    description:
      'Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.',
    properties: { rules: rulesSchema },
  }),
  validate: (obj) => [...validateMetadata(obj, true, 'pathSegment'), ...validateRules(obj.rules, true)],
};
