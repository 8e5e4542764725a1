// The memory backend's MVCC core: one global revision counter, a version list per key and a global write log.
// The per-key versions answer reads at older revisions; the log feeds watch replay. Everything here is synchronous,
// which is what makes a commit and its fan-out atomic in a single-threaded runtime.
//
// Stored objects are deep-frozen: the store hands them out shared (no copies, see the contract in storage.ts), and a
// caller or a predicate that tries to write through a shared reference fails loudly instead of corrupting history.
import type { KObject } from '../../api/meta/types.js';
import { createRequire } from 'node:module';
import { StorageError } from '../storage.js';
import { cloneJson, withProperty } from '../../api/meta/clone.js';

// A CommonJS package whose class is its `default` export: Node's ES module loader and tsx disagree on what a default
// import of it is, and require gives the same object under both. The type must be require's view too, which only an
// import() type gives: an `import type` presents the package as ES module loading sees it.
// eslint-disable-next-line @typescript-eslint/consistent-type-imports -- see above
type SortedBTreeModule = typeof import('sorted-btree');
const { default: BTree, simpleComparator } = createRequire(import.meta.url)('sorted-btree') as SortedBTreeModule;

export type WriteType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed write. The objects are the store's frozen copies, handed out as they are. */
export interface LogEntry {
  readonly revision: bigint;
  readonly key: string;
  readonly type: WriteType;
  /** ADDED/MODIFIED: the new state; DELETED: the last state stamped with the deletion revision. */
  readonly object: KObject;
  readonly prevObject?: KObject;
  /** Wall-clock commit time, which decides when the entry leaves the history window. */
  readonly time: number;
}

/** What a durable copy of the history holds: enough to rebuild it with the same revisions and write times. */
export interface HistorySnapshot {
  /** The compacted revision: `base` is the state at it, and `entries` are every write after it. */
  readonly compacted: bigint;
  /** Live objects at the compacted revision, in key order, each stamped with the revision that wrote it. */
  readonly base: readonly { readonly key: string; readonly object: KObject }[];
  readonly entries: readonly LogEntry[];
}

/** One write to replay into a fresh history: a new state, or null for a deletion. */
export interface ReplayedWrite {
  readonly revision: bigint;
  readonly key: string;
  readonly object: KObject | null;
  readonly time: number;
}

interface Version {
  readonly revision: bigint;
  /** null marks a deletion (tombstone). */
  readonly object: KObject | null;
}

export interface RevisionHistory {
  /** Newest committed revision. */
  current(): bigint;
  /** Oldest revision whose state is still fully readable; every write after it is still in the log. */
  compacted(): bigint;
  /** The live object at the newest revision. */
  latest(key: string): KObject | undefined;
  /** Revision of the key's newest version, live or deleted: a compare-and-swap token for read-modify-write. */
  keyRevision(key: string): bigint | undefined;
  /** The live object at `revision` (which the caller checked is within [compacted, current]). */
  at(key: string, revision: bigint): KObject | undefined;
  /** Commits a new state (an object the caller already copied) or a deletion (null) at the next revision. */
  commit(key: string, object: KObject | null, time: number): LogEntry;
  /**
   * Visits live objects at `revision` whose key starts with `prefix`, from `start` (inclusive) in key order,
   * until `visit` returns false.
   */
  scan(prefix: string, start: string, revision: bigint, visit: (key: string, object: KObject) => boolean): void;
  /** Log entries with revision > `after` (which the caller checked is >= compacted), oldest first. */
  entriesAfter(after: bigint): LogEntry[];
  /**
   * Drops log entries committed before `cutoff`, up to revision `limit` at most, and every version only they could
   * still reach.
   */
  compact(cutoff: number, limit?: bigint): void;
  /**
   * Starts an empty history at `compacted` with the given live objects (each stamped with its revision). Like
   * replay, it takes ownership of the objects: they come freshly parsed from disk, so copying them would be waste.
   */
  restore(compacted: bigint, base: Iterable<{ key: string; object: KObject }>): void;
  /** Re-applies a write with its original revision and time; it must be the next revision. */
  replay(write: ReplayedWrite): LogEntry;
  /** The base state at the compacted revision and the log up to `upTo` (at most current). */
  snapshot(upTo: bigint): HistorySnapshot;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function stamp(object: KObject, revision: bigint): KObject {
  object.metadata = withProperty(object.metadata, 'resourceVersion', revision.toString());
  return deepFreeze(object);
}

/** The store starts at revision 1, as etcd does: on the wire "0" means "any", so no state may be named 0. */
const INITIAL_REVISION = 1n;

export function createRevisionHistory(): RevisionHistory {
  let current = INITIAL_REVISION;
  let compacted = INITIAL_REVISION;
  // Point reads go through the map; scans walk the same version lists in key order through the B-tree, whose
  // inserts stay cheap where a sorted array's move every later key (etcd's key index and kube-apiserver's watch
  // cache keep their keys in B-trees too). Keys compare as JavaScript strings (UTF-16 code units), which equals byte
  // order for the ASCII keys the registry writes.
  const versions = new Map<string, Version[]>();
  const ordered = new BTree<string, Version[]>(undefined, simpleComparator);
  const log: LogEntry[] = [];
  // Index of the first retained log entry; the array is trimmed in batches so compaction stays amortised O(1).
  let head = 0;

  function versionAt(list: Version[] | undefined, revision: bigint): Version | undefined {
    if (!list) return undefined;
    for (let i = list.length - 1; i >= 0; i--) if (list[i].revision <= revision) return list[i];
    return undefined;
  }

  function forget(key: string): void {
    versions.delete(key);
    ordered.delete(key);
  }

  const history: RevisionHistory = {
    current: () => current,
    compacted: () => compacted,

    latest(key) {
      const list = versions.get(key);
      return list?.[list.length - 1].object ?? undefined;
    },

    keyRevision(key) {
      const list = versions.get(key);
      return list?.[list.length - 1].revision;
    },

    at(key, revision) {
      return versionAt(versions.get(key), revision)?.object ?? undefined;
    },

    commit(key, object, time) {
      const revision = current + 1n;
      let list = versions.get(key);
      const prev = list?.[list.length - 1].object ?? undefined;
      let entry: LogEntry;
      if (object === null) {
        if (!prev) throw new StorageError('Internal', `commit: deleting absent key ${key}`, key);
        entry = { revision, key, type: 'DELETED', object: stamp(cloneJson(prev), revision), prevObject: prev, time };
      } else {
        entry = {
          revision,
          key,
          type: prev ? 'MODIFIED' : 'ADDED',
          object: stamp(object, revision),
          prevObject: prev,
          time,
        };
      }
      if (!list) {
        list = [];
        versions.set(key, list);
        ordered.set(key, list);
      }
      list.push({ revision, object: object === null ? null : entry.object });
      log.push(entry);
      current = revision;
      return entry;
    },

    scan(prefix, start, revision, visit) {
      const latest = revision === current;
      // One pair array for the whole walk instead of one per key: a full list visits every key of its prefix.
      for (const [key, list] of ordered.entries(start < prefix ? prefix : start, [])) {
        if (!key.startsWith(prefix)) return;
        const object = latest ? list[list.length - 1].object : versionAt(list, revision)?.object;
        if (object && !visit(key, object)) return;
      }
    },

    entriesAfter(after) {
      // The log is contiguous: the entry for revision r sits at head + (r - compacted - 1).
      const from = head + Number(after - compacted);
      return log.slice(Math.max(from, head));
    },

    compact(cutoff, limit) {
      while (head < log.length && log[head].time < cutoff && (limit === undefined || log[head].revision <= limit)) {
        const { key, revision } = log[head];
        head++;
        compacted = revision;
        // The version written by this entry is now the oldest one anyone can read; older ones are unreachable,
        // and a tombstone at the bottom says nothing a missing version does not.
        const list = versions.get(key);
        if (!list) continue;
        let drop = 0;
        while (drop < list.length && list[drop].revision < revision) drop++;
        if (drop < list.length && list[drop].revision === revision && list[drop].object === null) drop++;
        list.splice(0, drop);
        if (list.length === 0) forget(key);
      }
      if (head > 1024 && head * 2 > log.length) {
        log.splice(0, head);
        head = 0;
      }
    },

    restore(revision, base) {
      if (current !== INITIAL_REVISION || log.length > 0 || versions.size > 0) {
        throw new StorageError('Internal', 'restore: the history is not empty');
      }
      for (const { key, object } of base) {
        const written = BigInt(object.metadata.resourceVersion ?? '0');
        if (written <= 0n || written > revision || versions.has(key)) {
          throw new StorageError('Internal', `restore: bad base object ${key} at revision ${written}`, key);
        }
        const list = [{ revision: written, object: deepFreeze(object) }];
        versions.set(key, list);
        ordered.set(key, list);
      }
      current = revision;
      compacted = revision;
    },

    replay(write) {
      // Revisions are contiguous: a gap or a repeat means the durable copy does not describe one history.
      if (write.revision !== current + 1n) {
        throw new StorageError(
          'Internal',
          `replay: expected revision ${current + 1n}, got ${write.revision}`,
          write.key,
          write.revision,
        );
      }
      return history.commit(write.key, write.object, write.time);
    },

    snapshot(upTo) {
      const base: { key: string; object: KObject }[] = [];
      if (upTo < compacted)
        throw new StorageError('Internal', `snapshot: revision ${upTo} is below the compacted ${compacted}`);
      history.scan('', '', compacted, (key, object) => {
        base.push({ key, object });
        return true;
      });
      const last = upTo < current ? upTo : current;
      return { compacted, base, entries: log.slice(head, head + Number(last - compacted)) };
    },
  };
  return history;
}
