// How authenticators look up the objects behind a credential (a service account and what its token is bound to, a
// bootstrap token's Secret): as kube-apiserver's getters do, first from the cache (its informers; here this
// replica's storage read at `any`, no consistency fence), and only on a miss from the source of truth (its live GET;
// here a consistent read). On PostgreSQL a consistent read is a round trip to the database, which every request with
// such a token used to pay; the fallback still finds an object created a moment ago through another replica. A
// deletion through this replica is in its cache once answered; through another, once this replica's log reader
// applied it (a notification away).
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { ReadRevision } from '../../backends/storage.js';

const CACHED_READ: ReadRevision = Object.freeze({ match: 'any' });

export interface ObjectReader {
  get(namespace: string, name: string, read?: ReadRevision): Promise<KObject>;
}

/** The object, as `reader.get` answers it (a 404 StatusError when it does not exist). */
export async function lookUpCredentialObject(reader: ObjectReader, namespace: string, name: string): Promise<KObject> {
  try {
    return await reader.get(namespace, name, CACHED_READ);
  } catch (e) {
    if (!(isStatusError(e) && e.code === 404)) throw e;
  }
  return reader.get(namespace, name);
}
