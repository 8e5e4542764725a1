// Namespaces at start and at their end. The built-in namespaces exist before the server reports ready; a namespace
// being deleted is emptied of every namespaced object (waiting for their finalizers), then its own `platform`
// finalizer (spec.finalizers) is dropped and it goes away, as upstream's namespace controller does.
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { isStorageError } from '../../backends/storage.js';
import { NAMESPACE_FINALIZER, SYSTEM_NAMESPACES } from '../../api/core/v1/namespace.js';
import type { WriteContext } from '../registry/admission-types.js';
import type { Registry } from '../registry/registry.js';
import { createLogger, lineLog } from '../server/logger.js';

const INTERNAL_WRITE: WriteContext = { dryRun: false, fieldValidation: 'Ignore', duplicateFields: [], warnings: [] };

export async function ensureSystemNamespaces(registry: Registry): Promise<void> {
  const namespaces = registry.byKind('', 'Namespace');
  if (!namespaces) return;
  for (const name of SYSTEM_NAMESPACES) {
    try {
      await namespaces.create(
        '',
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name } },
        { ...INTERNAL_WRITE, warnings: [] },
      );
    } catch (e) {
      if (!(isStatusError(e) && e.code === 409)) throw e;
    }
  }
}

export interface Controller {
  stop(): Promise<void>;
}

export function startNamespaceController(
  registry: Registry,
  opts: { retryMs?: number; log?: (line: string) => void } = {},
): Controller {
  const namespaces = registry.byKind('', 'Namespace');
  const abort = new AbortController();
  const retryMs = opts.retryMs ?? 500;
  const log = opts.log ?? lineLog(createLogger());
  const pending = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  if (!namespaces) return { async stop() {} };
  const storage = namespaces.storage;

  /** Deletes the content; true once nothing is left. */
  async function emptyNamespace(ns: string): Promise<boolean> {
    let remaining = 0;
    for (const store of registry.stores) {
      if (!store.def.namespaced) continue;
      const list = await store.list(ns, {});
      remaining += list.items.length;
      for (const item of list.items) {
        if (item.metadata.deletionTimestamp) continue;
        await store
          .delete(ns, item.metadata.name ?? '', {}, { ...INTERNAL_WRITE, warnings: [] })
          .catch((e: unknown) => {
            if (!(isStatusError(e) && e.code === 404)) throw e;
          });
      }
    }
    return remaining === 0;
  }

  async function finalize(name: string): Promise<void> {
    const key = namespaces!.key('', name);
    try {
      const updated = await storage.guaranteedUpdate(key, (ns: KObject) => {
        const spec = (ns.spec ?? {}) as { finalizers?: string[] };
        ns.spec = { ...spec, finalizers: (spec.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER) };
        return ns;
      });
      if (
        (updated.metadata.finalizers ?? []).length === 0 &&
        ((updated.spec as { finalizers?: string[] }).finalizers ?? []).length === 0
      ) {
        await storage.delete(key, { preconditions: { resourceVersion: updated.metadata.resourceVersion } });
      }
    } catch (e) {
      if (!isStorageError(e, 'NotFound')) throw e;
    }
  }

  function schedule(name: string, delayMs: number): void {
    if (abort.signal.aborted || pending.has(name)) return;
    pending.add(name);
    const timer = setTimeout(() => {
      timers.delete(timer);
      pending.delete(name);
      void reconcile(name);
    }, delayMs);
    timers.add(timer);
  }

  async function reconcile(name: string): Promise<void> {
    if (abort.signal.aborted) return;
    try {
      const ns = await namespaces!.get('', name).catch(() => undefined);
      if (!ns?.metadata.deletionTimestamp) return;
      if (await emptyNamespace(name)) await finalize(name);
      else schedule(name, retryMs);
    } catch (e) {
      log(`error: namespace controller: ${name}: ${(e as Error).message}`);
      schedule(name, retryMs * 4);
    }
  }

  const done = (async () => {
    while (!abort.signal.aborted) {
      try {
        const list = await storage.getList(namespaces.prefix(''));
        for (const ns of list.items) if (ns.metadata.deletionTimestamp) schedule(ns.metadata.name ?? '', 0);
        for await (const ev of storage.watch(
          namespaces.prefix(''),
          { revision: list.revision, recursive: true },
          abort.signal,
        )) {
          if (ev.object?.metadata.deletionTimestamp && ev.type !== 'DELETED')
            schedule(ev.object.metadata.name ?? '', 0);
        }
      } catch (e) {
        if (abort.signal.aborted) break;
        log(`namespace controller: watch ended: ${(e as Error).message}; relisting`);
        await new Promise((r) => setTimeout(r, retryMs));
      }
    }
  })();

  return {
    async stop() {
      abort.abort();
      for (const t of timers) clearTimeout(t);
      await done;
    },
  };
}
