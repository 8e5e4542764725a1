// What a backend's watch cache has done, for the gateway to report as kube-apiserver reports its cacher's
// (apiserver_watch_cache_*): plain counters a backend bumps as it goes, read whole when /metrics is scraped. Storage
// knows keys, not resources, so per-resource counts are kept per resource prefix: a key's first three segments, the
// level under which the gateway keeps one resource's objects (/registry/<group>/<resource>/, gateway/registry/keys.ts).
// Shorter keys count under their parent.

export interface WatchCacheStats {
  /** The newest revision the cache holds: reads and watches are served up to it. */
  readonly revision: bigint;
  /** Times the cache was filled from a whole copy of the store: once when it opened, then on each reload. */
  readonly initializations: number;
  /** Writes that entered the cache since it opened (not those it was filled with), per resource prefix. */
  readonly eventsReceived: ReadonlyMap<string, number>;
  /** Watchers ended for falling too far behind (their bounded queue overflowed), per resource prefix of the watch. */
  readonly terminatedWatchers: ReadonlyMap<string, number>;
}

/** The resource prefix of `key`: up to and including its fourth '/', or its last when it has fewer. */
export function resourcePrefixOf(key: string): string {
  let end = 0;
  for (let i = 0; i < 4; i++) {
    const slash = key.indexOf('/', end);
    if (slash < 0) return key.slice(0, end);
    end = slash + 1;
  }
  return key.slice(0, end);
}

/** Counts keys by resource prefix. */
export class PrefixCounter {
  readonly counts = new Map<string, number>();

  add(key: string): void {
    const prefix = resourcePrefixOf(key);
    this.counts.set(prefix, (this.counts.get(prefix) ?? 0) + 1);
  }
}
