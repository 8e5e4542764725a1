// The ResourceQuota admission plugin: a create in a namespace is charged against every quota there that limits
// one of the names the object consumes. The charge is a write of the quota's status.used with a resourceVersion
// precondition, made before the object is stored, so two creates racing for the last slot cannot both win: the
// loser's write conflicts, it re-reads the quota and is refused. Deletes give quota back through the controller.
// Dry runs check but charge nothing. As upstream, only CREATE matters for object counts; subresources and
// cluster-scoped kinds are never charged. The server's own writes (no user) are not charged, as every admission
// check here skips them; the controller still counts what they create.
import { errors, isStatusError, type GroupResource, type StatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { type AdmissionRequest, internalWrite } from '../registry/admission-types.js';
import type { AdmissionPlugin } from '../admission/plugin.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceStore } from '../registry/store.js';
import { chargeCreate, QuotaDenied } from './evaluate.js';
import { countedNames } from './resource-names.js';
import type { ResourceList } from './quantities.js';
import { cloneJson } from '../../api/meta/clone.js';

/** Charge attempts per quota before the conflict is handed to the client (upstream retries a few times too). */
const MAX_ATTEMPTS = 10;

/**
 * Runs one namespace's evaluations one at a time in this process (upstream queues them per namespace), so
 * concurrent creates through one replica do not just conflict with each other; replicas still meet at the
 * resourceVersion precondition.
 */
function createNamespaceLocks(): <T>(namespace: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return async (namespace, work) => {
    const before = tails.get(namespace) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(namespace, tail);
    try {
      return await run;
    } finally {
      if (tails.get(namespace) === tail) tails.delete(namespace);
    }
  };
}

export function createResourceQuotaAdmission(registry: Registry): AdmissionPlugin {
  const withNamespace = createNamespaceLocks();
  const quotas = (): ResourceStore | undefined => registry.byKind('', 'ResourceQuota');

  /** The new status.used for every quota that constrains the object; QuotaDenied when one refuses it. */
  function evaluate(
    items: readonly KObject[],
    names: readonly string[],
  ): Map<string, { quota: KObject; used: ResourceList }> {
    const charges = new Map<string, { quota: KObject; used: ResourceList }>();
    for (const quota of items) {
      const used = chargeCreate(quota, names);
      if (used) charges.set(quota.metadata.name ?? '', { quota, used });
    }
    return charges;
  }

  async function charge(store: ResourceStore, quota: KObject, used: ResourceList): Promise<void> {
    const next = cloneJson(quota);
    next.status = { ...(next.status as object | undefined), used };
    // The stored resourceVersion in the body is the precondition: a quota changed since it was read → 409.
    await store.update(quota.metadata.namespace ?? '', quota.metadata.name ?? '', next, internalWrite(), 'status');
  }

  async function exists(req: AdmissionRequest): Promise<boolean> {
    const store = registry.byKind(req.def.group, req.def.kind);
    if (!store) return false;
    return store.storage.get(store.key(req.namespace, req.name)).then(
      () => true,
      () => false,
    );
  }

  async function admitCreate(req: AdmissionRequest, store: ResourceStore): Promise<void> {
    const gr: GroupResource = { group: req.def.group, resource: req.def.resource };
    const names = countedNames(req.def.group, req.def.resource);
    let pending: Set<string> | undefined;
    for (let attempt = 1; ; attempt++) {
      const { items } = await store.list(req.namespace, {});
      // After a conflict only the quotas not yet charged are looked at again (the others already hold this object).
      const open = pending ? items.filter((q) => pending?.has(q.metadata.name ?? '')) : items;
      let charges: ReturnType<typeof evaluate>;
      try {
        charges = evaluate(open, names);
      } catch (e) {
        if (e instanceof QuotaDenied) throw errors.forbidden(gr, req.name, e.message);
        throw e;
      }
      if (req.dryRun || charges.size === 0) return;
      // A name already taken fails in storage right after admission: charging it would hold quota for nothing
      // until the next full recount.
      if (pending === undefined && (await exists(req))) return;
      pending ??= new Set(charges.keys());
      let conflict: StatusError | undefined;
      for (const [name, { quota, used }] of charges) {
        if (!pending.has(name)) continue;
        try {
          await charge(store, quota, used);
          pending.delete(name);
        } catch (e) {
          if (!isStatusError(e)) throw e;
          // A quota deleted meanwhile no longer limits anything.
          if (e.code === 404) pending.delete(name);
          else if (e.code === 409) conflict = e;
          else throw e;
        }
      }
      if (conflict === undefined) return;
      if (attempt >= MAX_ATTEMPTS) throw conflict;
    }
  }

  return {
    name: 'ResourceQuota',
    handles: (def) => def.namespaced,
    async validate(req) {
      if (req.operation !== 'CREATE' || req.subresource !== '' || req.namespace === '' || req.user === undefined)
        return;
      const store = quotas();
      if (!store) return;
      // Most namespaces hold no quota: their creates skip the per-namespace queue, and this look is served from the
      // cache (no consistency round trip to the database per create), as upstream's quota admission reads an informer.
      // The charge itself reads consistently and is guarded by the quota's resourceVersion.
      if ((await store.list(req.namespace, { read: { match: 'any' } })).items.length === 0) return;
      await withNamespace(req.namespace, () => admitCreate(req, store));
    },
  };
}
