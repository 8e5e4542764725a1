// The remote half of merged discovery and OpenAPI, kept as kube-aggregator's discovery manager and OpenAPI v3
// controller keep theirs: every APIService with a service is followed through an informer (so every replica sees a
// change within its watch's reach), and its server's discovery and OpenAPI v3 index entry are fetched when the
// APIService appears or its spec changes, and again every minute of the server's clock. A failed fetch keeps what
// the last good one found and marks it stale; an APIService whose server never answered is known but has no
// resources. The per-group-version OpenAPI documents are fetched when asked for and revalidated by ETag.
import type { KObject } from '../../api/meta/types.js';
import { errors } from '../../api/meta/errors.js';
import { canonicalJson } from '../../api/meta/canonical-json.js';
import { APIREGISTRATION_GROUP, serviceOf } from '../../api/apiregistration/v1/api-service.js';
import { asStr, specOf } from '../../api/common/validation-helpers.js';
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../server/clock.js';
import { startNamedInformer } from '../controllers/informer.js';
import type { ServiceResolver } from './service-resolver.js';
import { upstreamTarget } from './upstream-transport.js';
import type { ClientCertificateSource } from './upstream-tls.js';
import { fetchDiscovery, fetchOpenAPIDocument, fetchOpenAPIIndexEntry, type VersionDiscovery } from './remote-fetch.js';
import type { Prioritized } from './version-order.js';

/** Upstream's discovery manager marks every remote APIService dirty once a minute. */
export const REMOTE_REFRESH_MS = 60_000;
/** Upstream bounds each discovery fetch by 5 s. */
export const REMOTE_FETCH_TIMEOUT_MS = 5_000;

export interface RemoteGroupVersion extends Prioritized {
  /** The APIService's name. */
  name: string;
  /** What its server last listed for the group-version; undefined until it first answered. */
  discovery?: VersionDiscovery;
  /** The last fetch failed (what `discovery` holds, if anything, is older). */
  stale: boolean;
  /** Not fetched yet, not even once unsuccessfully: left out of discovery, as upstream lists a group-version once synced. */
  pending: boolean;
  /** Listed in the server's OpenAPI v3 index, with the hash its URL carries. */
  openapi?: { hash?: string };
}

export interface RemoteAPIs {
  /** Every remote group-version known, in no particular order. */
  list(): RemoteGroupVersion[];
  /** Moves whenever what list() returns changes: merged documents built for one value stay good until it moves. */
  generation(): number;
  /** The OpenAPI v3 document of a remote group-version its server lists; undefined for any other. */
  openAPIDocument(group: string, version: string): Promise<{ body: Buffer; etag?: string } | undefined>;
  /** Resolves once the first list of APIServices has been taken in (not fetched). */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export interface RemoteDiscoveryOptions {
  resolver: ServiceResolver;
  clock: Clock;
  log: (line: string) => void;
  periodMs?: number;
  timeoutMs?: number;
  /** The front-proxy client certificate, presented to every upstream once configured. */
  clientCert?: ClientCertificateSource;
}

interface Entry {
  obj: KObject;
  spec: string;
  gv: RemoteGroupVersion;
  discoveryEtag?: string;
  /** Bumped by a new spec or resolver table: a fetch started before it is dropped. */
  epoch: number;
  fetching?: Promise<void>;
  again: boolean;
  document?: { body: Buffer; etag?: string };
  documentFetch?: Promise<{ body: Buffer; etag?: string } | undefined>;
}

/** Nothing to follow (no APIService kind served): an empty view. */
export const NO_REMOTE_APIS: RemoteAPIs = {
  list: () => [],
  generation: () => 0,
  openAPIDocument: async () => undefined,
  synced: Promise.resolve(),
  async stop() {},
};

export function startRemoteDiscovery(registry: Registry, opts: RemoteDiscoveryOptions): RemoteAPIs {
  const store = registry.byKind(APIREGISTRATION_GROUP, 'APIService');
  if (!store) return NO_REMOTE_APIS;
  const periodMs = opts.periodMs ?? REMOTE_REFRESH_MS;
  const deps = { clock: opts.clock, timeoutMs: opts.timeoutMs ?? REMOTE_FETCH_TIMEOUT_MS };
  const abort = new AbortController();
  const entries = new Map<string, Entry>();
  let generation = 0;
  let stopped = false;
  const changed = (): void => void generation++;

  async function fetchInto(entry: Entry): Promise<void> {
    const { group, version } = entry.gv;
    const target = upstreamTarget(entry.obj, opts.resolver, opts.clientCert);
    const epoch = entry.epoch;
    const fetchDeps = { ...deps, signal: abort.signal };
    const [discovery, index] =
      target === undefined || target === 'unresolved'
        ? [{ kind: 'failed' as const, problem: 'the service has no address' }, undefined]
        : await Promise.all([
            fetchDiscovery(target, group, version, entry.discoveryEtag, fetchDeps),
            fetchOpenAPIIndexEntry(target, group, version, fetchDeps),
          ]);
    if (stopped || entries.get(entry.gv.name) !== entry || entry.epoch !== epoch) return;
    const wasStale = entry.gv.stale;
    const gv: RemoteGroupVersion = { ...entry.gv };
    if (discovery.kind === 'fetched') {
      gv.discovery = discovery.entry;
      entry.discoveryEtag = discovery.etag;
    }
    gv.stale = discovery.kind === 'failed';
    gv.pending = false;
    if (index?.kind === 'listed') gv.openapi = { hash: index.hash };
    else if (index?.kind === 'unlisted') gv.openapi = undefined;
    if (discovery.kind === 'failed' && (!wasStale || entry.gv.discovery === undefined))
      opts.log(`warning: discovery of APIService ${gv.name}: ${discovery.problem}`);
    if (canonicalJson(gv) !== canonicalJson(entry.gv)) {
      entry.gv = gv;
      // A new hash means a new document: the cached one must not be served for it.
      if (index?.kind === 'listed') entry.document = undefined;
      changed();
    }
  }

  function refresh(name: string): void {
    const entry = entries.get(name);
    if (!entry || stopped) return;
    if (entry.fetching) {
      entry.again = true;
      return;
    }
    entry.fetching = fetchInto(entry).finally(() => {
      entry.fetching = undefined;
      if (entry.again && !stopped && entries.get(name) === entry) {
        entry.again = false;
        refresh(name);
      }
    });
  }

  function put(obj: KObject): void {
    const name = obj.metadata.name ?? '';
    const spec = specOf(obj);
    const group = asStr(spec.group) ?? '';
    // The core group is served here and listed under /api, never by another server.
    if (!serviceOf(obj) || group === '') {
      if (entries.delete(name)) changed();
      return;
    }
    const specJson = canonicalJson(obj.spec ?? {});
    const entry = entries.get(name);
    if (entry && entry.spec === specJson) {
      entry.obj = obj;
      return;
    }
    const gv: RemoteGroupVersion = {
      name,
      group,
      version: asStr(spec.version) ?? '',
      groupPriority: typeof spec.groupPriorityMinimum === 'number' ? spec.groupPriorityMinimum : 0,
      versionPriority: typeof spec.versionPriority === 'number' ? spec.versionPriority : 0,
      discovery: entry?.gv.discovery,
      stale: entry?.gv.stale ?? false,
      pending: entry?.gv.pending ?? true,
      openapi: entry?.gv.openapi,
    };
    if (entry) {
      Object.assign(entry, { obj, spec: specJson, gv, epoch: entry.epoch + 1, document: undefined });
    } else {
      entries.set(name, { obj, spec: specJson, gv, epoch: 0, again: false });
    }
    changed();
    refresh(name);
  }

  function removed(name: string): void {
    if (entries.delete(name)) changed();
  }

  let cancelTimer: (() => void) | undefined;
  const tick = (): void => {
    for (const name of entries.keys()) refresh(name);
    cancelTimer = opts.clock.setTimeout(tick, periodMs);
  };
  cancelTimer = opts.clock.setTimeout(tick, periodMs);

  const unsubscribe = opts.resolver.onChange(() => {
    for (const [name, entry] of entries) {
      entry.epoch++;
      refresh(name);
    }
  });

  const informer = startNamedInformer(store, { put, removed }, { log: opts.log });

  async function documentOf(entry: Entry): Promise<{ body: Buffer; etag?: string } | undefined> {
    const target = upstreamTarget(entry.obj, opts.resolver, opts.clientCert);
    if (target === undefined || target === 'unresolved') {
      if (entry.document) return entry.document;
      const service = serviceOf(entry.obj);
      throw errors.serviceUnavailable(
        `service/${service?.name ?? ''} in ${JSON.stringify(service?.namespace ?? '')} is not present`,
      );
    }
    const { group, version } = entry.gv;
    const got = await fetchOpenAPIDocument(target, group, version, entry.document?.etag, {
      ...deps,
      signal: abort.signal,
    });
    if (got.kind === 'fetched') entry.document = { body: got.body, etag: got.etag };
    if (got.kind === 'failed') {
      if (got.status === 404) return undefined;
      // The last good document still describes what the server served a moment ago, as discovery's stale entries.
      if (entry.document) return entry.document;
      throw errors.serviceUnavailable(`OpenAPI of APIService ${entry.gv.name}: ${got.problem}`);
    }
    return entry.document;
  }

  return {
    list: () => [...entries.values()].map((e) => e.gv),
    generation: () => generation,
    async openAPIDocument(group, version) {
      const entry = [...entries.values()].find(
        (e) => e.gv.group === group && e.gv.version === version && e.gv.openapi !== undefined,
      );
      if (!entry) return undefined;
      // Concurrent readers (kubectl asks several at once) share one fetch.
      entry.documentFetch ??= documentOf(entry).finally(() => {
        entry.documentFetch = undefined;
      });
      return entry.documentFetch;
    },
    synced: informer.synced,
    async stop() {
      stopped = true;
      cancelTimer?.();
      unsubscribe();
      abort.abort();
      await informer.stop();
      const inFlight: Promise<unknown>[] = [];
      for (const e of entries.values()) {
        if (e.fetching) inFlight.push(e.fetching);
        if (e.documentFetch) inFlight.push(e.documentFetch.catch(() => undefined));
      }
      await Promise.all(inFlight);
    },
  };
}
