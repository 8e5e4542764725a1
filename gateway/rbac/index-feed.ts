// Keeps the RBAC index the authorizer reads current: one informer per RBAC kind (list, then watch from the list's
// revision, relist on 410). Authorization decisions then come from memory, never a storage query per request.
import type { KObject } from '../../api/meta/types.js';
import { createRbacIndex, RBAC_KINDS, type RbacIndex } from '../../policies/rbac/index.js';
import { RBAC_GROUP, type BindingObject, type RoleObject } from '../../policies/rbac/types.js';
import { bootstrapClusterRoleBindings, bootstrapClusterRoles } from '../../policies/rbac/bootstrap-policy.js';
import { startInformer, type Informer } from '../controllers/informer.js';
import type { Registry } from '../registry/registry.js';

export interface RbacIndexFeed {
  readonly index: RbacIndex;
  /** Resolves once every served RBAC kind has been listed into the index. */
  readonly synced: Promise<void>;
  /** Resolves once the index has been listed and holds every default ClusterRole and ClusterRoleBinding (written at
   * start by the bootstrap policy), so the first request is decided with the default policy in place. */
  bootstrapIndexed(): Promise<void>;
  stop(): Promise<void>;
}

type RbacObject = RoleObject | BindingObject;

export function startRbacIndexFeed(
  registry: Registry,
  opts: { log: (line: string) => void; retryMs?: number },
): RbacIndexFeed {
  const index = createRbacIndex();
  const informers: Informer[] = [];
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of waiters) w();
  };
  for (const kind of RBAC_KINDS) {
    const store = registry.byKind(RBAC_GROUP, kind);
    if (!store) continue;
    informers.push(
      startInformer(
        store,
        {
          replace: (objects: KObject[]) => {
            index.replace(kind, objects as RbacObject[]);
            changed();
          },
          put: (obj) => {
            index.put(kind, obj);
            changed();
          },
          removed: (obj) => {
            index.remove(kind, obj);
            changed();
          },
        },
        opts,
      ),
    );
  }
  const synced = Promise.all(informers.map((i) => i.synced)).then(() => {});
  const servesClusterKinds = Boolean(
    registry.byKind(RBAC_GROUP, 'ClusterRole') && registry.byKind(RBAC_GROUP, 'ClusterRoleBinding'),
  );
  const roleNames = bootstrapClusterRoles().map((r) => r.metadata.name as string);
  const bindingNames = bootstrapClusterRoleBindings().map((b) => b.metadata.name as string);
  const bootstrapPresent = (): boolean =>
    !servesClusterKinds ||
    (roleNames.every((n) => index.getClusterRole(n)) &&
      bindingNames.every((n) => [...index.clusterRoleBindings()].some((b) => b.metadata.name === n)));
  return {
    index,
    synced,
    async bootstrapIndexed() {
      await synced;
      if (bootstrapPresent()) return;
      await new Promise<void>((resolve) => {
        const check = () => {
          if (!bootstrapPresent()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      });
    },
    async stop() {
      await Promise.all(informers.map((i) => i.stop()));
    },
  };
}
