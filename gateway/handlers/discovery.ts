// Discovery in both forms kubectl reads: the legacy documents (/api, /apis, /apis/<g>, per-version
// APIResourceList) and the aggregated APIGroupDiscoveryList, recognised by kubectl only under the exact
// `g=apidiscovery.k8s.io` content type. The local documents are built once from the scheme; the remote groups of
// aggregated APIServices are merged in (discovery-remote.ts) whenever what their servers list changes.
// Alias groups (`rbac.authorization.k8s.io`...) come after every group of ours: clients resolve a resource or short
// name that several groups list to the first of them, which must be ours.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { apiVersionOf, type KindDefinition } from '../../api/scheme.js';
import { aliasedKinds, isAliasedKind } from '../request/group-alias.js';
import type { VirtualResource } from './virtual-resources.js';
import type { RemoteAPIs } from '../aggregator/remote-discovery.js';
import { mergeDiscovery, type LocalDiscovery, type MergedDiscovery } from './discovery-remote.js';

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

function aggregatedList(gvs: GroupVersion[], apiVersion: string): Record<string, unknown> & { items: unknown[] } {
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

/** Upstream's entity tag of an aggregated document: the SHA-512 of its JSON, in upper-case hex. */
const etagOf = (body: Buffer): string => `"${createHash('sha512').update(body).digest('hex').toUpperCase()}"`;

/**
 * `virtual`: the virtual resources to list, each with verbs [create]. `remote`: the remote APIServices' group-versions
 * to merge in (gateway/aggregator/remote-discovery.ts); without it only the groups served here are listed.
 */
export function createDiscovery(
  kinds: KindDefinition[],
  virtual: VirtualResource[] = [],
  remote?: RemoteAPIs,
): Discovery {
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

  const local: LocalDiscovery = {
    groups: groupNames,
    served: new Set(named.map((gv) => `${gv.group}/${gv.version}`)),
    apiGroup,
    aggregatedItems: (apiVersion) => aggregatedList(named, apiVersion).items as Record<string, unknown>[],
  };
  // Rebuilt when the remote view moves, at most once per change, on the first request after it.
  let merged: { generation: number; view: MergedDiscovery; bodies: Map<string, { body: Buffer; etag: string }> };
  const current = () => {
    const generation = remote?.generation() ?? 0;
    if (merged?.generation !== generation)
      merged = { generation, view: mergeDiscovery(local, remote?.list() ?? []), bodies: new Map() };
    return merged;
  };
  const aggregatedDoc = (path: string, group: string, version: string): { body: Buffer; etag: string } => {
    const state = current();
    const key = `${path} ${group}/${version}`;
    let doc = state.bodies.get(key);
    if (doc === undefined) {
      const apiVersion = `${group}/${version}`;
      const body = Buffer.from(
        JSON.stringify(path === '/api' ? aggregatedList(core, apiVersion) : state.view.aggregated(apiVersion)),
      );
      state.bodies.set(key, (doc = { body, etag: etagOf(body) }));
    }
    return doc;
  };

  return {
    handle(ctx, pretty) {
      const path = ctx.path.replace(/\/+$/, '') || '/';
      const doc = current().view.legacy.get(path) ?? documents.get(path);
      if (doc === undefined) return false;
      const negotiated = path === '/api' || path === '/apis';
      const aggregated = negotiated ? aggregatedRequest(ctx.get('accept')) : null;
      if (negotiated) ctx.set('Vary', 'Accept');
      if (aggregated) {
        const { body, etag } = aggregatedDoc(path, aggregated.group, aggregated.version);
        ctx.set(
          'Content-Type',
          `application/json;g=${aggregated.group};v=${aggregated.version};as=APIGroupDiscoveryList`,
        );
        ctx.set('ETag', etag);
        const held = ctx.get('if-none-match');
        if (held !== '' && held.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) {
          ctx.status = 304;
          return true;
        }
        ctx.status = 200;
        ctx.body = pretty ? Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2)) : body;
        return true;
      }
      // Clients use the address to reach the server again; it is the one they reached.
      const body: unknown =
        path === '/api'
          ? {
              ...(doc as Record<string, unknown>),
              serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: ctx.host }],
            }
          : doc;
      ctx.status = 200;
      ctx.set('Content-Type', 'application/json');
      ctx.body = Buffer.from(pretty ? JSON.stringify(body, null, 2) : JSON.stringify(body));
      return true;
    },
  };
}
