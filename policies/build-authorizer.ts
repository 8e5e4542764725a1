// Turns the --authorization-mode list into the authorizer union: the privileged-groups bypass first, then the modes
// in the order given. Later issues add RBAC, Node, Webhook and ABAC here and mark them implemented.
import { createAuthorizerUnion, type Authorizer } from './authorizer.js';
import { createAlwaysAllowAuthorizer, createAlwaysDenyAuthorizer } from './always.js';
import { createPrivilegedGroupsAuthorizer } from './privileged-groups.js';
import { createRbacAuthorizer } from './rbac/authorizer.js';
import type { RbacSource } from './rbac/types.js';
import { createNodeAuthorizer } from './node/authorizer.js';

/** Every mode name kube-apiserver accepts; only the implemented ones pass option parsing. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** What authorizers may need from the gateway; each mode that needs something adds a field (policies never import
 * gateway, so the gateway hands over narrow interfaces defined here or in the mode's folder). */
export interface AuthorizerDeps {
  log?: (line: string) => void;
  /** The RBAC objects, from the gateway's watch-fed index (required by mode RBAC). */
  rbac?: RbacSource;
}

function rbacFactory(deps: AuthorizerDeps): Authorizer {
  if (!deps.rbac) throw new Error('authorization mode "RBAC" needs the RBAC object index');
  return createRbacAuthorizer(deps.rbac);
}

const FACTORIES: Partial<Record<AuthorizationMode, (deps: AuthorizerDeps) => Authorizer>> = {
  AlwaysAllow: createAlwaysAllowAuthorizer,
  AlwaysDeny: createAlwaysDenyAuthorizer,
  RBAC: rbacFactory,
  Node: createNodeAuthorizer,
};

export function isImplementedMode(mode: AuthorizationMode): boolean {
  return FACTORIES[mode] !== undefined;
}

export function buildAuthorizer(modes: readonly AuthorizationMode[], deps: AuthorizerDeps = {}): Authorizer {
  const members = modes.map((mode) => {
    const factory = FACTORIES[mode];
    if (!factory) throw new Error(`authorization mode "${mode}" is not implemented yet`);
    return factory(deps);
  });
  return createAuthorizerUnion([createPrivilegedGroupsAuthorizer(), ...members]);
}
