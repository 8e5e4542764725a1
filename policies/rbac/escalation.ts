// Escalation prevention for writes of the RBAC kinds (upstream's policy-based rest storage of the rbac registry):
// nobody grants through a role or a binding what they do not hold themselves, unless they hold the `escalate`
// verb on the role (for roles) or `bind` on the referenced role (for bindings). system:masters bypasses.
import { errors, type StatusError } from '../../api/meta/errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import type { Attributes, Authorizer } from '../authorizer.js';
import { SYSTEM_PRIVILEGED_GROUP } from '../privileged-groups.js';
import { compactRules, compactString, goQuoteList, uncovered } from './covers.js';
import type { RbacKind } from './index.js';
import type { RbacRuleResolver } from './rule-resolver.js';
import { RBAC_GROUP, type BindingObject, type PolicyRule, type RoleObject } from './types.js';
import { canonicalJson as canonical } from '../../api/meta/canonical-json.js';

export interface RbacWrite {
  kind: RbacKind;
  /** '' for the cluster-scoped kinds. */
  namespace: string;
  name: string;
  object: RoleObject | BindingObject;
  /** Present on updates. */
  oldObject?: RoleObject | BindingObject;
  user: UserInfo;
}

export interface EscalationDeps {
  /** The server's whole authorizer chain, asked for `escalate` and `bind`. */
  authorizer: Authorizer;
  resolver: RbacRuleResolver;
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const RESOURCES: Record<RbacKind, string> = {
  Role: 'roles',
  ClusterRole: 'clusterroles',
  RoleBinding: 'rolebindings',
  ClusterRoleBinding: 'clusterrolebindings',
};

function attributes(user: UserInfo, verb: string, resource: string, namespace: string, name: string): Attributes {
  return {
    user,
    verb,
    isResourceRequest: true,
    path: '',
    apiGroup: RBAC_GROUP,
    apiVersion: 'v1',
    resource,
    subresource: '',
    namespace,
    name,
  };
}

/** Every field but the garbage collector's (ownerReferences, finalizers) and the server-maintained ones unchanged. */
function onlyGarbageCollectorFields(next: RoleObject | BindingObject, old: RoleObject | BindingObject): boolean {
  const strip = (o: RoleObject | BindingObject) => {
    const {
      ownerReferences: _o,
      finalizers: _f,
      resourceVersion: _r,
      managedFields: _m,
      generation: _g,
      ...meta
    } = o.metadata as Record<string, unknown>;
    return canonical({ ...o, metadata: meta });
  };
  return strip(next) === strip(old);
}

function forbidden(write: RbacWrite, why: string): StatusError {
  return errors.forbidden({ group: RBAC_GROUP, resource: RESOURCES[write.kind] }, write.name, why);
}

/** upstream's ConfirmNoEscalation: the user's rules in `namespace` must cover `rules`. */
function confirmNoEscalation(write: RbacWrite, rules: readonly PolicyRule[], deps: EscalationDeps): void {
  const held = deps.resolver.rulesFor(write.user, write.namespace);
  const missing = uncovered(held.rules, rules);
  if (missing.length === 0) return;
  const descriptions = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(write.user.name)} (groups=${goQuoteList(write.user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${held.errors.join(' ')}]`;
  throw forbidden(write, msg);
}

/** Throws a 403 StatusError when the write would grant permissions the user neither holds nor may delegate. */
export async function checkRbacWrite(write: RbacWrite, deps: EscalationDeps): Promise<void> {
  if (write.user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
  if (write.oldObject && onlyGarbageCollectorFields(write.object, write.oldObject)) return;
  const allowed = async (verb: string, resource: string, name: string): Promise<boolean> =>
    (await deps.authorizer.authorize(attributes(write.user, verb, resource, write.namespace, name))).decision ===
    'Allow';

  if (write.kind === 'Role' || write.kind === 'ClusterRole') {
    if (await allowed('escalate', RESOURCES[write.kind], write.name)) return;
    const role = write.object as RoleObject;
    confirmNoEscalation(write, role.rules ?? [], deps);
    // An aggregationRule can gather anything, so using one takes full authority.
    if (
      write.kind === 'ClusterRole' &&
      role.aggregationRule &&
      uncovered(deps.resolver.rulesFor(write.user, '').rules, FULL_AUTHORITY).length > 0
    ) {
      throw forbidden(write, 'must have cluster-admin privileges to use the aggregationRule');
    }
    return;
  }

  const binding = write.object as BindingObject;
  const ref = binding.roleRef;
  const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : '';
  // `bind` is checked where the binding lives ('' for a ClusterRoleBinding), so bind on a ClusterRole may be
  // delegated per namespace.
  if (refResource && (await allowed('bind', refResource, ref.name))) return;
  const { rules, err } = deps.resolver.roleRefRules(ref, write.namespace);
  if (err) throw forbidden(write, err);
  confirmNoEscalation(write, rules, deps);
}
