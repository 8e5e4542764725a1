// The generic registry store: one instance per resource type. It composes the write paths (write-path.ts: prune →
// defaults → prepare → validate → admission → storage) and the deletion state machine (deletion.ts) over one
// StoreScope, and serves the reads; handlers only translate HTTP into these calls.
import type { GroupResource } from '../../api/meta/errors.js';
import type { DeleteOptions, KList, KObject } from '../../api/meta/types.js';
import { apiVersionOf, listKindOf, type KindDefinition } from '../../api/scheme.js';
import type { ListOptions, ReadRevision, Storage } from '../../backends/storage.js';
import type { KindValidator, NamespaceGate, WriteContext } from './admission-types.js';
import { collectionPrefix } from './keys.js';
import { toStatusError, translated } from './storage-errors.js';
import { namespaceOf, type StoreScope, type Subresource } from './store-scope.js';
import { NO_ADMISSION, writeAdmissionRequest, type StoreAdmission, type WrittenKinds } from './admission-steps.js';
import { createWritePaths } from './write-path.js';
import { createDeletion, type DeleteResult } from './deletion.js';

export type { Subresource } from './store-scope.js';
export type { DeleteResult } from './deletion.js';

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
  /**
   * Admission of a create through a subresource that stores nothing of this kind (serviceaccounts/token): a CREATE of
   * the subresource with `object`, of the kind `kinds` names. What the mutating phase made of it goes through
   * `recheck` (the handler's own checks; this kind's schema is not the object's) before the validating phase; the
   * answer is the final object.
   */
  admitCreateThrough(
    namespace: string,
    name: string,
    subresource: string,
    object: KObject,
    kinds: WrittenKinds,
    ctx: WriteContext,
    recheck: (mutated: KObject) => KObject,
  ): Promise<KObject>;
}

export function createResourceStore(
  def: KindDefinition,
  storage: Storage,
  validator: KindValidator,
  namespaces: NamespaceGate,
  admission: StoreAdmission = NO_ADMISSION,
): ResourceStore {
  const gr: GroupResource = { group: def.group, resource: def.resource };
  const apiVersion = apiVersionOf(def);
  /** Every key of this resource starts with this (collectionPrefix's rule, computed once rather than per request). */
  const basePrefix = collectionPrefix(def, '');
  const key = (namespace: string, name: string): string =>
    def.namespaced && namespace ? `${basePrefix}${namespace}/${name}` : `${basePrefix}${name}`;
  const scope: StoreScope = {
    def,
    storage,
    validator,
    namespaces,
    admission,
    gr,
    apiVersion,
    tracking: {
      schema: def.schema,
      statusSubresource: !!def.statusSubresource,
      apiVersions: [apiVersion, ...(def.groupAliases ?? []).map((group) => `${group}/${def.version}`)],
    },
    key,
  };
  const writes = createWritePaths(scope);

  const store: ResourceStore = {
    def,
    groupResource: gr,
    storage,
    prefix: (namespace) => collectionPrefix(def, namespaceOf(def, namespace)),
    key,

    get(namespace, name, read) {
      // The hottest read: the failure translation without translated()'s extra async frame and closure.
      return storage.get(key(namespace, name), { read }).catch((e: unknown) => {
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

    ...writes,
    delete: createDeletion(scope, (namespace, name) => store.get(namespace, name)),
    async admitCreateThrough(namespace, name, subresource, object, kinds, ctx, recheck) {
      const req = writeAdmissionRequest(
        scope,
        'CREATE',
        namespace,
        name,
        subresource as 'token',
        object,
        undefined,
        ctx,
        kinds,
      );
      if (admission.mutates(def)) {
        await admission.mutate(req);
        req.object = recheck(req.object);
      }
      await admission.validate(req);
      return req.object;
    },
  };
  return store;
}
