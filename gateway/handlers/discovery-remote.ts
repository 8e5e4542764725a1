// The documents of merged discovery that remote APIServices change: /apis in both forms, and /apis/<group> and
// /apis/<group>/<version> of a remote group-version, answered from what its server last listed (kube-aggregator
// proxies the last two to the server; the proxy is not here, and the listing is what the server said). Groups served
// here keep their order (ours first, the `*.k8s.io` aliases after them, so that a resource name resolves to ours);
// remote groups follow, ordered by groupPriorityMinimum and versionPriority as upstream orders them. A remote
// group-version whose server never answered is listed in aggregated discovery as Stale without resources, and left
// out of the legacy documents, where a group-version without its resource list would fail every client's discovery.
import type { RemoteGroupVersion } from '../aggregator/remote-discovery.js';
import { groupsByAPIServiceOrder, groupsByPriority } from '../aggregator/version-order.js';

type Doc = Record<string, unknown>;

export interface LocalDiscovery {
  /** Named groups served here, in discovery order. */
  groups: string[];
  /** The group-versions served here, as `<group>/<version>`. */
  served: Set<string>;
  /** The legacy APIGroup of a local group (name, versions, preferredVersion). */
  apiGroup(name: string): Doc;
  /** The aggregated APIGroupDiscovery items of the named groups, in order. */
  aggregatedItems(apiVersion: string): Doc[];
}

export interface MergedDiscovery {
  /** Legacy documents that differ from the local ones or exist only for remote groups, by path. */
  legacy: Map<string, Doc>;
  aggregated(apiVersion: string): Doc;
}

const versionRef = (group: string, version: string) => ({ groupVersion: `${group}/${version}`, version });

function aggregatedVersion(gv: RemoteGroupVersion): Doc {
  return { version: gv.version, resources: gv.discovery?.resources ?? [], freshness: gv.stale ? 'Stale' : 'Current' };
}

/** An aggregated version entry back in the legacy APIResourceList form (upstream's APIResource field order). */
export function legacyResourceList(group: string, version: string, resources: Doc[]): Doc {
  const out: Doc[] = [];
  for (const r of resources) {
    const namespaced = r.scope === 'Namespaced';
    const entry = (name: unknown, singularName: unknown, kind: Doc | undefined, verbs: unknown): Doc => {
      const listed: Doc = { name, singularName: singularName ?? '', namespaced };
      // Only a kind of another group-version is named, as upstream lists serviceaccounts/token.
      if (kind && (kind.group !== group || kind.version !== version)) {
        listed.group = kind.group;
        listed.version = kind.version;
      }
      listed.kind = kind?.kind ?? '';
      listed.verbs = verbs ?? [];
      return listed;
    };
    const main = entry(r.resource, r.singularResource, r.responseKind as Doc | undefined, r.verbs);
    if (Array.isArray(r.shortNames) && r.shortNames.length > 0) main.shortNames = r.shortNames;
    if (Array.isArray(r.categories) && r.categories.length > 0) main.categories = r.categories;
    out.push(main);
    for (const s of Array.isArray(r.subresources) ? (r.subresources as Doc[]) : []) {
      out.push(entry(`${String(r.resource)}/${String(s.subresource)}`, '', s.responseKind as Doc | undefined, s.verbs));
    }
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: `${group}/${version}`, resources: out };
}

export function mergeDiscovery(local: LocalDiscovery, remote: RemoteGroupVersion[]): MergedDiscovery {
  // A group-version served here stays ours: another server cannot take it over through discovery.
  const gvs = remote.filter((gv) => !gv.pending && !local.served.has(`${gv.group}/${gv.version}`));
  const localGroups = new Set(local.groups);
  const joining = gvs.filter((gv) => localGroups.has(gv.group));
  const remoteOnly = gvs.filter((gv) => !localGroups.has(gv.group));
  const fetched = (list: RemoteGroupVersion[]) => list.filter((gv) => gv.discovery !== undefined);
  const legacy = new Map<string, Doc>();

  const groupDoc = (name: string): Doc => {
    if (!localGroups.has(name)) return {};
    const own = local.apiGroup(name);
    const extra = groupsByPriority(fetched(joining).filter((gv) => gv.group === name))[0]?.versions ?? [];
    return { ...own, versions: [...(own.versions as Doc[]), ...extra.map((gv) => versionRef(name, gv.version))] };
  };
  const remoteGroups = groupsByAPIServiceOrder(fetched(remoteOnly)).map(({ group, versions }) => ({
    name: group,
    versions: versions.map((gv) => versionRef(group, gv.version)),
    preferredVersion: versionRef(group, versions[0].version),
  }));
  legacy.set('/apis', {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [...local.groups.map(groupDoc), ...remoteGroups],
  });
  for (const name of new Set(fetched(joining).map((gv) => gv.group)))
    legacy.set(`/apis/${name}`, { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(name) });
  for (const g of remoteGroups) legacy.set(`/apis/${g.name}`, { kind: 'APIGroup', apiVersion: 'v1', ...g });
  for (const gv of fetched(gvs))
    legacy.set(`/apis/${gv.group}/${gv.version}`, legacyResourceList(gv.group, gv.version, gv.discovery!.resources));

  return {
    legacy,
    aggregated(apiVersion) {
      const items = local.aggregatedItems(apiVersion).map((item) => {
        const name = (item.metadata as Doc).name as string;
        const extra = groupsByPriority(joining.filter((gv) => gv.group === name))[0]?.versions ?? [];
        return extra.length === 0
          ? item
          : { ...item, versions: [...(item.versions as Doc[]), ...extra.map(aggregatedVersion)] };
      });
      for (const { group, versions } of groupsByPriority(remoteOnly))
        items.push({ metadata: { name: group, creationTimestamp: null }, versions: versions.map(aggregatedVersion) });
      return { kind: 'APIGroupDiscoveryList', apiVersion, metadata: {}, items };
    },
  };
}
