// RoleBinding: grants a Role or ClusterRole to subjects inside one namespace. roleRef is fixed for life.
import type { KindDefinition } from '../../scheme.js';
import { kindSchema } from '../../common/object-meta.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { bindingColumns } from '../../common/printers.js';
import {
  bindingProperties,
  defaultSubjects,
  mapBindingGroups,
  RBAC_GROUP,
  RBAC_GROUP_ALIASES,
  validateBinding,
  validateBindingUpdate,
} from './rbac-common.js';

export const roleBinding: KindDefinition = {
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'RoleBinding',
  resource: 'rolebindings',
  singular: 'rolebinding',
  groupAliases: RBAC_GROUP_ALIASES,
  mapReferencedGroups: mapBindingGroups,
  namespaced: true,
  statusSubresource: false,
  tracksGeneration: false,
  // PUT on a missing role or binding creates it, as upstream allows for RBAC objects.
  allowCreateOnUpdate: true,
  schema: kindSchema({
    group: RBAC_GROUP,
    version: 'v1',
    kind: 'RoleBinding',
    description:
      'RoleBinding references a role, but does not contain it. It can reference a Role in the same namespace or a ClusterRole in the global namespace.',
    properties: bindingProperties('Subjects holds references to the objects the role applies to.'),
    required: ['roleRef'],
  }),
  defaults: defaultSubjects,
  validate: (obj) => [...validateMetadata(obj, true, 'pathSegment'), ...validateBinding(obj, true)],
  validateUpdate: validateBindingUpdate,
  tableColumns: bindingColumns(
    'roleBinding',
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
  ),
};
