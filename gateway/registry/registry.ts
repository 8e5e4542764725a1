// One ResourceStore per served resource, looked up by group/version/resource the way the router sees a request.
import type { KindDefinition } from '../../api/scheme.js';
import type { Storage } from '../../backends/storage.js';
import type { KindValidator, NamespaceGate } from './admission-types.js';
import { createNamespaceGate, createNamespaceLifecycleAdmission } from '../admission/namespace-lifecycle.js';
import { admissionChain, type AdmissionPlugin } from '../admission/plugin.js';
import { createResourceStore, type ResourceStore } from './store.js';
import type { StoreAdmission } from './admission-steps.js';
import { convertingStorage } from './converting-storage.js';

export interface Registry {
  readonly stores: ResourceStore[];
  /** The kinds served from the start, without those CustomResourceDefinitions add. */
  readonly fixedKinds: readonly KindDefinition[];
  lookup(group: string, version: string, resource: string): ResourceStore | undefined;
  byKind(group: string, kind: string): ResourceStore | undefined;
  /** The NamespaceLifecycle gate, which the stores tell of namespace deletions. */
  readonly namespaces: NamespaceGate;
  /** Replaces the admission plugins (gateway/admission/plugins.ts orders them); applies to every later write. */
  setAdmission(plugins: readonly AdmissionPlugin[]): void;
  /**
   * Serves `kinds` for `owner` (a CustomResourceDefinition's name) in place of what it served before; an empty list
   * stops serving them. Kinds served from the start are never replaced.
   */
  setDynamicKinds(owner: string, kinds: KindDefinition[]): void;
  /** Moves whenever the served kinds change: what is built from them (discovery, OpenAPI) is built again. */
  generation(): number;
  /**
   * Calls `listener` after every change of the served kinds, for what must act on it at once rather than on its next
   * request (the quota controller's watches); returns what unsubscribes it.
   */
  onKindsChanged(listener: () => void): () => void;
}

export function createRegistry(
  kinds: KindDefinition[],
  storage: Storage,
  validatorFor: (def: KindDefinition) => KindValidator,
): Registry {
  const stores: ResourceStore[] = [];
  const byPath = new Map<string, ResourceStore>();
  // The gate reads namespaces through the registry itself, once it exists.
  const gate = createNamespaceGate(() => registry.byKind('', 'Namespace'));
  // The server sets its plugins once the registry exists (they may need the authorizer, built over the registry), so
  // each store asks whichever chain is current at write time. Until then the namespace rules alone apply, which is
  // what a registry built without the server (tests, benchmarks) keeps.
  let plugins: readonly AdmissionPlugin[] = [createNamespaceLifecycleAdmission(gate)];
  let chain = admissionChain(plugins);
  const admission: StoreAdmission = {
    mutates: (def) => plugins.some((plugin) => plugin.mutate !== undefined && plugin.handles(def)),
    mutate: (req) => (req.operation === 'DELETE' ? chain.mutateDelete(req) : chain.mutate(req)),
    validate: (req) => (req.operation === 'DELETE' ? chain.validateDelete(req) : chain.validate(req)),
  };
  const storeOf = (def: KindDefinition): ResourceStore => {
    const kindStorage = def.storedAs ? convertingStorage(storage, def.storedAs) : storage;
    return createResourceStore(def, kindStorage, validatorFor(def), gate, admission);
  };
  const pathOf = (def: KindDefinition): string => `${def.group}/${def.version}/${def.resource}`;
  for (const def of kinds) {
    const store = storeOf(def);
    stores.push(store);
    byPath.set(pathOf(def), store);
  }
  // Dynamic stores stay in `stores` (the array is shared with readers, so it is changed in place) after the fixed ones.
  const dynamic = new Map<string, ResourceStore[]>();
  let generation = 0;
  const kindListeners = new Set<() => void>();
  const registry: Registry = {
    stores,
    fixedKinds: [...kinds],
    lookup: (group, version, resource) => byPath.get(`${group}/${version}/${resource}`),
    byKind: (group, kind) => stores.find((s) => s.def.group === group && s.def.kind === kind),
    namespaces: gate,
    setAdmission: (list) => {
      plugins = list;
      chain = admissionChain(list);
    },
    setDynamicKinds(owner, defs) {
      for (const old of dynamic.get(owner) ?? []) {
        stores.splice(stores.indexOf(old), 1);
        if (byPath.get(pathOf(old.def)) === old) byPath.delete(pathOf(old.def));
      }
      dynamic.delete(owner);
      // A path already served (a built-in kind, another definition) keeps its server: names decide who holds it.
      const added = defs.filter((def) => !byPath.has(pathOf(def))).map(storeOf);
      for (const store of added) {
        stores.push(store);
        byPath.set(pathOf(store.def), store);
      }
      if (added.length > 0) dynamic.set(owner, added);
      generation++;
      for (const listener of [...kindListeners]) listener();
    },
    generation: () => generation,
    onKindsChanged(listener) {
      kindListeners.add(listener);
      return () => kindListeners.delete(listener);
    },
  };
  return registry;
}
