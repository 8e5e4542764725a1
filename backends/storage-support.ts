// Contract pieces every backend applies the same way: taking in a caller's object, checking preconditions, and
// the NotFound error. Kept in one place so the backends cannot drift apart on wording or semantics.
import type { KObject } from '../api/meta/types.js';
import { isObject } from '../api/meta/types.js';
import { StorageError, type Preconditions } from './storage.js';

/** A private copy of a caller's object, with metadata guaranteed to be an object. */
export function intake(obj: KObject): KObject {
  const copy = structuredClone(obj);
  if (!isObject(copy.metadata)) copy.metadata = {};
  return copy;
}

export function checkPreconditions(key: string, current: KObject | undefined, pre: Preconditions | undefined): void {
  if (!pre) return;
  const meta = current?.metadata ?? {};
  if (pre.uid !== undefined && pre.uid !== meta.uid) {
    throw new StorageError('PreconditionUid', `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`, key);
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
    throw new StorageError(
      'Conflict',
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
      key,
    );
  }
}

export function notFound(key: string, revision?: bigint): StorageError {
  return new StorageError('NotFound', `key not found: ${key}`, key, revision);
}
