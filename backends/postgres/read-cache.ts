// The replica's in-memory copy of the revision log, as kube-apiserver's watch cache: the current state plus the
// history window, in the memory backend's MVCC structure (revision-history.ts), so gets and lists at any revision
// inside the window are answered without a query. It is loaded from one database snapshot on start and then kept
// current by the log reader, which hands it every row (with its original revision and write time) before the watch
// hub fans the row out, so a watcher never sees an event the cache does not have.
//
// The cache's window follows the database's compaction mark (from the local compactor, the log reader's chunks and
// the revision fence's queries), not a clock of its own: a revision the database answers Expired for is dropped here
// as soon as this replica learns of the mark, and nothing the database still holds is dropped earlier.
//
// Objects are parsed once per row and deep-frozen by the history; reads hand them out shared (storage.ts).
import type { KObject } from '../../api/meta/types.js';
import { createRevisionHistory, type RevisionHistory } from '../memory/revision-history.js';
import { encodeContinue } from '../continue-token.js';
import { StorageError, type ListResult, type SelectionPredicate } from '../storage.js';
import { decodeObject, readSnapshot, type Db, type KeyRow, type ReplayRow } from './queries.js';

export interface ListRequest {
  prefix: string;
  /** First key of the page (inclusive): the prefix, or a continue token's position. */
  start: string;
  revision: bigint;
  predicate: SelectionPredicate;
  /** Infinity: no limit. */
  limit: number;
}

export interface ReadCache {
  /** Newest revision applied: reads at or below it (and at or above `compacted`) are answered from memory. */
  current(): bigint;
  /** Oldest revision whose state the cache holds whole. */
  compacted(): bigint;
  /** Applies log rows in revision order (rows at or below `current` are skipped), then the mark they came with. */
  apply(rows: readonly ReplayRow[], compacted: bigint): void;
  /** Drops history at and below a compaction mark the database committed (as far as the cache has reached it). */
  compactTo(mark: bigint): void;
  /** The live object at `revision` (which the caller checked is inside the cache's window). */
  get(key: string, revision: bigint): KObject | undefined;
  list(request: ListRequest): ListResult;
  count(prefix: string, revision: bigint): number;
  /** Replaces the contents with a fresh snapshot of the database; resolves with its revision. */
  reload(): Promise<bigint>;
}

/** The live objects under a prefix at a revision, in key order: what each page of a paged list slices. */
interface ListSnapshot {
  readonly revision: bigint;
  readonly keys: readonly string[];
  readonly objects: readonly KObject[];
}

// Snapshots kept (newest use last out): a few lists paged at once; each is two arrays of pointers to frozen objects.
const SNAPSHOTS = 4;

interface State {
  history: RevisionHistory;
  /** By revision and prefix. */
  snapshots: Map<string, ListSnapshot>;
  /** The highest compaction mark learned, applied as far as the history reaches it. */
  mark: bigint;
}

function replayRow(history: RevisionHistory, row: ReplayRow): void {
  history.replay({
    revision: row.revision,
    key: row.key,
    object: row.deleted ? null : (JSON.parse(row.value) as KObject),
    time: Number(row.written_at),
  });
}

async function load(sql: Db): Promise<State> {
  const history = createRevisionHistory();
  const base: { key: string; object: KObject }[] = [];
  let compacted = 0n;
  let restored = false;
  const bounds = await readSnapshot(sql, {
    bounds: (b) => (compacted = b.compacted),
    base(rows: readonly KeyRow[]) {
      for (const row of rows) base.push({ key: row.key, object: decodeObject(row.value, row.revision) });
    },
    rows(rows) {
      if (!restored) history.restore(compacted, base);
      restored = true;
      for (const row of rows) replayRow(history, row);
    },
  });
  if (!restored) history.restore(bounds.compacted, base);
  if (history.current() !== bounds.current) {
    throw new StorageError('Internal', `read cache: loaded up to revision ${history.current()}, the snapshot's current is ${bounds.current}`);
  }
  return { history, snapshots: new Map(), mark: bounds.compacted };
}

export async function createReadCache(sql: Db): Promise<ReadCache> {
  let state = await load(sql);

  function settleMark(): void {
    const { history, mark } = state;
    if (mark <= history.compacted()) return;
    // Every entry up to the mark leaves (times are irrelevant: the database decided), as far as the log reaches.
    history.compact(Number.POSITIVE_INFINITY, mark);
    // A snapshot below the window can no longer be read, and would pin compacted versions.
    for (const [id, snapshot] of state.snapshots) if (snapshot.revision < history.compacted()) state.snapshots.delete(id);
  }

  function snapshotOf(prefix: string, revision: bigint): ListSnapshot {
    const { snapshots, history } = state;
    const id = `${revision}\u0000${prefix}`;
    let snapshot = snapshots.get(id);
    if (snapshot) {
      snapshots.delete(id);
    } else {
      const keys: string[] = [];
      const objects: KObject[] = [];
      history.scan(prefix, prefix, revision, (key, object) => {
        keys.push(key);
        objects.push(object);
        return true;
      });
      snapshot = { revision, keys, objects };
      if (snapshots.size >= SNAPSHOTS) snapshots.delete(snapshots.keys().next().value!);
    }
    snapshots.set(id, snapshot);
    return snapshot;
  }

  /** Index of the first key >= target in ascending `keys` (JavaScript string order, as the history's). */
  function lowerBound(keys: readonly string[], target: string): number {
    let lo = 0;
    let hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  return {
    current: () => state.history.current(),
    compacted: () => state.history.compacted(),

    apply(rows, compacted) {
      const { history } = state;
      for (const row of rows) if (row.revision > history.current()) replayRow(history, row);
      if (compacted > state.mark) state.mark = compacted;
      settleMark();
    },

    compactTo(mark) {
      if (mark > state.mark) state.mark = mark;
      settleMark();
    },

    get: (key, revision) => state.history.at(key, revision),

    list({ prefix, start, revision, predicate, limit }) {
      // Paged lists with an empty predicate report remainingItemCount: one snapshot per (prefix, revision) makes each
      // page a binary search and a slice instead of a count of everything after it.
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
      state.history.scan(prefix, start, revision, (key, object) => {
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
      state.history.scan(prefix, prefix, revision, () => {
        n++;
        return true;
      });
      return n;
    },

    async reload() {
      state = await load(sql);
      return state.history.current();
    },
  };
}
