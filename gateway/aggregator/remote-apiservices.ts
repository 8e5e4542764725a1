// Which group-versions are answered by another server: the APIServices with a service, kept current by an informer
// on every replica, so that a new or edited APIService routes requests within moments of its write, without a
// restart. A Local APIService (no service) leaves its group-version to this server, as kube-aggregator hands those
// to its delegate.
import type { KObject } from '../../api/meta/types.js';
import { APIREGISTRATION_GROUP, conditionOf, serviceOf } from '../../api/apiregistration/v1/api-service.js';
import { asStr, specOf } from '../../api/common/validation-helpers.js';
import type { Registry } from '../registry/registry.js';
import { startInformer } from '../controllers/informer.js';
import type { ServiceReference } from './service-resolver.js';

export interface RemoteAPIService {
  /** The APIService's name, `<version>.<group>`. */
  name: string;
  service: ServiceReference;
  /** Its Available condition is True: upstream proxies nothing to a service its checks found unavailable. */
  available: boolean;
  /** The object itself, for its TLS settings (caBundle, insecureSkipTLSVerify). */
  object: KObject;
}

export interface RemoteAPIServices {
  /** The remote APIService owning the group-version, or undefined when this server answers it (or nobody does). */
  lookup(group: string, version: string): RemoteAPIService | undefined;
  /** Resolves once the first list is in: requests are not routed on a table still empty at start. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

const keyOf = (group: string, version: string): string => `${group}/${version}`;

function remoteOf(obj: KObject): RemoteAPIService | undefined {
  const service = serviceOf(obj);
  if (!service) return undefined;
  return {
    name: obj.metadata.name ?? '',
    service,
    available: conditionOf(obj, 'Available')?.status === 'True',
    object: obj,
  };
}

export function startRemoteAPIServices(registry: Registry, opts: { log: (line: string) => void }): RemoteAPIServices {
  const store = registry.byKind(APIREGISTRATION_GROUP, 'APIService');
  const byGroupVersion = new Map<string, RemoteAPIService>();
  if (!store) return { lookup: () => undefined, synced: Promise.resolve(), stop: async () => {} };
  // The name is `<version>.<group>` (validation holds it to the spec), but the spec is what says which requests go.
  const groupVersionOf = (obj: KObject): string => {
    const spec = specOf(obj);
    return keyOf(asStr(spec.group) ?? '', asStr(spec.version) ?? '');
  };
  const put = (obj: KObject): void => {
    const remote = remoteOf(obj);
    const key = groupVersionOf(obj);
    if (remote) byGroupVersion.set(key, remote);
    else byGroupVersion.delete(key);
  };
  const informer = startInformer(
    store,
    {
      replace(objects) {
        byGroupVersion.clear();
        for (const obj of objects) put(obj);
      },
      put,
      removed: (obj) => void byGroupVersion.delete(groupVersionOf(obj)),
    },
    { log: opts.log },
  );
  return {
    lookup: (group, version) => byGroupVersion.get(keyOf(group, version)),
    synced: informer.synced,
    stop: () => informer.stop(),
  };
}
