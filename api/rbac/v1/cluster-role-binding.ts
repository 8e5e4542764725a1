// ClusterRoleBinding: grants a ClusterRole to subjects across the whole cluster. roleRef is fixed for life.
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

export const clusterRoleBinding: KindDefinition = {
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRoleBinding',
  resource: 'clusterrolebindings',
  singular: 'clusterrolebinding',
  groupAliases: RBAC_GROUP_ALIASES,
  mapReferencedGroups: mapBindingGroups,
  namespaced: false,
  statusSubresource: false,
  tracksGeneration: false,
  // PUT on a missing role or binding creates it, as upstream allows for RBAC objects.
  allowCreateOnUpdate: true,
  schema: kindSchema({
    group: RBAC_GROUP,
    version: 'v1',
    kind: 'ClusterRoleBinding',
    description:
      'ClusterRoleBinding references a ClusterRole, but does not contain it. It grants its permissions across the whole cluster.',
    properties: bindingProperties(
      'Subjects holds references to the objects the role applies to. ServiceAccount subjects must name their namespace.',
    ),
    required: ['roleRef'],
  }),
  defaults: defaultSubjects,
  validate: (obj) => [...validateMetadata(obj, false, 'pathSegment'), ...validateBinding(obj, false)],
  validateUpdate: validateBindingUpdate,
  tableColumns: bindingColumns(
    'clusterRoleBinding',
    'RoleRef can only reference a ClusterRole in the global namespace.',
  ),
};
