// What every part of one resource's store shares (the write paths, the deletion state machine, the body checks):
// the kind, its storage and validator, the admission phases, and the rules of ownership, built once per kind.
import type { GroupResource } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Storage } from '../../backends/storage.js';
import type { KindValidator, NamespaceGate, WriteContext } from './admission-types.js';
import type { StoreAdmission } from './admission-steps.js';
import { recordUpdate, type ManagerRef, type TrackingScope } from './managed-fields/managers.js';

/** Where a write was sent: the object, its status, or its scale (a projection written back into spec). */
export type Subresource = '' | 'status' | 'scale';

export interface StoreScope {
  readonly def: KindDefinition;
  readonly storage: Storage;
  readonly validator: KindValidator;
  readonly namespaces: NamespaceGate;
  readonly admission: StoreAdmission;
  readonly gr: GroupResource;
  readonly apiVersion: string;
  readonly tracking: TrackingScope;
  key(namespace: string, name: string): string;
}

export function namespaceOf(def: KindDefinition, namespace: string): string {
  return def.namespaced ? namespace : '';
}

/**
 * The resourceVersion a write is conditional on. An empty one and "0" (which parses to revision 0, older than any
 * stored object) both ask for an unconditional write, as kube-apiserver reads them.
 */
export function requiredVersion(obj: KObject): string | undefined {
  const version = obj.metadata.resourceVersion;
  return version === undefined || version === '' || version === '0' ? undefined : version;
}

export function managerOf(
  scope: StoreScope,
  ctx: WriteContext,
  operation: ManagerRef['operation'],
  subresource: Subresource,
): ManagerRef | undefined {
  return ctx.fieldManager === undefined
    ? undefined
    : { manager: ctx.fieldManager, operation, apiVersion: scope.apiVersion, subresource };
}

/** Records an Update's ownership when the write came from a manager. */
export function track(
  scope: StoreScope,
  current: KObject | undefined,
  next: KObject,
  ctx: WriteContext,
  subresource: Subresource,
): KObject {
  const ref = managerOf(scope, ctx, 'Update', subresource);
  if (ref) recordUpdate(current, next, ref, scope.tracking);
  return next;
}
