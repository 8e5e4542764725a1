// The in-memory RBAC index the authorizer reads: the four RBAC kinds keyed for the lookups a decision makes
// (role by namespace/name, bindings by namespace). The gateway keeps it current from a list + watch per kind;
// `replace` installs a fresh list (start and relist), `put`/`remove` apply single watch events.
import type { BindingObject, RbacSource, RoleObject } from './types.js';

export type RbacKind = 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';
export const RBAC_KINDS: readonly RbacKind[] = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];

export interface RbacIndex extends RbacSource {
  replace(kind: RbacKind, objects: Iterable<RoleObject | BindingObject>): void;
  put(kind: RbacKind, obj: RoleObject | BindingObject): void;
  remove(kind: RbacKind, obj: RoleObject | BindingObject): void;
}

/** namespace → name → object; cluster-scoped kinds live under namespace ''. */
type Table<T> = Map<string, Map<string, T>>;

function valuesOf<T>(m: Map<string, unknown> | undefined): Iterable<T> {
  return m ? (m.values() as Iterable<T>) : [];
}

export function createRbacIndex(): RbacIndex {
  const tables: Record<RbacKind, Table<RoleObject | BindingObject>> = {
    Role: new Map(),
    ClusterRole: new Map(),
    RoleBinding: new Map(),
    ClusterRoleBinding: new Map(),
  };

  const keyOf = (obj: RoleObject | BindingObject): [string, string] => [
    obj.metadata.namespace ?? '',
    obj.metadata.name ?? '',
  ];

  function put(kind: RbacKind, obj: RoleObject | BindingObject): void {
    const [ns, name] = keyOf(obj);
    let byName = tables[kind].get(ns);
    if (!byName) tables[kind].set(ns, (byName = new Map()));
    byName.set(name, obj);
  }

  return {
    replace(kind, objects) {
      tables[kind] = new Map();
      for (const obj of objects) put(kind, obj);
    },
    put,
    remove(kind, obj) {
      const [ns, name] = keyOf(obj);
      const byName = tables[kind].get(ns);
      if (!byName) return;
      byName.delete(name);
      if (byName.size === 0) tables[kind].delete(ns);
    },
    getRole: (namespace, name) => tables.Role.get(namespace)?.get(name),
    getClusterRole: (name) => tables.ClusterRole.get('')?.get(name),
    roleBindings: (namespace) => valuesOf<BindingObject>(tables.RoleBinding.get(namespace)),
    clusterRoleBindings: () => valuesOf<BindingObject>(tables.ClusterRoleBinding.get('')),
  };
}
