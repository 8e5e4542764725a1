// Which group/version/resource[/subresource] the gateway serves: request metrics name only those, so that requests
// for made-up resources collapse into one series instead of adding one each.
import type { KindDefinition } from '../../api/scheme.js';
import type { RemoteAPIs } from '../aggregator/remote-discovery.js';

export interface ServedResources {
  /** `subresource` '' asks about the resource itself. */
  has(group: string, version: string, resource: string, subresource: string): boolean;
}

export function servedResources(
  kinds: readonly KindDefinition[],
  virtual: readonly { group: string; version: string; resource: string }[],
): ServedResources {
  const served = new Map<string, Set<string>>();
  const add = (group: string, version: string, resource: string, subresources: string[]): void => {
    served.set(`${group}/${version}/${resource}`, new Set(['', ...subresources]));
  };
  for (const def of kinds) {
    const subresources = [
      ...(def.statusSubresource ? ['status'] : []),
      ...(def.resource === 'namespaces' ? ['finalize'] : []),
      ...Object.keys(def.createSubresources ?? {}),
      ...Object.keys(def.projectionSubresources ?? {}),
    ];
    add(def.group, def.version, def.resource, subresources);
  }
  for (const resource of virtual) add(resource.group, resource.version, resource.resource, []);
  return {
    has: (group, version, resource, subresource) =>
      served.get(`${group}/${version}/${resource}`)?.has(subresource) ?? false,
  };
}

/**
 * `served` and the resources remote APIServices' servers list in their discovery (proxied requests are named as
 * upstream names them), and nothing else under a remote group-version: a client inventing resource names there must
 * not grow the series either. The remote set is rebuilt only when merged discovery changed.
 */
export function withRemoteResources(served: ServedResources, remote: RemoteAPIs | undefined): ServedResources {
  if (!remote) return served;
  let generation = -1;
  let listed = new Set<string>();
  const remoteListed = (): Set<string> => {
    if (remote.generation() === generation) return listed;
    generation = remote.generation();
    listed = new Set();
    for (const gv of remote.list()) {
      for (const entry of gv.discovery?.resources ?? []) {
        const resource = `${gv.group}/${gv.discovery!.version}/${String(entry.resource)}`;
        listed.add(`${resource}/`);
        for (const sub of (entry.subresources ?? []) as Record<string, unknown>[])
          listed.add(`${resource}/${String(sub.subresource)}`);
      }
    }
    return listed;
  };
  return {
    has: (group, version, resource, subresource) =>
      served.has(group, version, resource, subresource) ||
      remoteListed().has(`${group}/${version}/${resource}/${subresource}`),
  };
}
