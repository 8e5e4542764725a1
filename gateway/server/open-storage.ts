// Opens the storage backend --storage-backend names, and registers the health checks that follow its readiness.
import path from 'node:path';
import type { Storage } from '../../backends/storage.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createPostgresStorage } from '../../backends/postgres/postgres-storage.js';
import { createEmbeddedStorage } from '../../backends/embedded/embedded-storage.js';
import { logCheck, pingCheck, type HealthChecks } from '../handlers/health.js';
import type { GatehouseOptions } from './options.js';

export async function createStorage(
  options: GatehouseOptions,
  log: (line: string) => void,
  now: () => number,
): Promise<Storage> {
  switch (options.storageBackend) {
    case 'memory':
      return createMemoryStorage({ historyWindowMs: options.historyWindowMs, now });
    case 'postgres':
      return createPostgresStorage({
        url: options.storageUrl ?? '',
        historyWindowMs: options.historyWindowMs,
        log,
        now,
      });
    case 'embedded':
      return createEmbeddedStorage({
        dataDir: path.join(options.dataDir, 'storage'),
        historyWindowMs: options.historyWindowMs,
        log,
        now,
      });
  }
}

export function registerHealthChecks(health: HealthChecks, storage: Storage): void {
  health.add(pingCheck());
  health.add(logCheck());
  // `etcd` is the name operators' probes and dashboards know; k3s keeps it for its SQL-backed kine as well.
  health.add({ name: 'etcd', check: () => storage.readiness() });
  health.addReadyz({ name: 'etcd-readiness', check: () => storage.readiness() });
}
