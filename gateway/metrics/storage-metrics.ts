// kube-apiserver's etcd request metrics (k8s.io/apiserver storage/etcd3/metrics, 1.32): the latency, count and
// failures of storage calls by operation and resource type, same names, labels and buckets. Recorded by a decorator
// of the storage contract that main.ts puts around whichever backend it opened, so no backend knows of metrics.
//
// Upstream records them below its watch cache, around each call to etcd; Gatehouse's read caches live inside the
// backends, so here every call to the contract counts, answered from memory or not. The operation names are the
// ones upstream records for the same work: get, list, create, update (a guaranteedUpdate, whatever its retries),
// delete, listWithCount (count). Upstream records no request for a watch (only the list a watch without a revision
// starts with); here a watch counts once, when opened, as `watch` in etcd_requests_total only: how long a watch
// lasts is not a request latency, its events are not requests, and wrapping its iterator would cost every event.
// readiness and close are not requests, and currentRevision and compactedRevision have no operation upstream
// records: none of the four is counted.
//
// Failures: upstream counts an error when etcd failed to answer, not an answer that went against the caller (a
// missing key, a create on an existing one, a lost compare-and-swap are answers, and so is the callback of an update
// or delete refusing). So only Unavailable, Internal and Expired (etcd's compacted revision) count here.
//
// Each (operation, type) pair's records are resolved once (route-series.ts): a call costs a key-to-type lookup
// (storage-types.ts), a Map lookup and the observations.
import { performance } from 'node:perf_hooks';
import { isStorageError, type Storage, type StorageErrorCode } from '../../backends/storage.js';
import type { MetricsRegistry } from './registration.js';
import type { StorageTypes } from './storage-types.js';

/** etcd_request_duration_seconds keeps apiserver_request_duration_seconds's buckets, so the two compare. */
export const ETCD_LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];

const FAILURES: ReadonlySet<StorageErrorCode> = new Set(['Unavailable', 'Internal', 'Expired']);

export type StorageOperation = 'get' | 'list' | 'create' | 'update' | 'delete' | 'listWithCount' | 'watch';

interface Series {
  done(seconds: number): void;
  failed(): void;
  /** A count without a latency (a watch's open). */
  opened(): void;
}

/** Whether a call's failure is one the storage failed to answer (counted), rather than an answer. */
export function countsAsFailure(e: unknown): boolean {
  return isStorageError(e) && FAILURES.has(e.code);
}

export function instrumentStorage(storage: Storage, metrics: MetricsRegistry, types: StorageTypes): Storage {
  const labelNames = ['operation', 'type'];
  const duration = metrics.routeHistogram({
    name: 'etcd_request_duration_seconds',
    help: 'Etcd request latency in seconds for each operation and object type.',
    stability: 'ALPHA',
    labelNames,
    buckets: ETCD_LATENCY_BUCKETS,
  });
  const total = metrics.routeCounter({
    name: 'etcd_requests_total',
    help: 'Etcd request counts for each operation and object type.',
    stability: 'ALPHA',
    labelNames,
  });
  const errors = metrics.routeCounter({
    name: 'etcd_request_errors_total',
    help: 'Etcd failed request counts for each operation and object type.',
    stability: 'ALPHA',
    labelNames,
  });

  // type → operation → records; bounded by the served resources (plus "unknown") times the operations.
  const byType = new Map<string, Map<StorageOperation, Series>>();
  function series(operation: StorageOperation, key: string): Series {
    const type = types.typeOf(key);
    let operations = byType.get(type);
    if (!operations) byType.set(type, (operations = new Map()));
    let found = operations.get(operation);
    if (!found) {
      const labels = { operation, type };
      const observe = duration.child(labels);
      const count = total.child(labels);
      const fail = errors.child(labels);
      found = {
        done(seconds) {
          observe(seconds);
          count();
        },
        failed: fail,
        opened: count,
      };
      operations.set(operation, found);
    }
    return found;
  }

  // One then per call rather than an async wrapper's own promise and await: this runs on every storage call.
  function timed<T>(operation: StorageOperation, key: string, call: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const s = series(operation, key);
    let pending: Promise<T>;
    try {
      pending = call();
    } catch (e) {
      pending = Promise.reject(e);
    }
    return pending.then(
      (value) => {
        s.done((performance.now() - started) / 1000);
        return value;
      },
      (e: unknown) => {
        if (countsAsFailure(e)) s.failed();
        s.done((performance.now() - started) / 1000);
        throw e;
      },
    );
  }

  return {
    get: (key, opts) => timed('get', key, () => storage.get(key, opts)),
    getList: (prefix, opts) => timed('list', prefix, () => storage.getList(prefix, opts)),
    create: (key, obj) => timed('create', key, () => storage.create(key, obj)),
    guaranteedUpdate: (key, tryUpdate, opts) =>
      timed('update', key, () => storage.guaranteedUpdate(key, tryUpdate, opts)),
    delete: (key, opts) => timed('delete', key, () => storage.delete(key, opts)),
    count: (prefix) => timed('listWithCount', prefix, () => storage.count(prefix)),
    watch(key, opts, signal) {
      series('watch', key).opened();
      // The backend's own iterable, unwrapped: nothing is added to the path of each event to each watcher.
      return storage.watch(key, opts, signal);
    },
    currentRevision: () => storage.currentRevision(),
    compactedRevision: () => storage.compactedRevision(),
    readiness: () => storage.readiness(),
    close: () => storage.close(),
    // What only describes the backend passes through as the backend has it (absent stays absent).
    ...(storage.storageStats && { storageStats: storage.storageStats.bind(storage) }),
    ...(storage.watchCacheStats && { watchCacheStats: storage.watchCacheStats.bind(storage) }),
  };
}
