// The RBAC objects as the authorizer reads them, and the narrow read interface it needs. The objects are the stored
// API objects (api/rbac/v1); policies/ never imports the gateway, so the gateway implements RbacSource (an index kept
// current by a watch) and hands it over through AuthorizerDeps.
import type { KObject } from '../../api/meta/types.js';

export const RBAC_GROUP = 'rbac.authorization.platform.io';
/** The group stock kubectl writes into roleRef and subjects; accepted as a synonym of RBAC_GROUP. */
export const RBAC_GROUP_K8S = 'rbac.authorization.k8s.io';

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface RoleObject extends KObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
}

export interface BindingObject extends KObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

/**
 * Read access to the RBAC objects. Synchronous on purpose: implementations answer from memory (an index kept
 * current by a watch), never from storage per request. Returned objects are shared and must not be mutated.
 */
export interface RbacSource {
  getRole(namespace: string, name: string): RoleObject | undefined;
  getClusterRole(name: string): RoleObject | undefined;
  /** Every RoleBinding of one namespace. */
  roleBindings(namespace: string): Iterable<BindingObject>;
  clusterRoleBindings(): Iterable<BindingObject>;
}
