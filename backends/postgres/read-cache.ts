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
import { createRevisionHistory, type LogEntry, type RevisionHistory } from '../memory/revision-history.js';
import { createHistoryLister, type HistoryListRequest, type HistoryLister } from '../memory/history-lists.js';
import { StorageError, type ListResult } from '../storage.js';
import { decodeObject, readSnapshot, type KeyRow, type ReplayRow } from './queries.js';
import type { Sessions } from './transaction.js';
import { PrefixCounter, type WatchCacheStats } from '../watch-cache-stats.js';

export type ListRequest = HistoryListRequest;

export interface ReadCache {
  /** Newest revision applied: reads at or below it (and at or above `compacted`) are answered from memory. */
  current(): bigint;
  /** Oldest revision whose state the cache holds whole. */
  compacted(): bigint;
  /**
   * Applies log rows in revision order (rows at or below `current` are skipped), then the mark they came with.
   * Returns the history entry each row became (undefined for a skipped row): the watch fan-out shares its objects.
   */
  apply(rows: readonly ReplayRow[], compacted: bigint): (LogEntry | undefined)[];
  /** Drops history at and below a compaction mark the database committed (as far as the cache has reached it). */
  compactTo(mark: bigint): void;
  /** The live object at `revision` (which the caller checked is inside the cache's window). */
  get(key: string, revision: bigint): KObject | undefined;
  list(request: ListRequest): ListResult;
  count(prefix: string, revision: bigint): number;
  /** Replaces the contents with a fresh snapshot of the database; resolves with its revision. */
  reload(): Promise<bigint>;
  /** The cache's part of the statistics; the watchers are the watch hub's. */
  stats(): Omit<WatchCacheStats, 'terminatedWatchers'>;
}

interface State {
  history: RevisionHistory;
  /** Lists and counts at a revision, with the list snapshots that make pages cheap. */
  lister: HistoryLister;
  /** The highest compaction mark learned, applied as far as the history reaches it. */
  mark: bigint;
}

function replayRow(history: RevisionHistory, row: ReplayRow): LogEntry {
  return history.replay({
    revision: row.revision,
    key: row.key,
    object: row.deleted ? null : (JSON.parse(row.value) as KObject),
    time: Number(row.written_at),
  });
}

async function load(sessions: Sessions): Promise<State> {
  const history = createRevisionHistory();
  const base: { key: string; object: KObject }[] = [];
  let compacted = 0n;
  let restored = false;
  const bounds = await readSnapshot(sessions, {
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
    throw new StorageError(
      'Internal',
      `read cache: loaded up to revision ${history.current()}, the snapshot's current is ${bounds.current}`,
    );
  }
  return { history, lister: createHistoryLister(history), mark: bounds.compacted };
}

export async function createReadCache(sessions: Sessions): Promise<ReadCache> {
  let state = await load(sessions);
  let initializations = 1;
  const received = new PrefixCounter();

  function settleMark(): void {
    const { history, mark } = state;
    if (mark <= history.compacted()) return;
    // Every entry up to the mark leaves (times are irrelevant: the database decided), as far as the log reaches.
    history.compact(Number.POSITIVE_INFINITY, mark);
  }

  return {
    current: () => state.history.current(),
    compacted: () => state.history.compacted(),

    apply(rows, compacted) {
      const { history } = state;
      const entries = rows.map((row) => {
        if (row.revision <= history.current()) return undefined;
        received.add(row.key);
        return replayRow(history, row);
      });
      if (compacted > state.mark) state.mark = compacted;
      settleMark();
      return entries;
    },

    compactTo(mark) {
      if (mark > state.mark) state.mark = mark;
      settleMark();
    },

    get: (key, revision) => state.history.at(key, revision),

    list: (req) => state.lister.list(req),

    count: (prefix, revision) => state.lister.count(prefix, revision),

    async reload() {
      state = await load(sessions);
      initializations++;
      return state.history.current();
    },

    stats: () => ({ revision: state.history.current(), initializations, eventsReceived: received.counts }),
  };
}
