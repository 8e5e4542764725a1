// The generic registry store: one instance per resource type. It owns the write pipeline
// (prune → defaults → prepare → validate → storage) and the deletion state machine; handlers only translate
// HTTP into these calls.
import { errors, type GroupResource } from '../../api/meta/errors.js';
import type { DeleteOptions, KList, KObject } from '../../api/meta/types.js';
import { apiVersionOf, listKindOf, type KindDefinition } from '../../api/scheme.js';
import type { ListOptions, ReadRevision, Storage } from '../../backends/storage.js';
import { isStorageError } from '../../backends/storage.js';
import { preconditionFailure } from '../../backends/storage-support.js';
import { validateObjectMetaUpdate } from '../../api/meta/validation.js';
import type {
  AdmissionRequest,
  DeleteAdmissionRequest,
  KindValidator,
  NamespaceGate,
  WriteContext,
} from './admission-types.js';
import { collectionPrefix } from './keys.js';
import { toStatusError, translated } from './storage-errors.js';
import {
  applyConfiguration,
  placeManagedFieldsLast,
  recordUpdate,
  type ManagerRef,
  type TrackingScope,
} from './managed-fields/managers.js';
import { generateName, nowRFC3339, prepareForCreate, prepareForStatusUpdate, prepareForUpdate } from './strategy.js';
import { cloneJson } from '../../api/meta/clone.js';
import { admitTypeMeta } from './type-meta.js';

/** Where a write was sent: the object, its status, or its scale (a projection written back into spec). */
export type Subresource = '' | 'status' | 'scale';

export interface DeleteResult {
  object: KObject;
  /** True when the object is gone; false when deletion waits for finalizers. */
  deleted: boolean;
}

export interface ResourceStore {
  readonly def: KindDefinition;
  readonly groupResource: GroupResource;
  readonly storage: Storage;
  prefix(namespace: string): string;
  key(namespace: string, name: string): string;
  get(namespace: string, name: string, read?: ReadRevision): Promise<KObject>;
  list(namespace: string, opts: ListOptions): Promise<KList>;
  create(namespace: string, body: unknown, ctx: WriteContext): Promise<KObject>;
  /** PUT: replaces the object (or the status); creates it where the kind allows create-on-update. */
  update(
    namespace: string,
    name: string,
    body: unknown,
    ctx: WriteContext,
    subresource: Subresource,
  ): Promise<{ object: KObject; created: boolean }>;
  /** PATCH: `applyPatch` turns the stored object into the new body; retried on conflicts with a fresh object. */
  patch(
    namespace: string,
    name: string,
    applyPatch: (current: KObject) => unknown,
    ctx: WriteContext,
    subresource: Subresource,
  ): Promise<KObject>;
  /** Server-side apply by ctx.fieldManager; creates a missing object (not through a subresource). */
  apply(
    namespace: string,
    name: string,
    config: KObject,
    force: boolean,
    ctx: WriteContext,
    subresource: Subresource,
  ): Promise<{ object: KObject; created: boolean }>;
  delete(namespace: string, name: string, options: DeleteOptions, ctx: WriteContext): Promise<DeleteResult>;
}

function namespaceOf(def: KindDefinition, namespace: string): string {
  return def.namespaced ? namespace : '';
}

function finalizersOf(def: KindDefinition, obj: KObject): string[] {
  return [...(obj.metadata.finalizers ?? []), ...(def.blockingFinalizers?.(obj) ?? [])];
}

/**
 * The resourceVersion a write is conditional on. An empty one and "0" (which parses to revision 0, older than any
 * stored object) both ask for an unconditional write, as kube-apiserver reads them.
 */
function requiredVersion(obj: KObject): string | undefined {
  const version = obj.metadata.resourceVersion;
  return version === undefined || version === '' || version === '0' ? undefined : version;
}

/** Thrown inside storage callbacks when the state changed underneath (finalizers came or went): start over. */
class RetryDeletion extends Error {}

/** The validating admission phase of one write (a no-op when nothing is registered). */
export type AdmitWrite = (req: AdmissionRequest | DeleteAdmissionRequest) => Promise<void>;

const NO_ADMISSION: AdmitWrite = async () => {};

export function createResourceStore(
  def: KindDefinition,
  storage: Storage,
  validator: KindValidator,
  namespaces: NamespaceGate,
  admit: AdmitWrite = NO_ADMISSION,
): ResourceStore {
  const gr: GroupResource = { group: def.group, resource: def.resource };
  const apiVersion = apiVersionOf(def);
  /** Every key of this resource starts with this (collectionPrefix's rule, computed once rather than per request). */
  const basePrefix = collectionPrefix(def, '');
  const tracking: TrackingScope = {
    schema: def.schema,
    statusSubresource: !!def.statusSubresource,
    apiVersions: [apiVersion, ...(def.groupAliases ?? []).map((group) => `${group}/${def.version}`)],
  };

  function managerOf(
    ctx: WriteContext,
    operation: ManagerRef['operation'],
    subresource: Subresource,
  ): ManagerRef | undefined {
    return ctx.fieldManager === undefined
      ? undefined
      : { manager: ctx.fieldManager, operation, apiVersion, subresource };
  }

  /** Records an Update's ownership when the write came from a manager. */
  function track(current: KObject | undefined, next: KObject, ctx: WriteContext, subresource: Subresource): KObject {
    const ref = managerOf(ctx, 'Update', subresource);
    if (ref) recordUpdate(current, next, ref, tracking);
    return next;
  }

  /** Body → object of this kind: type checks, unknown/duplicate field policy, defaults. */
  function admitBody(body: unknown, ctx: WriteContext): KObject {
    const obj = admitTypeMeta(body, def);
    const undecodable = def.decodeProblem?.(obj);
    if (undecodable)
      throw errors.badRequest(
        `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${undecodable}`,
      );
    applyFieldValidation(validator.prune(obj), ctx);
    def.defaults?.(obj);
    return obj;
  }

  function applyFieldValidation(unknown: string[], ctx: WriteContext): void {
    if (ctx.fieldValidation === 'Ignore' || (unknown.length === 0 && ctx.duplicateFields.length === 0)) return;
    const problems = [
      ...unknown.map((f) => `unknown field "${f}"`),
      ...ctx.duplicateFields.map((f) => `duplicate field "${f}"`),
    ];
    if (ctx.fieldValidation === 'Strict') throw errors.badRequest(`strict decoding error: ${problems.join(', ')}`);
    // Not push(...problems): a body with a hundred thousand unknown fields would pass more arguments than the stack holds.
    for (const problem of problems) ctx.warnings.push(problem);
  }

  function invalid(obj: KObject, fieldErrors: ReturnType<KindValidator['validate']>): void {
    if (fieldErrors.length > 0) throw errors.invalid(def.kind, def.group, obj.metadata?.name ?? '', fieldErrors);
  }

  function checkNameMatches(obj: KObject, name: string): void {
    const bodyName = obj.metadata.name;
    if (bodyName !== undefined && bodyName !== '' && bodyName !== name) {
      throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
    }
    obj.metadata.name = name;
  }

  function checkNamespaceMatches(obj: KObject, namespace: string): void {
    if (!def.namespaced) return;
    const bodyNs = obj.metadata.namespace;
    if (bodyNs !== undefined && bodyNs !== '' && bodyNs !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    obj.metadata.namespace = namespace;
  }

  /** Completes a deletion that waited for finalizers once the last one is gone. */
  async function removeIfFinalized(key: string, obj: KObject): Promise<KObject> {
    if (!obj.metadata.deletionTimestamp || finalizersOf(def, obj).length > 0) return obj;
    try {
      return await storage.delete(key, { preconditions: { resourceVersion: obj.metadata.resourceVersion } });
    } catch (e) {
      if (isStorageError(e, 'NotFound') || isStorageError(e, 'Conflict')) return obj;
      throw e;
    }
  }

  const isNamespaceKind = def.group === '' && def.kind === 'Namespace';
  const store: ResourceStore = {
    def,
    groupResource: gr,
    storage,
    prefix: (namespace) => collectionPrefix(def, namespaceOf(def, namespace)),
    key: (namespace, name) =>
      def.namespaced && namespace ? `${basePrefix}${namespace}/${name}` : `${basePrefix}${name}`,

    get(namespace, name, read) {
      // The hottest read: the failure translation without translated()'s extra async frame and closure.
      return storage.get(store.key(namespace, name), { read }).catch((e: unknown) => {
        throw toStatusError(e, gr, name);
      });
    },

    async list(namespace, opts) {
      const result = await translated(gr, '', () => storage.getList(store.prefix(namespace), opts));
      const metadata: KList['metadata'] = { resourceVersion: String(result.revision) };
      if (result.continue) metadata.continue = result.continue;
      if (result.remainingItemCount !== undefined && result.remainingItemCount > 0)
        metadata.remainingItemCount = result.remainingItemCount;
      return { kind: listKindOf(def), apiVersion, metadata, items: result.items };
    },

    async create(namespace, body, ctx) {
      const obj = admitBody(body, ctx);
      checkNamespaceMatches(obj, namespace);
      const meta = obj.metadata;
      if (!meta.name && meta.generateName && typeof meta.generateName === 'string')
        meta.name = generateName(meta.generateName);
      const name = meta.name as string;
      await completeCreate(obj, namespace, ctx, (o) => track(undefined, o, ctx, ''));
      if (ctx.dryRun) {
        // Storage would refuse an existing name; a dry run must fail the same way.
        const exists = await storage.get(store.key(namespace, name)).then(
          () => true,
          () => false,
        );
        if (exists) throw errors.alreadyExists(gr, name);
        return obj;
      }
      return translated(gr, name, () => storage.create(store.key(namespace, name), obj));
    },

    async update(namespace, name, body, ctx, subresource) {
      const obj = admitBody(body, ctx);
      checkNameMatches(obj, name);
      checkNamespaceMatches(obj, namespace);
      const key = store.key(namespace, name);
      const expectedVersion = requiredVersion(obj);
      const create =
        def.allowCreateOnUpdate && subresource === ''
          ? () => completeCreate(cloneJson(obj), namespace, ctx, (o) => track(undefined, o, ctx, ''))
          : undefined;
      return updateOrCreate(
        key,
        name,
        ctx,
        async (current) => {
          if (expectedVersion !== undefined && expectedVersion !== current.metadata.resourceVersion) {
            throw errors.staleObject(gr, name);
          }
          return admitUpdate(
            track(current, buildUpdate(cloneJson(obj), current, subresource), ctx, subresource),
            current,
            namespace,
            name,
            subresource,
            ctx,
          );
        },
        create,
      );
    },

    async patch(namespace, name, applyPatch, ctx, subresource) {
      const key = store.key(namespace, name);
      const next = await writeThrough(
        key,
        name,
        async (current) => {
          const obj = admitBody(applyPatch(cloneJson(current)), ctx);
          checkNameMatches(obj, name);
          checkNamespaceMatches(obj, namespace);
          const expectedVersion = requiredVersion(obj);
          if (expectedVersion && expectedVersion !== current.metadata.resourceVersion)
            throw errors.staleObject(gr, name);
          return admitUpdate(
            track(current, buildUpdate(obj, current, subresource), ctx, subresource),
            current,
            namespace,
            name,
            subresource,
            ctx,
          );
        },
        ctx,
      );
      return ctx.dryRun ? next : removeIfFinalized(key, next);
    },

    async apply(namespace, name, config, force, ctx, subresource) {
      const ref = managerOf(ctx, 'Apply', subresource);
      if (!ref) throw new Error('apply needs a field manager');
      const key = store.key(namespace, name);
      const create =
        subresource === ''
          ? async () => {
              const fresh = admitBody(applyConfiguration(undefined, cloneJson(config), ref, force, tracking), ctx);
              checkNameMatches(fresh, name);
              checkNamespaceMatches(fresh, namespace);
              return completeCreate(fresh, namespace, ctx, placeManagedFieldsLast);
            }
          : undefined;
      return updateOrCreate(
        key,
        name,
        ctx,
        async (current) => {
          const obj = admitBody(applyConfiguration(current, cloneJson(config), ref, force, tracking), ctx);
          checkNameMatches(obj, name);
          checkNamespaceMatches(obj, namespace);
          const expectedVersion = requiredVersion(config);
          if (expectedVersion && expectedVersion !== current.metadata.resourceVersion)
            throw errors.staleObject(gr, name);
          const ownership = obj.metadata.managedFields;
          const next = buildUpdate(obj, current, subresource);
          // A status write keeps the stored metadata: the ownership the apply computed travels over explicitly.
          delete next.metadata.managedFields;
          if (ownership !== undefined) next.metadata.managedFields = ownership;
          return admitUpdate(next, current, namespace, name, subresource, ctx);
        },
        create,
      );
    },

    async delete(namespace, name, options, ctx) {
      const key = store.key(namespace, name);
      const preconditions = options.preconditions ?? {};
      if (isNamespaceKind && !ctx.dryRun) namespaces.deleted?.(name);
      for (let attempt = 0; ; attempt++) {
        const current = await store.get(namespace, name);
        const failure = preconditionFailure(preconditions, current);
        if (failure) throw errors.conflict(gr, name, failure.message);
        const refusal = def.forbidDeletion?.(current);
        if (refusal) throw errors.forbidden(gr, name, refusal);
        await admit({
          operation: 'DELETE',
          def,
          namespace: namespaceOf(def, namespace),
          name,
          oldObject: current,
          user: ctx.user,
          dryRun: ctx.dryRun,
          warnings: ctx.warnings,
          annotate: ctx.annotate,
        });
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
    },
  };

  /**
   * The part every create shares (POST, PUT-create, apply-create): server-set fields, ownership, validation and
   * admission (the namespace rules among it). `recordOwnership` runs once the server-set fields exist.
   */
  async function completeCreate(
    obj: KObject,
    namespace: string,
    ctx: WriteContext,
    recordOwnership: (obj: KObject) => void,
  ): Promise<KObject> {
    prepareForCreate(def, obj);
    recordOwnership(obj);
    invalid(obj, validator.validate(obj));
    const name = obj.metadata.name ?? '';
    await admit({
      operation: 'CREATE',
      def,
      namespace: namespaceOf(def, namespace),
      name,
      subresource: '',
      object: obj,
      user: ctx.user,
      dryRun: ctx.dryRun,
      warnings: ctx.warnings,
      annotate: ctx.annotate,
    });
    return obj;
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
    return { object: ctx.dryRun ? next : await removeIfFinalized(key, next), created };
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

  async function admitUpdate(
    next: KObject,
    current: KObject,
    namespace: string,
    name: string,
    subresource: Subresource,
    ctx: WriteContext,
  ): Promise<KObject> {
    await admit({
      operation: 'UPDATE',
      def,
      namespace: namespaceOf(def, namespace),
      name,
      subresource,
      object: next,
      oldObject: current,
      user: ctx.user,
      dryRun: ctx.dryRun,
      warnings: ctx.warnings,
      annotate: ctx.annotate,
    });
    return next;
  }

  function buildUpdate(obj: KObject, current: KObject, subresource: Subresource): KObject {
    if (subresource === 'status') {
      const next = prepareForStatusUpdate(obj, current);
      invalid(next, validator.validateStatusUpdate(next, current));
      return next;
    }
    prepareForUpdate(def, obj, current);
    const errs = validator.validateUpdate(obj, current);
    // A value of the wrong type is the one error reported, as for a create: the metadata rules would name it again.
    const wrongType = errs.some((e) => e.type === 'FieldValueTypeInvalid');
    invalid(obj, wrongType ? errs : [...validateObjectMetaUpdate(obj.metadata, current.metadata), ...errs]);
    return obj;
  }

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

  return store;
}
