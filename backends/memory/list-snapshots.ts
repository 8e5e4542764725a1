// Paged lists with an empty predicate report remainingItemCount, the number of live objects after the page. Counting
// them on every page made each page cost O(objects under the prefix), so a walk in pages cost O(n²/limit). Every
// page of one list is read at the same revision (the continue token fixes it) and the state at a revision never
// changes, so the live objects under a prefix at a revision are collected once; each page is then a binary search
// and a slice. A few snapshots are kept, newest use last out; each holds references to the store's frozen objects
// (two arrays of pointers, no copies).
import { setBounded } from '../../api/meta/bounded-map.js';
import type { KObject } from '../../api/meta/types.js';

export interface ListSnapshot {
  /** Keys of the live objects, in key order. */
  readonly keys: readonly string[];
  /** The object of each key, same index. */
  readonly objects: readonly KObject[];
}

export interface ListSnapshotCache {
  /** The snapshot of `prefix` at `revision`, built by `build` when not cached. */
  get(prefix: string, revision: bigint, build: () => ListSnapshot): ListSnapshot;
  /** Forgets snapshots below `compacted`: they can no longer be read, and they pin compacted versions. */
  compact(compacted: bigint): void;
}

export function createListSnapshotCache(capacity = 4): ListSnapshotCache {
  const cache = new Map<string, ListSnapshot & { revision: bigint }>();
  return {
    get(prefix, revision, build) {
      const id = `${revision}\u0000${prefix}`;
      const snapshot = cache.get(id) ?? { ...build(), revision };
      // Used last, kept longest.
      setBounded(cache, id, snapshot, capacity);
      return snapshot;
    },
    compact(compacted) {
      for (const [id, snapshot] of cache) if (snapshot.revision < compacted) cache.delete(id);
    },
  };
}

/** Index of the first key >= target in ascending `keys`. */
export function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
