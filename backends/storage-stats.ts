// What a backend can tell about its own state beyond the contract's calls: the storage metrics read it when
// /metrics is scraped (the gateway owns the metric names; backends import neither prom-client nor gateway/). Each
// field is optional: a backend reports what it has and leaves out what does not apply to it.
export interface StorageConnectionStats {
  /** Connections open and not running a statement. */
  idle: number;
  /** Connections running (or pipelining) statements. */
  busy: number;
  /** Statements queued behind busy connections because the pool is at its size. */
  waiting: number;
}

export interface StorageStats {
  /** Bytes the stored state takes where it is kept (files, database relations); absent when nothing is kept. */
  sizeBytes?: number;
  /** The backend's database connections, when it has any. */
  connections?: StorageConnectionStats;
  /** Whether the connection that receives other replicas' change notifications is up. */
  listenConnected?: boolean;
  /** Revisions committed to the shared database that this replica's read cache has not applied yet. */
  revisionLag?: number;
}
