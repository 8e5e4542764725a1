// The namespace lifecycle check of every namespaced create: no new content in a namespace that does not exist or
// is being terminated. Like kube-apiserver's NamespaceLifecycle admission, it reads the namespace from the local
// cache (storage's `any` read, no round trip) and goes to a consistent read only when that answer could be wrong
// in the caller's disfavour:
// - the cache has no such namespace, or shows it terminating: a refusal is always confirmed by a consistent read,
//   so a namespace created a moment ago (perhaps through another replica) is never refused;
// - the namespace was deleted through this gateway within the last FORCE_LIVE_LOOKUP_MS: upstream's
//   forceLiveLookupCache, so that a client's own DELETE followed by a create is refused even when this replica's
//   cache has not applied the deletion yet.
// A consistent read per create (PostgreSQL: a fence query, then a wait for the log reader) serialized creates
// behind the log reader; this keeps it for the cases where it decides something.
import { errors, isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { ReadRevision } from '../../backends/storage.js';
import type { NamespaceGate } from '../registry/admission-types.js';
import type { AdmissionPlugin } from './plugin.js';

/** Upstream's forceLiveLookupTTL. */
export const FORCE_LIVE_LOOKUP_MS = 30_000;

export interface NamespaceReader {
  get(namespace: string, name: string, read?: ReadRevision): Promise<KObject>;
}

const ANY: ReadRevision = { match: 'any' };

export function createNamespaceGate(
  namespaces: () => NamespaceReader | undefined,
  now: () => number = Date.now,
): NamespaceGate & Required<Pick<NamespaceGate, 'deleted'>> {
  const liveUntil = new Map<string, number>();

  function forcedLive(name: string): boolean {
    const until = liveUntil.get(name);
    if (until === undefined) return false;
    if (until > now()) return true;
    liveUntil.delete(name);
    return false;
  }

  return {
    async admitCreate(namespace) {
      const reader = namespaces();
      if (!reader) return;
      let ns: KObject | undefined;
      if (!forcedLive(namespace)) {
        try {
          ns = await reader.get('', namespace, ANY);
        } catch (e) {
          // Not in the cache (yet): the consistent read below decides, and answers the 404 if it is really absent.
          if (!isStatusError(e)) throw e;
        }
      }
      if (!ns || ns.metadata.deletionTimestamp) ns = await reader.get('', namespace);
      if (ns.metadata.deletionTimestamp) {
        throw errors.forbidden(
          { group: '', resource: 'namespaces' },
          namespace,
          `unable to create new content in namespace ${namespace} because it is being terminated`,
        );
      }
    },
    // A namespace this gateway marks for deletion (or deletes): creates in it read it consistently for a while.
    deleted(name) {
      liveUntil.set(name, now() + FORCE_LIVE_LOOKUP_MS);
      // Bounded by the namespaces deleted in one window; expired entries go as they are met or here.
      if (liveUntil.size > 1_000) for (const [n, until] of liveUntil) if (until <= now()) liveUntil.delete(n);
    },
  };
}

/** The gate as the NamespaceLifecycle plugin: it refuses namespaced creates; the registry tells it of deletions. */
export function createNamespaceLifecycleAdmission(gate: NamespaceGate): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    handles: (def) => def.namespaced,
    async validate(req) {
      if (req.operation === 'CREATE') await gate.admitCreate(req.namespace);
    },
  };
}
