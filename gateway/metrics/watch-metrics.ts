// kube-apiserver 1.32's watch metrics, same names, labels and buckets: what each watch sends
// (k8s.io/apiserver/pkg/endpoints/metrics: apiserver_watch_events_total and apiserver_watch_events_sizes, by the
// group, version and kind served; 1.34 moved them to resource) and what the storage's watch cache did
// (pkg/storage/cacher/metrics: apiserver_watch_cache_*, by resource as `<resource>.<group>`, 1.32's single label).
//
// apiserver_registered_watchers (open watches by group, version and kind) left upstream in 1.25 for
// apiserver_longrunning_requests{verb="WATCH"}, which request-metrics.ts keeps too; it stays here because dashboards
// and alerts written against older kube-apiservers still ask for it, and it costs one gauge step per watch.
//
// Events are counted on every watch's path, once per event per watcher: each watch resolves its two series once when
// it opens, and an event then costs a counter increment and a bucket walk. Watch-cache figures are counters the
// backend keeps (backends/watch-cache-stats.ts), read when /metrics is scraped.
import type { Counter } from 'prom-client';
import type { KindDefinition } from '../../api/scheme.js';
import type { Storage } from '../../backends/storage.js';
import type { WatchCacheStats } from '../../backends/watch-cache-stats.js';
import { collectionPrefix } from '../registry/keys.js';
import type { MetricsRegistry } from './registration.js';
import type { ServerMetrics } from './server-metrics.js';

// upstream: ExponentialBuckets(1024, 2, 8), 1 KiB to 128 KiB.
const EVENT_SIZE_BUCKETS = Array.from({ length: 8 }, (_, i) => 1024 * 2 ** i);

/** Records one event a watch sent, by its size in bytes. */
export type WatchEventRecorder = (bytes: number) => void;

export interface WatchRecording {
  /** Records one event the watch sent, by its size in bytes. */
  readonly sent: WatchEventRecorder;
  /** The watch has ended: it is no longer a registered watcher. */
  closed(): void;
}

export interface WatchMetrics {
  /** Registers a watch of `def`'s objects as open; its recorder is made once per kind and shared by its watches. */
  opened(def: KindDefinition): WatchRecording;
}

const NOT_RECORDED: WatchRecording = { sent: () => undefined, closed: () => undefined };

/**
 * `kinds` are the served ones: only they become label values. With `recordRequests` off the per-event metrics are
 * neither registered nor recorded; the watch-cache ones cost nothing until a scrape and stay.
 */
export function createWatchMetrics(
  metrics: ServerMetrics,
  kinds: readonly KindDefinition[],
  storage: Storage,
): WatchMetrics {
  registerWatchCacheMetrics(metrics.main, kinds, storage);
  if (!metrics.recordRequests) return { opened: () => NOT_RECORDED };
  const registered = metrics.main.gauge({
    name: 'apiserver_registered_watchers',
    help: 'Number of currently registered watchers for a given resources',
    stability: 'ALPHA',
    labelNames: ['group', 'version', 'kind'],
  });
  const events = metrics.main.routeCounter({
    name: 'apiserver_watch_events_total',
    help: 'Number of events sent in watch clients',
    stability: 'ALPHA',
    labelNames: ['group', 'version', 'kind'],
  });
  const sizes = metrics.main.routeHistogram({
    name: 'apiserver_watch_events_sizes',
    help: 'Watch event size distribution in bytes',
    stability: 'ALPHA',
    labelNames: ['group', 'version', 'kind'],
    buckets: EVENT_SIZE_BUCKETS,
  });
  const byKind = new Map<KindDefinition, { sent: WatchEventRecorder; closed(): void; open(): void }>();
  return {
    opened(def) {
      let recording = byKind.get(def);
      if (!recording) {
        const labels = { group: def.group, version: def.version, kind: def.kind };
        const count = events.child(labels);
        const size = sizes.child(labels);
        const watchers = registered.labels(labels);
        recording = {
          sent: (bytes) => {
            count();
            size(bytes);
          },
          open: () => watchers.inc(),
          closed: () => watchers.dec(),
        };
        byKind.set(def, recording);
      }
      recording.open();
      return recording;
    },
  };
}

/**
 * The resource label of each resource prefix the served kinds store under, as upstream's GroupResource prints:
 * `pods`, `deployments.apps`. A kind stored as another's objects (storedAs) is counted with the owner's.
 */
function watchCacheResources(kinds: readonly KindDefinition[]): { prefix: string; resource: string }[] {
  const byPrefix = new Map<string, string>();
  for (const def of kinds) {
    if (def.storedAs) continue;
    const prefix = collectionPrefix(def, '');
    if (!byPrefix.has(prefix)) byPrefix.set(prefix, def.group ? `${def.resource}.${def.group}` : def.resource);
  }
  return [...byPrefix].map(([prefix, resource]) => ({ prefix, resource }));
}

function registerWatchCacheMetrics(
  registry: MetricsRegistry,
  kinds: readonly KindDefinition[],
  storage: Storage,
): void {
  if (!storage.watchCacheStats) return;
  const stats = (): WatchCacheStats => storage.watchCacheStats!();
  const resources = watchCacheResources(kinds);
  /** Sets `counter` to the backend's totals per resource prefix, for the prefixes of served resources. */
  const fill = (counter: Counter<'resource'>, totals: ReadonlyMap<string, number>): void => {
    counter.reset();
    for (const { prefix, resource } of resources) {
      const total = totals.get(prefix);
      if (total !== undefined) counter.inc({ resource }, total);
    }
  };
  registry.counter(
    {
      name: 'apiserver_watch_cache_events_received_total',
      help: 'Counter of events received in watch cache broken by resource type.',
      stability: 'ALPHA',
      labelNames: ['resource'],
    },
    function collect() {
      fill(this, stats().eventsReceived);
    },
  );
  registry.counter(
    {
      name: 'apiserver_terminated_watchers_total',
      help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
      stability: 'ALPHA',
      labelNames: ['resource'],
    },
    function collect() {
      fill(this, stats().terminatedWatchers);
    },
  );
  // One store caches every resource, so each resource's cache was filled (and reached a revision) with all others.
  registry.counter(
    {
      name: 'apiserver_watch_cache_initializations_total',
      help: 'Counter of watch cache initializations broken by resource type.',
      stability: 'ALPHA',
      labelNames: ['resource'],
    },
    function collect() {
      const { initializations } = stats();
      this.reset();
      for (const { resource } of resources) this.inc({ resource }, initializations);
    },
  );
  registry.gauge(
    {
      name: 'apiserver_watch_cache_resource_version',
      help: 'Current resource version of watch cache broken by resource type.',
      stability: 'ALPHA',
      labelNames: ['resource'],
    },
    function collect() {
      const revision = Number(stats().revision);
      for (const { resource } of resources) this.set({ resource }, revision);
    },
  );
}
