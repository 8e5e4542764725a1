// Which resource a storage key belongs to, as the storage metrics name it: kube-apiserver's group-resource string
// ("configmaps", "deployments.apps"), the `type` of its etcd request metrics and the `resource` of
// apiserver_storage_objects. Every key is /registry/<group or core>/<resource>/... (registry/keys.ts), so the
// resource is the text up to the fourth '/': two indexOf calls and one map lookup per storage call, no pattern. A
// key under any other prefix is one fixed value, so nothing a client sends can add a series.
import type { KindDefinition } from '../../api/scheme.js';
import { collectionPrefix } from '../registry/keys.js';

export const UNKNOWN_STORAGE_TYPE = 'unknown';

const ROOT = '/registry/';

export interface StoredResource {
  /** The group-resource string: the metrics' label value. */
  type: string;
  /** The collection prefix holding every object of the resource (what apiserver_storage_objects counts). */
  prefix: string;
}

export interface StorageTypes {
  /** The type of a key or prefix; UNKNOWN_STORAGE_TYPE outside the served resources' collections. */
  typeOf(key: string): string;
  /** Each stored resource once (a kind stored as another resource's objects shares that resource's entry). */
  readonly resources: readonly StoredResource[];
}

export function storageTypes(kinds: readonly KindDefinition[]): StorageTypes {
  // "<group segment>/<resource>" → type
  const bySegment = new Map<string, StoredResource>();
  for (const def of kinds) {
    const prefix = collectionPrefix(def, '');
    const segment = prefix.slice(ROOT.length, -1);
    if (bySegment.has(segment)) continue;
    const group = def.storedAs ? def.storedAs.group : def.group;
    const resource = def.storedAs?.resource ?? def.resource;
    bySegment.set(segment, { type: group ? `${resource}.${group}` : resource, prefix });
  }
  return {
    typeOf(key) {
      if (!key.startsWith(ROOT)) return UNKNOWN_STORAGE_TYPE;
      const groupEnd = key.indexOf('/', ROOT.length);
      if (groupEnd < 0) return UNKNOWN_STORAGE_TYPE;
      const resourceEnd = key.indexOf('/', groupEnd + 1);
      const segment = key.slice(ROOT.length, resourceEnd < 0 ? key.length : resourceEnd);
      return bySegment.get(segment)?.type ?? UNKNOWN_STORAGE_TYPE;
    },
    resources: [...bySegment.values()],
  };
}
