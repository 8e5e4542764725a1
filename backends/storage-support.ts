// Contract pieces every backend applies the same way: taking in a caller's object, checking preconditions, and
// the NotFound error. Kept in one place so the backends cannot drift apart on wording or semantics.
import type { KObject } from '../api/meta/types.js';
import { isObject } from '../api/meta/types.js';
import { StorageError, type Preconditions, type StorageEvent } from './storage.js';
import { cloneJson, withProperty, withoutProperty } from '../api/meta/clone.js';
import { FINISHED } from './watcher-queue.js';

/** A private copy of a caller's object, with metadata guaranteed to be an object. */
export function intake(obj: KObject): KObject {
  const copy = cloneJson(obj);
  if (!isObject(copy.metadata)) copy.metadata = {};
  return copy;
}

/**
 * The object's JSON without metadata.resourceVersion: its content, as stored and compared. Built without a spread,
 * whose copies V8 gives hidden classes of their own (api/meta/clone.ts), which JSON.stringify then walks slowly.
 */
export function contentJson(obj: KObject): string {
  const meta: unknown = obj.metadata;
  if (!isObject(meta)) return JSON.stringify({ ...obj, metadata: { ...(meta as object) } });
  return JSON.stringify(withProperty(obj, 'metadata', withoutProperty(meta, 'resourceVersion')));
}

/**
 * The first precondition the object fails, with upstream's wording, or undefined. The registry checks a client's
 * DeleteOptions with it before storage sees the write, and storage checks its own callers: one rule for both. As
 * upstream's pointer fields, an empty string is a precondition and only an absent (or null) field is none.
 */
export function preconditionFailure(
  pre: Preconditions | undefined,
  current: KObject | undefined,
): { field: 'uid' | 'resourceVersion'; message: string } | undefined {
  if (!pre) return undefined;
  const meta = current?.metadata ?? {};
  if (pre.uid !== undefined && pre.uid !== null && pre.uid !== meta.uid) {
    return {
      field: 'uid',
      message: `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${meta.uid ?? ''}`,
    };
  }
  if (
    pre.resourceVersion !== undefined &&
    pre.resourceVersion !== null &&
    pre.resourceVersion !== meta.resourceVersion
  ) {
    return {
      field: 'resourceVersion',
      message: `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${meta.resourceVersion ?? ''}`,
    };
  }
  return undefined;
}

export function checkPreconditions(key: string, current: KObject | undefined, pre: Preconditions | undefined): void {
  const failure = preconditionFailure(pre, current);
  if (failure) throw new StorageError(failure.field === 'uid' ? 'PreconditionUid' : 'Conflict', failure.message, key);
}

export function notFound(key: string, revision?: bigint): StorageError {
  return new StorageError('NotFound', `key not found: ${key}`, key, revision);
}

/**
 * A watch whose first step awaits `open` (checks that must pass before it starts; undefined: nothing to watch, a
 * throw: the watch fails), then hands every step straight to the iterator `open` gave. A `yield*` wrapper would do the
 * same at the cost of one more generator resume per event and watcher, a thousand times per event.
 */
export function watchOpenedOnFirstStep(
  open: () => Promise<AsyncIterator<StorageEvent> | undefined>,
): AsyncIterableIterator<StorageEvent> {
  let inner: AsyncIterator<StorageEvent> | undefined;
  let opening: Promise<AsyncIterator<StorageEvent> | undefined> | undefined;
  let finished = false;
  const self: AsyncIterableIterator<StorageEvent> = {
    next() {
      if (inner) return inner.next();
      if (finished) return Promise.resolve(FINISHED);
      opening ??= open().then(
        (it) => {
          // The consumer may have let go while this was opening.
          if (finished) {
            void it?.return?.();
            return undefined;
          }
          inner = it;
          if (!it) finished = true;
          return it;
        },
        (e: unknown) => {
          finished = true;
          throw e;
        },
      );
      return opening.then((it) => (it ? it.next() : FINISHED));
    },
    return() {
      finished = true;
      return inner?.return ? inner.return() : Promise.resolve(FINISHED);
    },
    [Symbol.asyncIterator]() {
      return self;
    },
  };
  return self;
}
