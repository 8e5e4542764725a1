// What the storage holds and how its connections stand: apiserver_storage_objects and apiserver_storage_size_bytes
// as kube-apiserver 1.32 names them, and, where upstream has no name (it talks to etcd over gRPC, with no pool, no
// LISTEN connection and no replica cache of its own), Gatehouse's apiserver_storage_* gauges with a `backend` label.
//
// Object counts are refreshed on a period, as upstream does (--etcd-count-metric-poll-period, one minute), on the
// server's clock, never at scrape time: a scrape would otherwise pay one count per resource, and on PostgreSQL each
// consistent count first asks the database for its revision. A scrape that arrives while a refresh runs waits for it,
// so it reports the counts just taken. The rest comes from the backend's optional storageStats() when scraped, and a
// scrape waits for it at most STATS_TIMEOUT_MS (upstream gives its size query one second): a database that hangs
// leaves those series out of that scrape instead of hanging it.
import type { Storage } from '../../backends/storage.js';
import type { StorageStats } from '../../backends/storage-stats.js';
import type { Clock } from '../server/clock.js';
import type { MetricsRegistry } from './registration.js';
import type { StorageTypes } from './storage-types.js';

export const OBJECT_COUNT_PERIOD_MS = 60_000;
export const STATS_TIMEOUT_MS = 1_000;

export interface StorageStateMetrics {
  /** Stops the periodic refresh (before the storage closes). */
  stop(): void;
  /** A resource's object count at the last refresh (-1 when counting failed); undefined before it was counted. */
  objectCount(type: string): number | undefined;
}

export function startStorageStateMetrics(opts: {
  storage: Storage;
  backend: string;
  types: StorageTypes;
  metrics: MetricsRegistry;
  clock: Clock;
  log: (line: string) => void;
}): StorageStateMetrics {
  const { storage, backend, types, metrics, clock } = opts;
  let refreshing: Promise<void> | undefined;

  /** Waits for `work` at most STATS_TIMEOUT_MS of the server's clock; undefined when it did not settle in time. */
  async function bounded<T>(work: Promise<T>): Promise<T | undefined> {
    let cancel = (): void => undefined;
    const timeout = new Promise<undefined>((resolve) => {
      cancel = clock.setTimeout(() => resolve(undefined), STATS_TIMEOUT_MS);
    });
    try {
      return await Promise.race([work, timeout]);
    } finally {
      cancel();
    }
  }

  const objects = metrics.gauge(
    {
      name: 'apiserver_storage_objects',
      help: 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.',
      stability: 'STABLE',
      labelNames: ['resource'],
    },
    async () => {
      if (refreshing) await bounded(refreshing);
    },
  );

  // Also what priority and fairness estimates a list's cost by, as upstream's estimator reads the same counts.
  const counts = new Map<string, number>();
  const counted = (type: string, n: number): void => {
    counts.set(type, n);
    objects.set({ resource: type }, n);
  };
  function refresh(): Promise<void> {
    return Promise.all(
      types.resources.map(({ type, prefix }) =>
        storage.count(prefix).then(
          (n) => counted(type, n),
          () => counted(type, -1),
        ),
      ),
    ).then(() => undefined);
  }

  let stopped = false;
  let cancelTimer = (): void => undefined;
  function tick(): void {
    // Armed before the refresh runs, so that the next period is on the clock while this one counts; a refresh
    // still running (a slow database) is not started twice.
    if (stopped) return;
    cancelTimer = clock.setTimeout(tick, OBJECT_COUNT_PERIOD_MS);
    if (refreshing) return;
    const run = refresh().finally(() => {
      if (refreshing === run) refreshing = undefined;
    });
    refreshing = run;
  }
  tick();

  // One storageStats() call serves every gauge of one scrape: prom-client collects them concurrently.
  let snapshot: Promise<StorageStats | undefined> | undefined;
  function stats(): Promise<StorageStats | undefined> {
    if (snapshot) return snapshot;
    if (!storage.storageStats) return Promise.resolve(undefined);
    const taken = bounded(
      storage.storageStats().catch((e: unknown) => {
        opts.log(`warning: storage metrics: reading the ${backend} storage's state failed: ${(e as Error).message}`);
        return undefined;
      }),
    ).finally(() => {
      if (snapshot === taken) snapshot = undefined;
    });
    snapshot = taken;
    return taken;
  }

  // Upstream numbers its storage clusters etcd-0 (the default), etcd-1... by flag order; Gatehouse has one storage.
  const clusterId = `${backend}-0`;
  metrics.gauge(
    {
      name: 'apiserver_storage_size_bytes',
      help: 'Size of the storage database file physically allocated in bytes.',
      stability: 'STABLE',
      labelNames: ['storage_cluster_id'],
    },
    async function () {
      this.reset();
      const size = (await stats())?.sizeBytes;
      if (size !== undefined) this.set({ storage_cluster_id: clusterId }, size);
    },
  );
  metrics.gauge(
    {
      name: 'apiserver_storage_db_connections',
      help: "Connections of the storage's database client, by state (idle, busy, waiting: statements queued for a connection).",
      stability: 'ALPHA',
      labelNames: ['backend', 'state'],
    },
    async function () {
      this.reset();
      const connections = (await stats())?.connections;
      if (!connections) return;
      for (const state of ['idle', 'busy', 'waiting'] as const) this.set({ backend, state }, connections[state]);
    },
  );
  metrics.gauge(
    {
      name: 'apiserver_storage_listen_connected',
      help: "1 while the storage's connection for other replicas' change notifications is listening, 0 while it is lost.",
      stability: 'ALPHA',
      labelNames: ['backend'],
    },
    async function () {
      this.reset();
      const connected = (await stats())?.listenConnected;
      if (connected !== undefined) this.set({ backend }, connected ? 1 : 0);
    },
  );
  metrics.gauge(
    {
      name: 'apiserver_storage_revision_lag',
      help: "The database's newest revision minus the newest revision this replica's read cache has applied.",
      stability: 'ALPHA',
      labelNames: ['backend'],
    },
    async function () {
      this.reset();
      const lag = (await stats())?.revisionLag;
      if (lag !== undefined) this.set({ backend }, lag);
    },
  );

  return {
    stop() {
      stopped = true;
      cancelTimer();
    },
    objectCount: (type) => counts.get(type),
  };
}
