// Autoregistration: a Local APIService for every group-version this server answers itself, as kube-aggregator's
// autoregister controller keeps them. Ours are labelled kube-aggregator.kubernetes.io/automanaged=true, upstream's
// "sync always": one deleted comes back, an edited spec is put back, and one whose group-version is no longer served
// (switched off by --runtime-config since the last start) is removed. APIServices without the label are never
// touched, so an operator takes one over by removing the label.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { canonicalJson } from '../../api/meta/canonical-json.js';
import { APIREGISTRATION_GROUP, AUTOMANAGED_LABEL, apiServiceName } from '../../api/apiregistration/v1/api-service.js';
import { priorityOf, type GroupVersionRef } from '../aggregator/priorities.js';
import { internalWrite } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { startCachedReconciler } from './cached-reconciler.js';
import type { Controller } from './namespace-lifecycle.js';

/** Upstream's value for APIServices kept in step for as long as the server runs (`onstart`: only at start). */
export const AUTOMANAGED_CONTINUOUSLY = 'true';
const AUTOMANAGED_VALUES = new Set([AUTOMANAGED_CONTINUOUSLY, 'onstart']);

export const isAutomanaged = (obj: KObject): boolean =>
  AUTOMANAGED_VALUES.has(obj.metadata.labels?.[AUTOMANAGED_LABEL] ?? '');

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
    const name = apiServiceName(gv.group, gv.version);
    desired.set(name, {
      apiVersion: `${APIREGISTRATION_GROUP}/v1`,
      kind: 'APIService',
      metadata: { name, labels: { [AUTOMANAGED_LABEL]: AUTOMANAGED_CONTINUOUSLY } },
      spec: {
        group: gv.group,
        version: gv.version,
        groupPriorityMinimum: priority.group,
        versionPriority: priority.version,
      },
    });
  }
  return desired;
}

export function startAutoregisterController(
  registry: Registry,
  opts: { served: GroupVersionRef[]; log: (line: string) => void; retryMs?: number },
): Controller & { synced: Promise<void> } {
  const store = registry.byKind(APIREGISTRATION_GROUP, 'APIService');
  if (!store) return { synced: Promise.resolve(), async stop() {} };
  const desired = desiredAPIServices(opts.served, opts.log);

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

  const reconciler = startCachedReconciler(
    store,
    async (current, stopped) => {
      let ok = true;
      for (const [name, wanted] of desired) {
        if (stopped()) return true;
        const have = current.get(name);
        if (!have) {
          ok = (await write(name, 'creating', () => store.create('', structuredClone(wanted), internalWrite()))) && ok;
        } else if (isAutomanaged(have) && canonicalJson(have.spec) !== canonicalJson(wanted.spec)) {
          const restore = (obj: KObject): KObject => ({ ...obj, spec: structuredClone(wanted.spec) });
          ok =
            (await write(name, 'restoring the spec of', () => store.patch('', name, restore, internalWrite(), ''))) &&
            ok;
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
    },
    { log: opts.log, retryMs: opts.retryMs ?? 1000 },
  );
  // Start-up waits for the first pass, failed writes included (they are logged and retried), never longer.
  return { synced: reconciler.firstPass, stop: () => reconciler.stop() };
}
