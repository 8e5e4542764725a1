// Storage speaks in keys and revisions; clients expect Status objects naming their resource. This is the one place
// where one becomes the other.
import { errors, type GroupResource } from '../../api/meta/errors.js';
import { isStorageError } from '../../backends/storage.js';

export function toStatusError(e: unknown, gr: GroupResource, name: string): unknown {
  if (!isStorageError(e)) return e;
  switch (e.code) {
    case 'NotFound':
      return errors.notFound(gr, name);
    case 'KeyExists':
      return errors.alreadyExists(gr, name);
    case 'Conflict':
      return errors.staleObject(gr, name);
    case 'PreconditionUid':
      return errors.conflict(gr, name, e.message);
    case 'Expired':
      return errors.resourceExpired(e.message);
    case 'TooLargeRevision':
      return errors.tooLargeResourceVersion(e.revision ?? 0n, e.current ?? 0n);
    case 'InvalidContinue':
      return errors.badRequest(e.message);
    case 'Unavailable':
      return errors.serviceUnavailable(e.message);
    default:
      return errors.internal();
  }
}

/** Runs a storage call and rethrows its failure as the StatusError a client should see. */
export async function translated<T>(gr: GroupResource, name: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (e) {
    throw toStatusError(e, gr, name);
  }
}
