// Keeps every CustomResourceDefinition's status (acceptedNames, NamesAccepted, Established,
// KubernetesAPIApprovalPolicyConformant) and lets a deleted one go once its objects are deleted, as upstream's naming,
// establishing, API-approval and finalizer controllers do. Each pass walks the definitions in name order, so that of
// two definitions asking for one name the same one wins on every replica; a status is written only when it differs,
// guarded by resourceVersion.
import type { KObject } from '../../api/meta/types.js';
import { isStatusError } from '../../api/meta/errors.js';
import {
  APIEXTENSIONS_GROUP,
  CRD_CLEANUP_FINALIZER,
  isEstablished,
  servedDefinitionOf,
} from '../../api/apiextensions/v1/crd-types.js';
import { builtinNames, desiredStatus, takenNames } from '../apiextensions/crd-conditions.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { realClock, type Clock } from '../server/clock.js';
import { startCachedReconciler, type CachedReconciler } from './cached-reconciler.js';

export interface CrdStatusOptions {
  log: (line: string) => void;
  clock?: Clock;
  retryMs?: number;
}

const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A definition being deleted loses its cleanup finalizer, which lets the registry remove it. */
async function finalize(store: ResourceStore, crd: KObject): Promise<void> {
  await store.patch(
    '',
    crd.metadata.name ?? '',
    (current) => {
      const finalizers = (current.metadata.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      return { ...current, metadata: { ...current.metadata, finalizers } };
    },
    internalWrite(),
    '',
  );
}

/**
 * Deletes the objects of a definition being deleted, in every namespace, as upstream's finalizer controller does
 * before it lets the definition go; true once none is left. An established definition this replica does not serve
 * yet is not done: its objects are out of reach until it is.
 */
async function deleteInstances(registry: Registry, crd: KObject): Promise<boolean> {
  const served = servedDefinitionOf(crd);
  const store = registry.lookup(served.group, served.storageVersion, served.names.plural);
  if (!store) return !isEstablished(crd);
  const { items } = await store.list('', {});
  for (const item of items) {
    if (item.metadata.deletionTimestamp) continue;
    await store
      .delete(item.metadata.namespace ?? '', item.metadata.name ?? '', {}, internalWrite())
      .catch((e: unknown) => {
        if (!(isStatusError(e) && e.code === 404)) throw e;
      });
  }
  // Deleted at once unless finalizers of their own hold them.
  return (await store.list('', {})).items.length === 0;
}

export function startCrdStatusController(registry: Registry, opts: CrdStatusOptions): CachedReconciler | undefined {
  const store = registry.byKind(APIEXTENSIONS_GROUP, 'CustomResourceDefinition');
  if (!store) return undefined;
  const clock = opts.clock ?? realClock;
  const builtins = builtinNames(registry.fixedKinds);
  return startCachedReconciler(
    store,
    async (definitions, stopped) => {
      let ok = true;
      // What this pass has accepted so far, so that later definitions in the pass see it before the informer does.
      const view = new Map(definitions);
      for (const name of [...definitions.keys()].sort()) {
        if (stopped()) break;
        const crd = view.get(name)!;
        try {
          if (crd.metadata.deletionTimestamp) {
            if (!crd.metadata.finalizers?.includes(CRD_CLEANUP_FINALIZER)) continue;
            // Objects with finalizers of their own may take a while; the pass runs again until they are gone.
            if (await deleteInstances(registry, crd)) await finalize(store, crd);
            else ok = false;
            continue;
          }
          const status = desiredStatus(crd, takenNames(crd, view.values(), builtins), rfc3339(clock.now()));
          if (!status) continue;
          const written = await store.patch(
            '',
            name,
            // A definition changed since the informer saw it is decided again on the next pass.
            (current) =>
              current.metadata.resourceVersion === crd.metadata.resourceVersion ? { ...current, status } : current,
            internalWrite(),
            'status',
          );
          view.set(name, written);
        } catch (e) {
          if (isStatusError(e) && e.code === 404) continue;
          opts.log(`error: crd status: writing CustomResourceDefinition ${name}: ${(e as Error).message}`);
          ok = false;
        }
      }
      return ok;
    },
    { log: opts.log, retryMs: opts.retryMs ?? 1000 },
  );
}
