// Which group/version/resource[/subresource] the gateway serves: request metrics name only those, so that requests
// for made-up resources collapse into one series instead of adding one each.
import type { KindDefinition } from '../../api/scheme.js';

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
