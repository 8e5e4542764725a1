// One ResourceStore per served resource, looked up by group/version/resource the way the router sees a request.
import { errors } from '../../api/meta/errors.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Storage } from '../../backends/storage.js';
import type { KindValidator, NamespaceGate } from './admission-types.js';
import { createResourceStore, type ResourceStore } from './store.js';

export interface Registry {
  readonly stores: ResourceStore[];
  lookup(group: string, version: string, resource: string): ResourceStore | undefined;
  byKind(group: string, kind: string): ResourceStore | undefined;
}

export function createRegistry(kinds: KindDefinition[], storage: Storage, validatorFor: (def: KindDefinition) => KindValidator): Registry {
  const stores: ResourceStore[] = [];
  const byPath = new Map<string, ResourceStore>();
  // The gate reads namespaces through the registry itself, once it exists.
  const gate: NamespaceGate = {
    async admitCreate(namespace) {
      const namespaces = registry.byKind('', 'Namespace');
      if (!namespaces) return;
      const ns = await namespaces.get('', namespace);
      if (ns.metadata.deletionTimestamp) {
        throw errors.forbidden({ group: '', resource: 'namespaces' }, namespace, `unable to create new content in namespace ${namespace} because it is being terminated`);
      }
    },
  };
  for (const def of kinds) {
    const store = createResourceStore(def, storage, validatorFor(def), gate);
    stores.push(store);
    byPath.set(`${def.group}/${def.version}/${def.resource}`, store);
  }
  const registry: Registry = {
    stores,
    lookup: (group, version, resource) => byPath.get(`${group}/${version}/${resource}`),
    byKind: (group, kind) => stores.find((s) => s.def.group === group && s.def.kind === kind),
  };
  return registry;
}
