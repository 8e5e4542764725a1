// Lists and counts read from a revision history at a fixed revision: the one implementation behind the memory
// backend (and so the embedded one) and the PostgreSQL backend's read cache. Paged lists with an empty predicate
// go through a list snapshot (a binary search and a slice per page); filtered lists scan until the page is full.
import type { KObject } from '../../api/meta/types.js';
import { encodeContinue } from '../continue-token.js';
import type { ListResult, SelectionPredicate } from '../storage.js';
import { createListSnapshotCache, lowerBound, type ListSnapshot } from './list-snapshots.js';
import type { RevisionHistory } from './revision-history.js';

export interface HistoryListRequest {
  prefix: string;
  /** First key to include (the prefix itself, or a continue token's position). */
  start: string;
  revision: bigint;
  predicate: SelectionPredicate;
  /** Infinity for no limit. */
  limit: number;
}

export interface HistoryLister {
  list(req: HistoryListRequest): ListResult;
  count(prefix: string, revision: bigint): number;
}

export function createHistoryLister(history: RevisionHistory, snapshotCapacity = 4): HistoryLister {
  const snapshots = createListSnapshotCache(snapshotCapacity);

  function snapshotOf(prefix: string, revision: bigint): ListSnapshot {
    snapshots.compact(history.compacted());
    return snapshots.get(prefix, revision, () => {
      const keys: string[] = [];
      const objects: KObject[] = [];
      history.scan(prefix, prefix, revision, (key, object) => {
        keys.push(key);
        objects.push(object);
        return true;
      });
      return { keys, objects };
    });
  }

  return {
    list({ prefix, start, revision, predicate, limit }) {
      if (predicate.empty && limit !== Infinity) {
        const { keys, objects } = snapshotOf(prefix, revision);
        const from = lowerBound(keys, start);
        const to = Math.min(from + limit, keys.length);
        const page: ListResult = { items: objects.slice(from, to), revision };
        if (to < keys.length) {
          page.continue = encodeContinue(`${keys[to - 1]}\u0000`, prefix, revision);
          page.remainingItemCount = keys.length - to;
        }
        return page;
      }
      const items: KObject[] = [];
      let lastKey = '';
      let more = false;
      history.scan(prefix, start, revision, (key, object) => {
        if (!predicate.matches(object)) return true;
        if (items.length < limit) {
          items.push(object);
          lastKey = key;
          return true;
        }
        more = true;
        return false;
      });
      const result: ListResult = { items, revision };
      if (more) result.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
      return result;
    },

    count(prefix, revision) {
      let n = 0;
      history.scan(prefix, prefix, revision, () => {
        n++;
        return true;
      });
      return n;
    },
  };
}
