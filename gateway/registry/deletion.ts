// The deletion state machine of one resource: preconditions, the kind's refusal, validating admission with the stored
// object, then either the removal or (while finalizers remain) the mark of a deletion in progress, which the last
// finalizer's removal completes.
import { errors } from '../../api/meta/errors.js';
import type { DeleteOptions, KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { isStorageError } from '../../backends/storage.js';
import { preconditionFailure } from '../../backends/storage-support.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { WriteContext } from './admission-types.js';
import type { StoreScope } from './store-scope.js';
import { deleteAdmissionRequest } from './admission-steps.js';
import { toStatusError } from './storage-errors.js';
import { nowRFC3339 } from './strategy.js';

export interface DeleteResult {
  object: KObject;
  /** True when the object is gone; false when deletion waits for finalizers. */
  deleted: boolean;
}

/** Thrown inside storage callbacks when the state changed underneath (finalizers came or went): start over. */
class RetryDeletion extends Error {}

function finalizersOf(def: KindDefinition, obj: KObject): string[] {
  return [...(obj.metadata.finalizers ?? []), ...(def.blockingFinalizers?.(obj) ?? [])];
}

/** Completes a deletion that waited for finalizers once the last one is gone. */
export async function removeIfFinalized(scope: StoreScope, key: string, obj: KObject): Promise<KObject> {
  if (!obj.metadata.deletionTimestamp || finalizersOf(scope.def, obj).length > 0) return obj;
  try {
    return await scope.storage.delete(key, { preconditions: { resourceVersion: obj.metadata.resourceVersion } });
  } catch (e) {
    if (isStorageError(e, 'NotFound') || isStorageError(e, 'Conflict')) return obj;
    throw e;
  }
}

export function createDeletion(
  scope: StoreScope,
  get: (namespace: string, name: string) => Promise<KObject>,
): (namespace: string, name: string, options: DeleteOptions, ctx: WriteContext) => Promise<DeleteResult> {
  const { def, storage, gr } = scope;
  const isNamespaceKind = def.group === '' && def.kind === 'Namespace';

  async function markDeleting(
    key: string,
    current: KObject,
    options: DeleteOptions,
    ctx: WriteContext,
  ): Promise<KObject> {
    const mark = (obj: KObject): KObject => {
      if (finalizersOf(def, obj).length === 0) throw new RetryDeletion();
      if (!obj.metadata.deletionTimestamp) {
        obj.metadata.deletionTimestamp = nowRFC3339();
        // No kind served here deletes gracefully (that is a pod's), so the grace period is 0, as upstream stores it.
        obj.metadata.deletionGracePeriodSeconds = 0;
        def.beginDeletion?.(obj);
      }
      return obj;
    };
    if (ctx.dryRun) return mark(cloneJson(current));
    return storage.guaranteedUpdate(key, mark, {
      preconditions: { uid: options.preconditions?.uid, resourceVersion: options.preconditions?.resourceVersion },
    });
  }

  return async function deleteObject(namespace, name, options, ctx) {
    const key = scope.key(namespace, name);
    const preconditions = options.preconditions ?? {};
    if (isNamespaceKind && !ctx.dryRun) scope.namespaces.deleted?.(name);
    for (let attempt = 0; ; attempt++) {
      const current = await get(namespace, name);
      const failure = preconditionFailure(preconditions, current);
      if (failure) throw errors.conflict(gr, name, failure.message);
      const refusal = def.forbidDeletion?.(current);
      if (refusal) throw errors.forbidden(gr, name, refusal);
      // Both phases, as upstream: the mutating one sees no object (a webhook may refuse, not patch), then the stored
      // object is what validating admission sees.
      const req = deleteAdmissionRequest(scope, namespace, name, current, options, ctx);
      await scope.admission.mutate(req);
      await scope.admission.validate(req);
      try {
        if (finalizersOf(def, current).length > 0) {
          return { object: await markDeleting(key, current, options, ctx), deleted: false };
        }
        if (ctx.dryRun) return { object: current, deleted: true };
        const object = await storage.delete(key, {
          preconditions: { uid: preconditions.uid, resourceVersion: current.metadata.resourceVersion },
          validate: (latest) => {
            if (finalizersOf(def, latest).length > 0) throw new RetryDeletion();
          },
        });
        return { object, deleted: true };
      } catch (e) {
        const retryable = e instanceof RetryDeletion || isStorageError(e, 'Conflict');
        if (!retryable || attempt >= 10) throw toStatusError(e, gr, name);
      }
    }
  };
}
