// Admission as the store runs it, in upstream's order: the mutating phase on the object the write would store, the
// re-check of what it changed (pruned silently and defaulted as a decoded body would be, server-owned fields and the
// kind's rules applied again), then the validating phase on the final object. A deletion goes through both phases
// with no object, as upstream's: nothing can change it. The request each phase sees is built here, with what the
// client addressed and the options it sent.
import { randomUUID } from 'node:crypto';
import { errors } from '../../api/meta/errors.js';
import { isObject, type DeleteOptions, type KObject } from '../../api/meta/types.js';
import { cloneJson } from '../../api/meta/clone.js';
import type { KindDefinition } from '../../api/scheme.js';
import type {
  AdmissionOptions,
  AdmissionRequest,
  DeleteAdmissionRequest,
  GroupVersionKind,
  WriteContext,
} from './admission-types.js';
import { namespaceOf, type StoreScope } from './store-scope.js';

/** The admission phases as the registry hands them to each store (registry.ts builds them from the plugin list). */
export interface StoreAdmission {
  /** Whether any mutating plugin looks at this kind: without one, the re-check after the phase is skipped. */
  mutates(def: KindDefinition): boolean;
  mutate(req: AdmissionRequest | DeleteAdmissionRequest): Promise<void>;
  validate(req: AdmissionRequest | DeleteAdmissionRequest): Promise<void>;
}

export const NO_ADMISSION: StoreAdmission = {
  mutates: () => false,
  mutate: async () => {},
  validate: async () => {},
};

const OPTIONS_API_VERSION = 'meta.k8s.io/v1';

/** The fields of `request` (AdmissionRequest minus the operation's own) every admission request shares. */
function requestIdentity(
  scope: StoreScope,
  namespace: string,
  name: string,
  subresource: string,
  kinds: WrittenKinds | undefined,
  options: AdmissionOptions,
  ctx: WriteContext,
) {
  const { def } = scope;
  const group = ctx.request?.group ?? def.group;
  return {
    uid: randomUUID(),
    def,
    kind: kinds?.kind ?? { group: def.group, version: def.version, kind: def.kind },
    resource: { group: def.group, version: def.version, resource: def.resource },
    requestKind: kinds?.requestKind ?? { group, version: def.version, kind: def.kind },
    requestResource: { group, version: def.version, resource: def.resource },
    requestSubResource: subresource,
    namespace: namespaceOf(def, namespace),
    name,
    user: ctx.user,
    dryRun: ctx.dryRun,
    options,
    warnings: ctx.warnings,
    annotate: ctx.annotate,
  };
}

/**
 * The kind written when it is not the resource's own: a projection (an autoscaling/v1 Scale through `scale`), or a
 * subresource's own kind (a TokenRequest, whose group the body's apiVersion names).
 */
export interface WrittenKinds {
  kind: GroupVersionKind;
  requestKind: GroupVersionKind;
}

/** CreateOptions or UpdateOptions with what the query set; a patch's PatchOptions travel as UpdateOptions upstream. */
function writeOptions(kind: 'CreateOptions' | 'UpdateOptions', ctx: WriteContext): AdmissionOptions {
  const options: AdmissionOptions = { kind, apiVersion: OPTIONS_API_VERSION };
  const query = ctx.request;
  if (query === undefined) return options;
  if (query.dryRun.length > 0) options.dryRun = [...query.dryRun];
  if (query.fieldManager !== '') options.fieldManager = query.fieldManager;
  if (query.fieldValidation !== '') options.fieldValidation = query.fieldValidation;
  return options;
}

export function writeAdmissionRequest(
  scope: StoreScope,
  operation: 'CREATE' | 'UPDATE',
  namespace: string,
  name: string,
  subresource: AdmissionRequest['subresource'],
  object: KObject,
  oldObject: KObject | undefined,
  ctx: WriteContext,
  kinds?: WrittenKinds,
): AdmissionRequest {
  const options = writeOptions(operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions', ctx);
  return {
    ...requestIdentity(scope, namespace, name, subresource, kinds ?? projectionKinds(scope, subresource), options, ctx),
    operation,
    subresource,
    object,
    oldObject,
  };
}

function projectionKinds(scope: StoreScope, subresource: string): WrittenKinds | undefined {
  const projection = subresource === '' ? undefined : scope.def.projectionSubresources?.[subresource];
  if (projection === undefined) return undefined;
  const kind = { group: projection.group, version: projection.version, kind: projection.kind };
  return { kind, requestKind: kind };
}

export function deleteAdmissionRequest(
  scope: StoreScope,
  namespace: string,
  name: string,
  oldObject: KObject,
  deleteOptions: DeleteOptions,
  ctx: WriteContext,
): DeleteAdmissionRequest {
  const options: AdmissionOptions = {
    ...cloneJson(deleteOptions),
    kind: 'DeleteOptions',
    apiVersion: OPTIONS_API_VERSION,
  };
  return { ...requestIdentity(scope, namespace, name, '', undefined, options, ctx), operation: 'DELETE', oldObject };
}

function keepOwnership(obj: KObject, ownership: KObject['metadata']['managedFields']): KObject {
  if (ownership === undefined) delete obj.metadata.managedFields;
  else obj.metadata.managedFields = ownership;
  return obj;
}

/** What the mutating phase may not change: the object's identity and the revision the write is conditional on. */
const IDENTITY = ['name', 'namespace', 'uid', 'resourceVersion'] as const;

/**
 * Runs both phases on `req` and answers the final object. `recheck` applies what the write path applied before the
 * mutating phase (server-owned fields, the kind's rules: an error names the field), to the mutated object.
 */
export async function admitWrite(
  scope: StoreScope,
  req: AdmissionRequest,
  recheck: (mutated: KObject) => KObject,
): Promise<KObject> {
  const { admission, def } = scope;
  if (admission.mutates(def)) {
    const before = req.object.metadata;
    const identity = IDENTITY.map((field) => before[field]);
    // Ownership is the request's (upstream records it before admission and resets what a mutation broke).
    const ownership = before.managedFields === undefined ? undefined : cloneJson(before.managedFields);
    await admission.mutate(req);
    const mutated: unknown = req.object;
    if (!isObject(mutated) || !isObject(mutated.metadata))
      throw errors.internal('mutating admission replaced the object with one that has no metadata');
    const obj = mutated as KObject;
    IDENTITY.forEach((field, i) => {
      const now = obj.metadata[field];
      if (now !== identity[i])
        throw errors.internal(
          `mutating admission attempted to change metadata.${field} from ${JSON.stringify(identity[i] ?? '')} to ${JSON.stringify(now ?? '')}, which is not supported`,
        );
    });
    scope.validator.prune(obj);
    def.defaults?.(obj);
    keepOwnership(obj, ownership);
    // A status write takes its metadata from the stored object again: the ownership travels over once more.
    req.object = keepOwnership(recheck(obj), ownership);
  }
  await admission.validate(req);
  return req.object;
}
