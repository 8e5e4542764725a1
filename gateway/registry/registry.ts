// One ResourceStore per served resource, looked up by group/version/resource the way the router sees a request.
import type { KindDefinition } from '../../api/scheme.js';
import type { Storage } from '../../backends/storage.js';
import type { AdmissionRequest, KindValidator, WriteAdmission } from './admission-types.js';
import { createNamespaceGate } from '../admission/namespace-lifecycle.js';
import { createResourceStore, type ResourceStore } from './store.js';
import { convertingStorage } from './converting-storage.js';

export interface Registry {
  readonly stores: ResourceStore[];
  lookup(group: string, version: string, resource: string): ResourceStore | undefined;
  byKind(group: string, kind: string): ResourceStore | undefined;
  /** Adds a validating admission plugin; it applies to every later write of the kinds it handles. */
  addAdmission(plugin: WriteAdmission): void;
}

export function createRegistry(kinds: KindDefinition[], storage: Storage, validatorFor: (def: KindDefinition) => KindValidator): Registry {
  const stores: ResourceStore[] = [];
  const byPath = new Map<string, ResourceStore>();
  // The gate reads namespaces through the registry itself, once it exists.
  const gate = createNamespaceGate(() => registry.byKind('', 'Namespace'));
  const plugins: WriteAdmission[] = [];
  // Plugins are added after the registry exists (they may need the authorizer, built over the registry), so each
  // store asks this chain, which looks up the plugins of its kind at write time.
  const admit = async (req: AdmissionRequest): Promise<void> => {
    for (const plugin of plugins) if (plugin.handles(req.def)) await plugin.validate(req);
  };
  for (const def of kinds) {
    const kindStorage = def.storedAs ? convertingStorage(storage, def.storedAs) : storage;
    const store = createResourceStore(def, kindStorage, validatorFor(def), gate, admit);
    stores.push(store);
    byPath.set(`${def.group}/${def.version}/${def.resource}`, store);
  }
  const registry: Registry = {
    stores,
    lookup: (group, version, resource) => byPath.get(`${group}/${version}/${resource}`),
    byKind: (group, kind) => stores.find((s) => s.def.group === group && s.def.kind === kind),
    addAdmission: (plugin) => { plugins.push(plugin); },
  };
  return registry;
}
