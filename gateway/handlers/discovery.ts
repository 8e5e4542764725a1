// Discovery in both forms kubectl reads: the legacy documents (/api, /apis, /apis/<g>, per-version
// APIResourceList) and the aggregated APIGroupDiscoveryList, recognised by kubectl only under the exact
// `g=apidiscovery.k8s.io` content type. Documents are built once from the scheme; nothing here changes per request.
// Alias groups (`rbac.authorization.k8s.io`...) come after every group of ours: clients resolve a resource or short
// name that several groups list to the first of them, which must be ours.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { apiVersionOf, type KindDefinition } from '../../api/scheme.js';
import { aliasedKinds, isAliasedKind } from '../request/group-alias.js';
import type { VirtualResource } from './virtual-resources.js';

const ITEM_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const itemVerbs = (def: KindDefinition): string[] =>
  def.noDeleteCollection ? ITEM_VERBS.filter((v) => v !== 'deletecollection') : ITEM_VERBS;
const STATUS_VERBS = ['get', 'patch', 'update'];
/** Virtual resources (the review kinds) and create-only subresources (serviceaccounts/token). */
const VIRTUAL_VERBS = ['create'];

interface GroupVersion {
  group: string;
  version: string;
  kinds: KindDefinition[];
  virtual: VirtualResource[];
}

/** One hash per stored kind: an alias lists the hash of the kind it names, since both read the same objects. */
function storageVersionHash(def: KindDefinition): string {
  const group = isAliasedKind(def) ? def.aliasOf : def.group;
  return createHash('sha256').update(`${group}/${def.version}/${def.kind}`).digest().subarray(0, 8).toString('base64');
}

/**
 * Categories of a kind as listed: none at an alias, where `kubectl get all` (or any category) would list every
 * object twice.
 */
function categoriesOf(def: KindDefinition): string[] | undefined {
  return isAliasedKind(def) ? undefined : def.categories;
}

function withOptional<T extends Record<string, unknown>>(base: T, extra: Record<string, unknown[] | undefined>): T {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(extra)) if (v && v.length > 0) out[k] = v;
  return out as T;
}

function groupVersions(kinds: KindDefinition[], virtual: VirtualResource[]): GroupVersion[] {
  const byKey = new Map<string, GroupVersion>();
  const entry = (group: string, version: string): GroupVersion => {
    const key = `${group}/${version}`;
    let gv = byKey.get(key);
    if (!gv) byKey.set(key, (gv = { group, version, kinds: [], virtual: [] }));
    return gv;
  };
  for (const def of kinds) entry(def.group, def.version).kinds.push(def);
  for (const r of virtual) if (r.aliasOf === undefined) entry(r.group, r.version).virtual.push(r);
  for (const def of aliasedKinds(kinds)) entry(def.group, def.version).kinds.push(def);
  for (const r of virtual) if (r.aliasOf !== undefined) entry(r.group, r.version).virtual.push(r);
  return [...byKey.values()];
}

/** Every group-version served here (aliases included), in discovery order: what autoregistration keeps APIServices of. */
export function servedGroupVersions(
  kinds: KindDefinition[],
  virtual: VirtualResource[],
): { group: string; version: string }[] {
  return groupVersions(kinds, virtual).map(({ group, version }) => ({ group, version }));
}

function apiResourceList(gv: GroupVersion): Record<string, unknown> {
  const resources: Record<string, unknown>[] = [];
  for (const def of gv.kinds) {
    // Upstream's field order (APIResource's): kubectl's own tests match one entry's JSON byte for byte.
    resources.push({
      ...withOptional(
        {
          name: def.resource,
          singularName: def.singular,
          namespaced: def.namespaced,
          kind: def.kind,
          verbs: itemVerbs(def),
        },
        { shortNames: def.shortNames, categories: categoriesOf(def) },
      ),
      storageVersionHash: storageVersionHash(def),
    });
    // Subresources in name order, as upstream lists them (`replicasets/scale` before `replicasets/status`).
    const subresources: Record<string, unknown>[] = [];
    if (def.statusSubresource) {
      subresources.push({
        name: `${def.resource}/status`,
        singularName: '',
        namespaced: def.namespaced,
        kind: def.kind,
        verbs: STATUS_VERBS,
      });
    }
    // A subresource answering another kind names its group and version, as upstream lists serviceaccounts/token.
    for (const [sub, target] of Object.entries(def.createSubresources ?? {})) {
      subresources.push({
        name: `${def.resource}/${sub}`,
        singularName: '',
        namespaced: def.namespaced,
        group: target.group,
        version: target.version,
        kind: target.kind,
        verbs: VIRTUAL_VERBS,
      });
    }
    for (const [sub, target] of Object.entries(def.projectionSubresources ?? {})) {
      subresources.push({
        name: `${def.resource}/${sub}`,
        singularName: '',
        namespaced: def.namespaced,
        group: target.group,
        version: target.version,
        kind: target.kind,
        verbs: STATUS_VERBS,
      });
    }
    resources.push(...subresources.sort((a, b) => String(a.name).localeCompare(String(b.name))));
  }
  for (const r of gv.virtual) {
    resources.push({
      name: r.resource,
      singularName: r.singular,
      namespaced: r.namespaced,
      kind: r.kind,
      verbs: VIRTUAL_VERBS,
    });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: apiVersionOf(gv), resources };
}

function discoveryResource(def: KindDefinition): Record<string, unknown> {
  const responseKind = { group: def.group, version: def.version, kind: def.kind };
  const entry = withOptional(
    {
      resource: def.resource,
      responseKind,
      scope: def.namespaced ? 'Namespaced' : 'Cluster',
      singularResource: def.singular,
      verbs: itemVerbs(def),
    },
    { shortNames: def.shortNames, categories: categoriesOf(def) },
  );
  const subresources: Record<string, unknown>[] = [];
  if (def.statusSubresource) subresources.push({ subresource: 'status', responseKind, verbs: STATUS_VERBS });
  for (const [sub, target] of Object.entries(def.createSubresources ?? {})) {
    subresources.push({ subresource: sub, responseKind: { ...target }, verbs: VIRTUAL_VERBS });
  }
  for (const [sub, target] of Object.entries(def.projectionSubresources ?? {})) {
    subresources.push({
      subresource: sub,
      responseKind: { group: target.group, version: target.version, kind: target.kind },
      verbs: STATUS_VERBS,
    });
  }
  subresources.sort((a, b) => String(a.subresource).localeCompare(String(b.subresource)));
  if (subresources.length > 0) (entry as Record<string, unknown>).subresources = subresources;
  return entry;
}

function virtualDiscoveryResource(r: VirtualResource): Record<string, unknown> {
  return {
    resource: r.resource,
    responseKind: { group: r.group, version: r.version, kind: r.kind },
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singular,
    verbs: VIRTUAL_VERBS,
  };
}

function aggregatedList(gvs: GroupVersion[], apiVersion: string): Record<string, unknown> {
  const byGroup = new Map<string, GroupVersion[]>();
  for (const gv of gvs) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
  return {
    kind: 'APIGroupDiscoveryList',
    apiVersion,
    metadata: {},
    items: [...byGroup.entries()].map(([group, versions]) => ({
      metadata: { name: group, creationTimestamp: null },
      versions: versions.map((gv) => ({
        version: gv.version,
        resources: [...gv.kinds.map(discoveryResource), ...gv.virtual.map(virtualDiscoveryResource)],
        freshness: 'Current',
      })),
    })),
  };
}

/** The aggregated form the client accepts, if any: `application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`. */
function aggregatedRequest(accept: string): { group: string; version: string } | null {
  for (const entry of accept.split(',')) {
    const [type, ...rawParams] = entry.split(';').map((s) => s.trim());
    if (type !== 'application/json') continue;
    const params = Object.fromEntries(rawParams.map((p) => p.split('=').map((s) => s.trim())));
    if (params.as !== 'APIGroupDiscoveryList') continue;
    if (params.g !== 'apidiscovery.k8s.io' && params.g !== 'apidiscovery.platform.io') continue;
    if (params.v !== 'v2' && params.v !== 'v2beta1') continue;
    return { group: params.g, version: params.v };
  }
  return null;
}

export interface Discovery {
  /** Answers discovery paths; returns false when the path is not a discovery document. */
  handle(ctx: Context, pretty: boolean): boolean;
}

/** `virtual`: the virtual resources to list, each with verbs [create]. */
export function createDiscovery(kinds: KindDefinition[], virtual: VirtualResource[] = []): Discovery {
  const gvs = groupVersions(kinds, virtual);
  const core = gvs.filter((gv) => gv.group === '');
  const named = gvs.filter((gv) => gv.group !== '');
  const groupNames = [...new Set(named.map((gv) => gv.group))];
  const apiGroup = (name: string): Record<string, unknown> => {
    const versions = named
      .filter((gv) => gv.group === name)
      .map((gv) => ({ groupVersion: `${name}/${gv.version}`, version: gv.version }));
    return { name, versions, preferredVersion: versions[0] };
  };
  const documents = new Map<string, unknown>();
  documents.set('/api', {
    kind: 'APIVersions',
    versions: core.map((gv) => gv.version),
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: '' }],
  });
  documents.set('/apis', { kind: 'APIGroupList', apiVersion: 'v1', groups: groupNames.map(apiGroup) });
  for (const name of groupNames)
    documents.set(`/apis/${name}`, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(name) });
  for (const gv of gvs)
    documents.set(gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`, apiResourceList(gv));

  const aggregatedDocs = new Map<string, unknown>();
  const aggregatedDoc = (path: string, group: string, version: string): unknown => {
    const key = `${path} ${group}/${version}`;
    let doc = aggregatedDocs.get(key);
    if (doc === undefined)
      aggregatedDocs.set(key, (doc = aggregatedList(path === '/api' ? core : named, `${group}/${version}`)));
    return doc;
  };

  return {
    handle(ctx, pretty) {
      const path = ctx.path.replace(/\/+$/, '') || '/';
      const doc = documents.get(path);
      if (doc === undefined) return false;
      const aggregated = path === '/api' || path === '/apis' ? aggregatedRequest(ctx.get('accept')) : null;
      // Clients use the address to reach the server again; it is the one they reached.
      let body: unknown =
        path === '/api'
          ? {
              ...(doc as Record<string, unknown>),
              serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: ctx.host }],
            }
          : doc;
      let contentType = 'application/json';
      if (aggregated) {
        body = aggregatedDoc(path, aggregated.group, aggregated.version);
        contentType = `application/json;g=${aggregated.group};v=${aggregated.version};as=APIGroupDiscoveryList`;
      }
      ctx.status = 200;
      ctx.set('Content-Type', contentType);
      ctx.body = Buffer.from(pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body));
      return true;
    },
  };
}
