// The write paths of one resource: create, update (PUT, create-on-update), patch and server-side apply, through the
// object or its status and scale subresources. Each goes prune → defaults → prepare → validate → ownership →
// mutating admission → the same checks again on what it changed → validating admission → storage, the update paths
// inside storage's retry loop so that a conflict starts over from the fresh object.
import { errors } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { isStorageError } from '../../backends/storage.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { WriteContext } from './admission-types.js';
import { applyConfiguration, placeManagedFieldsLast } from './managed-fields/managers.js';
import { generateName, prepareForCreate } from './strategy.js';
import { toStatusError, translated } from './storage-errors.js';
import { managerOf, requiredVersion, track, type StoreScope, type Subresource } from './store-scope.js';
import { admitBody, buildUpdate, checkNameMatches, checkNamespaceMatches, invalid } from './write-checks.js';
import { removeIfFinalized } from './deletion.js';
import { admitWrite, writeAdmissionRequest } from './admission-steps.js';
import type { ResourceStore } from './store.js';

/** The writes of ResourceStore (store.ts documents each). */
export type WritePaths = Pick<ResourceStore, 'create' | 'update' | 'patch' | 'apply'>;

/** The object an update writes to, and through which subresource, for whom. */
interface UpdateTarget {
  namespace: string;
  name: string;
  subresource: Subresource;
  ctx: WriteContext;
}

export function createWritePaths(scope: StoreScope): WritePaths {
  const { def, storage, gr, apiVersion, tracking } = scope;

  /**
   * The part every create shares (POST, PUT-create, apply-create): server-set fields, ownership, validation and
   * admission (the namespace rules among it); answers the object to store. `recordOwnership` runs once the
   * server-set fields exist.
   */
  async function completeCreate(
    obj: KObject,
    namespace: string,
    ctx: WriteContext,
    recordOwnership: (obj: KObject) => void,
  ): Promise<KObject> {
    prepareForCreate(def, obj);
    recordOwnership(obj);
    invalid(scope, obj, scope.validator.validate(obj));
    const req = writeAdmissionRequest(scope, 'CREATE', namespace, obj.metadata.name ?? '', '', obj, undefined, ctx);
    return admitWrite(scope, req, (mutated) => {
      // The server-set fields again (status a mutation set is dropped, as upstream prepares after admission), but the
      // identity the mutating phase was shown stays.
      const { uid, creationTimestamp } = mutated.metadata;
      prepareForCreate(def, mutated);
      mutated.metadata.uid = uid;
      mutated.metadata.creationTimestamp = creationTimestamp;
      invalid(scope, mutated, scope.validator.validate(mutated));
      return mutated;
    });
  }

  function admitUpdate(next: KObject, current: KObject, target: UpdateTarget): Promise<KObject> {
    const { namespace, name, subresource, ctx } = target;
    const req = writeAdmissionRequest(scope, 'UPDATE', namespace, name, subresource, next, current, ctx);
    return admitWrite(scope, req, (mutated) => buildUpdate(scope, mutated, current, subresource, ctx));
  }

  /** Update and patch: the new body's successor of the stored object, its ownership, then admission. */
  function trackedUpdate(obj: KObject, current: KObject, target: UpdateTarget): Promise<KObject> {
    const { subresource, ctx } = target;
    const next = track(scope, current, buildUpdate(scope, obj, current, subresource, ctx), ctx, subresource);
    return admitUpdate(next, current, target);
  }

  /** A write conditional on a resourceVersion (the body's) other than the stored one is a 409. */
  function assertVersion(body: KObject, current: KObject, name: string): void {
    const expected = requiredVersion(body);
    if (expected !== undefined && expected !== current.metadata.resourceVersion) throw errors.staleObject(gr, name);
  }

  /** guaranteedUpdate, or for a dry run the same computation on a fresh read with nothing stored. */
  async function writeThrough(
    key: string,
    name: string,
    tryUpdate: (current: KObject) => Promise<KObject>,
    ctx: WriteContext,
    createFrom?: () => KObject,
  ): Promise<KObject> {
    if (!ctx.dryRun) return translated(gr, name, () => storage.guaranteedUpdate(key, tryUpdate, { createFrom }));
    let current: KObject;
    try {
      // Storage hands out read-only objects; tryUpdate, as under guaranteedUpdate, gets a private copy.
      current = cloneJson(await storage.get(key));
    } catch (e) {
      if (!(isStorageError(e, 'NotFound') && createFrom)) throw toStatusError(e, gr, name);
      current = createFrom();
    }
    return tryUpdate(current);
  }

  /**
   * guaranteedUpdate that creates a missing object when `create` is given (PUT-create, apply-create). Storage calls
   * createFrom right before tryUpdate sees the placeholder; a retry after a conflict sees the stored object instead.
   */
  async function updateOrCreate(
    key: string,
    name: string,
    ctx: WriteContext,
    update: (current: KObject) => Promise<KObject>,
    create?: () => Promise<KObject>,
  ): Promise<{ object: KObject; created: boolean }> {
    let pendingCreate = false;
    let created = false;
    const next = await writeThrough(
      key,
      name,
      async (current) => {
        created = pendingCreate;
        pendingCreate = false;
        return created && create ? create() : update(current);
      },
      ctx,
      create
        ? () => {
            pendingCreate = true;
            return { apiVersion, kind: def.kind, metadata: { name } };
          }
        : undefined,
    );
    return { object: ctx.dryRun ? next : await removeIfFinalized(scope, key, next), created };
  }

  return {
    async create(namespace, body, ctx) {
      const obj = admitBody(scope, body, ctx);
      checkNamespaceMatches(scope, obj, namespace);
      const meta = obj.metadata;
      if (!meta.name && meta.generateName && typeof meta.generateName === 'string')
        meta.name = generateName(meta.generateName);
      const name = meta.name as string;
      const admitted = await completeCreate(obj, namespace, ctx, (o) => track(scope, undefined, o, ctx, ''));
      if (ctx.dryRun) {
        // Storage would refuse an existing name; a dry run must fail the same way.
        const exists = await storage.get(scope.key(namespace, name)).then(
          () => true,
          () => false,
        );
        if (exists) throw errors.alreadyExists(gr, name);
        return admitted;
      }
      return translated(gr, name, () => storage.create(scope.key(namespace, name), admitted));
    },

    async update(namespace, name, body, ctx, subresource) {
      const obj = admitBody(scope, body, ctx);
      checkNameMatches(obj, name);
      checkNamespaceMatches(scope, obj, namespace);
      const key = scope.key(namespace, name);
      const create =
        def.allowCreateOnUpdate && subresource === ''
          ? () => completeCreate(cloneJson(obj), namespace, ctx, (o) => track(scope, undefined, o, ctx, ''))
          : undefined;
      return updateOrCreate(
        key,
        name,
        ctx,
        async (current) => {
          assertVersion(obj, current, name);
          return trackedUpdate(cloneJson(obj), current, { namespace, name, subresource, ctx });
        },
        create,
      );
    },

    async patch(namespace, name, applyPatch, ctx, subresource) {
      const key = scope.key(namespace, name);
      const next = await writeThrough(
        key,
        name,
        async (current) => {
          const obj = admitBody(scope, applyPatch(cloneJson(current)), ctx);
          checkNameMatches(obj, name);
          checkNamespaceMatches(scope, obj, namespace);
          assertVersion(obj, current, name);
          return trackedUpdate(obj, current, { namespace, name, subresource, ctx });
        },
        ctx,
      );
      return ctx.dryRun ? next : removeIfFinalized(scope, key, next);
    },

    async apply(namespace, name, config, force, ctx, subresource) {
      const ref = managerOf(scope, ctx, 'Apply', subresource);
      if (!ref) throw new Error('apply needs a field manager');
      const key = scope.key(namespace, name);
      const create =
        subresource === ''
          ? async () => {
              const fresh = admitBody(
                scope,
                applyConfiguration(undefined, cloneJson(config), ref, force, tracking),
                ctx,
              );
              checkNameMatches(fresh, name);
              checkNamespaceMatches(scope, fresh, namespace);
              return completeCreate(fresh, namespace, ctx, placeManagedFieldsLast);
            }
          : undefined;
      return updateOrCreate(
        key,
        name,
        ctx,
        async (current) => {
          const obj = admitBody(scope, applyConfiguration(current, cloneJson(config), ref, force, tracking), ctx);
          checkNameMatches(obj, name);
          checkNamespaceMatches(scope, obj, namespace);
          assertVersion(config, current, name);
          const ownership = obj.metadata.managedFields;
          const next = buildUpdate(scope, obj, current, subresource, ctx);
          // A status write keeps the stored metadata: the ownership the apply computed travels over explicitly.
          delete next.metadata.managedFields;
          if (ownership !== undefined) next.metadata.managedFields = ownership;
          return admitUpdate(next, current, { namespace, name, subresource, ctx });
        },
        create,
      );
    },
  };
}
