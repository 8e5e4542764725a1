// Autoregistration: a Local APIService for every group-version this server answers itself, as kube-aggregator's
// autoregister controller keeps them. Ours are labelled kube-aggregator.kubernetes.io/automanaged=true, upstream's
// "sync always": one deleted comes back, an edited spec is put back, and one whose group-version is no longer served
// (switched off by --runtime-config since the last start) is removed. APIServices without the label are never
// touched, so an operator takes one over by removing the label. The group-versions established
// CustomResourceDefinitions serve get theirs too, as upstream's CRD registration controller adds them: while a
// definition serves the version, and gone once none does.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { canonicalJson } from '../../api/meta/canonical-json.js';
import { APIREGISTRATION_GROUP, AUTOMANAGED_LABEL, apiServiceName } from '../../api/apiregistration/v1/api-service.js';
import { priorityOf, type GroupVersionRef } from '../aggregator/priorities.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { startCachedReconciler, type CachedReconciler } from './cached-reconciler.js';
import type { Controller } from './namespace-lifecycle.js';
import { startInformer } from './informer.js';
import { APIEXTENSIONS_GROUP, isEstablished, servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';

/** Upstream's value for APIServices kept in step for as long as the server runs (`onstart`: only at start). */
export const AUTOMANAGED_CONTINUOUSLY = 'true';
const AUTOMANAGED_VALUES = new Set([AUTOMANAGED_CONTINUOUSLY, 'onstart']);

export const isAutomanaged = (obj: KObject): boolean =>
  AUTOMANAGED_VALUES.has(obj.metadata.labels?.[AUTOMANAGED_LABEL] ?? '');

function localAPIService(gv: GroupVersionRef, priority: { group: number; version: number }): KObject {
  const name = apiServiceName(gv.group, gv.version);
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: 'APIService',
    metadata: { name, labels: { [AUTOMANAGED_LABEL]: AUTOMANAGED_CONTINUOUSLY } },
    spec: {
      group: gv.group,
      version: gv.version,
      groupPriorityMinimum: priority.group,
      versionPriority: priority.version,
    },
  };
}

/** The Local APIServices `served` calls for, by name; group-versions without a known priority are left out. */
export function desiredAPIServices(served: GroupVersionRef[], log: (line: string) => void): Map<string, KObject> {
  const desired = new Map<string, KObject>();
  for (const gv of served) {
    const priority = priorityOf(gv);
    if (!priority) {
      // As upstream: an APIService with made-up priorities could not be told from one an operator wrote.
      log(`warning: autoregistration: no priority known for ${gv.group || 'core'}/${gv.version}, no APIService`);
      continue;
    }
    desired.set(apiServiceName(gv.group, gv.version), localAPIService(gv, priority));
  }
  return desired;
}

/**
 * Upstream's priorities for a definition's group-versions: low for the group, so that a built-in group comes first,
 * and one version priority for all, so that versions sort by the kube-aware order.
 */
const CUSTOM_PRIORITY = { group: 1000, version: 100 };

/** A Local APIService per version the established definitions serve, by name. */
export function customAPIServices(definitions: Iterable<KObject>): Map<string, KObject> {
  const desired = new Map<string, KObject>();
  for (const crd of definitions) {
    if (!isEstablished(crd)) continue;
    const served = servedDefinitionOf(crd);
    for (const version of served.versions) {
      if (!version.served) continue;
      const gv = { group: served.group, version: version.name };
      desired.set(apiServiceName(gv.group, gv.version), localAPIService(gv, CUSTOM_PRIORITY));
    }
  }
  return desired;
}

export function startAutoregisterController(
  registry: Registry,
  opts: { served: GroupVersionRef[]; log: (line: string) => void; retryMs?: number },
): Controller & { synced: Promise<void> } {
  const store = registry.byKind(APIREGISTRATION_GROUP, 'APIService');
  if (!store) return { synced: Promise.resolve(), async stop() {} };
  const builtIn = desiredAPIServices(opts.served, opts.log);
  const definitions = new Map<string, KObject>();
  let reconciler: CachedReconciler | undefined;
  let stopping = false;
  const crdStore = registry.byKind(APIEXTENSIONS_GROUP, 'CustomResourceDefinition');
  const crdInformer =
    crdStore &&
    startInformer(
      crdStore,
      {
        replace(list) {
          definitions.clear();
          for (const crd of list) definitions.set(crd.metadata.name ?? '', crd);
          reconciler?.requeue();
        },
        put(crd) {
          definitions.set(crd.metadata.name ?? '', crd);
          reconciler?.requeue();
        },
        removed(crd) {
          definitions.delete(crd.metadata.name ?? '');
          reconciler?.requeue();
        },
      },
      { log: opts.log },
    );
  /** The server's own group-versions keep their APIServices whatever a definition says. */
  const desiredNow = (): Map<string, KObject> => {
    const desired = new Map(builtIn);
    for (const [name, apiService] of customAPIServices(definitions.values()))
      if (!desired.has(name)) desired.set(name, apiService);
    return desired;
  };

  /** Whether the write went through or lost to another writer, whose result the informer brings. */
  async function write(name: string, what: string, op: () => Promise<unknown>): Promise<boolean> {
    try {
      await op();
      opts.log(`autoregistration: ${what} APIService ${name}`);
      return true;
    } catch (e) {
      // Another replica (or a client) got there first: the watch brings its result and the next pass looks again.
      if (isStatusError(e) && (e.code === 404 || e.code === 409)) return true;
      opts.log(`error: autoregistration: ${what} APIService ${name}: ${(e as Error).message}`);
      return false;
    }
  }

  const pass = async (current: ReadonlyMap<string, KObject>, stopped: () => boolean): Promise<boolean> => {
    const desired = desiredNow();
    let ok = true;
    for (const [name, wanted] of desired) {
      if (stopped()) return true;
      const have = current.get(name);
      if (!have) {
        ok = (await write(name, 'creating', () => store.create('', structuredClone(wanted), internalWrite()))) && ok;
      } else if (isAutomanaged(have) && canonicalJson(have.spec) !== canonicalJson(wanted.spec)) {
        const restore = (obj: KObject): KObject => ({ ...obj, spec: structuredClone(wanted.spec) });
        ok =
          (await write(name, 'restoring the spec of', () => store.patch('', name, restore, internalWrite(), ''))) && ok;
      }
    }
    for (const [name, have] of [...current]) {
      if (stopped()) return true;
      if (desired.has(name) || !isAutomanaged(have)) continue;
      const preconditions = { uid: have.metadata.uid, resourceVersion: have.metadata.resourceVersion };
      ok =
        (await write(name, 'removing the no longer served', () =>
          store.delete('', name, { preconditions }, internalWrite()),
        )) && ok;
    }
    return ok;
  };
  // The first pass waits for the definitions: before them it would remove their APIServices, to add them back after.
  const synced = (crdInformer?.synced ?? Promise.resolve()).then(() => {
    if (stopping) return;
    reconciler = startCachedReconciler(store, pass, { log: opts.log, retryMs: opts.retryMs ?? 1000 });
    return reconciler.firstPass;
  });
  // Start-up waits for the first pass, failed writes included (they are logged and retried), never longer.
  return {
    synced,
    async stop() {
      stopping = true;
      await crdInformer?.stop();
      await reconciler?.stop();
    },
  };
}
