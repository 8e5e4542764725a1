// ClusterRole: cluster-wide permission rules, optionally aggregated from other ClusterRoles by label selectors
// (the role-aggregation controller then owns `rules`).
import type { KindDefinition } from '../../scheme.js';
import type { FieldError } from '../../meta/field-errors.js';
import { fieldErrors } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema, labelSelectorSchema } from '../../common/object-meta.js';
import { arr, obj } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asArr, asObj, root, validateLabelSelector } from '../../common/validation-helpers.js';
import { RBAC_GROUP, RBAC_GROUP_ALIASES, rulesSchema, validateRules } from './rbac-common.js';

const aggregationRuleSchema = obj(
  {
    clusterRoleSelectors: arr(
      labelSelectorSchema,
      "A list of selectors used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added.",
      'atomic',
    ),
  },
  'AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If set, Rules are controller managed and direct changes to Rules will be stomped by the controller.',
);

function validateClusterRole(obj: KObject): FieldError[] {
  const errs = [...validateMetadata(obj, false, 'pathSegment'), ...validateRules(obj.rules, false)];
  const agg = asObj(obj.aggregationRule);
  if (agg) {
    const at = root('aggregationRule').child('clusterRoleSelectors');
    const selectors = asArr(agg.clusterRoleSelectors);
    if (selectors.length === 0)
      errs.push(fieldErrors.required(at, 'at least one clusterRoleSelector required if aggregationRule is non-nil'));
    selectors.forEach((s, i) => errs.push(...validateLabelSelector(s, at.index(i))));
  }
  return errs;
}

export const clusterRole: KindDefinition = {
  group: RBAC_GROUP,
  version: 'v1',
  kind: 'ClusterRole',
  resource: 'clusterroles',
  singular: 'clusterrole',
  groupAliases: RBAC_GROUP_ALIASES,
  namespaced: false,
  statusSubresource: false,
  tracksGeneration: false,
  // PUT on a missing role or binding creates it, as upstream allows for RBAC objects.
  allowCreateOnUpdate: true,
  schema: kindSchema({
    group: RBAC_GROUP,
    version: 'v1',
    kind: 'ClusterRole',
    description:
      'ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.',
    properties: { rules: rulesSchema, aggregationRule: aggregationRuleSchema },
  }),
  validate: validateClusterRole,
};
