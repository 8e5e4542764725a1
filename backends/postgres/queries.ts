// The read-side SQL. Every query that must be consistent with the store's revision bounds reads them in the same
// statement (one READ COMMITTED statement is one snapshot), so a compaction or a commit landing between two
// queries can never make a read mix states.
//
// Revisions travel as decimal strings with explicit ::bigint casts, and come back as bigint (the pool parses int8
// with postgres.BigInt).
import type { Sql } from 'postgres';
import type { KObject } from '../../api/meta/types.js';
import { StorageError } from '../storage.js';
import { contentJson } from '../storage-support.js';
import { StaleRowCountError } from './errors.js';
import type { Sessions } from './transaction.js';

/**
 * The first row of a query that always yields one (it selects from the one-row bounds): a connection lost as the
 * answer arrives can leave the driver with an empty result, which is an unavailable database, not a missing row.
 */
function single<T>(rows: readonly T[], what: string): T {
  if (rows.length > 0 && !(0 in rows)) throw new StaleRowCountError(what, rows.length);
  const [row] = rows;
  if (row === undefined) throw new StorageError('Unavailable', `the database returned no row for ${what}`);
  return row;
}

export type Db = Sql<{ bigint: bigint }>;

/** `current`: newest committed revision; `compacted`: oldest readable revision. */
export interface Bounds {
  current: bigint;
  compacted: bigint;
}

export interface KeyRow {
  key: string;
  revision: bigint;
  deleted: boolean;
  value: string;
}

export interface LogRow extends KeyRow {
  created: boolean;
  prev_revision: bigint;
  /** The value of the row this one superseded, when it is still stored. */
  prev_value: string | null;
  /** Wall-clock commit time (ms), which decides when the row leaves the history window. */
  written_at: bigint;
}

// The bounds as one scalar subquery pair; the log's max can lag the compaction mark only when the newest row was
// compacted, which the compactor never does, so greatest() is a guard, not a hot path.
const BOUNDS = `
  SELECT greatest(coalesce((SELECT max(revision) FROM gatehouse_log), 1), c.revision) AS current, c.revision AS compacted
  FROM gatehouse_compaction c WHERE c.id = 1`;

/** Parses a stored value and stamps the revision it is read at as its resourceVersion. */
export function decodeObject(value: string, revision: bigint): KObject {
  const obj = JSON.parse(value) as KObject;
  // Set in place on the freshly parsed (private) metadata: a spread adding the field would give every object read a
  // hidden class of its own (see withProperty in api/meta/clone.ts).
  (obj.metadata ??= {} as KObject['metadata']).resourceVersion = revision.toString();
  return obj;
}

/** The stored form: JSON without resourceVersion, which is the row's revision and stamped on read. */
export function encodeObject(obj: KObject): string {
  return contentJson(obj);
}

/** The smallest string greater than every string starting with `prefix`, for index range scans. */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** The bounds now: every consistent read's fence, so a prepared statement (planned once per connection). */
export async function readBounds(sql: Db): Promise<Bounds> {
  return single(await sql.unsafe<Bounds[]>(BOUNDS, [], { prepare: true }), 'the revision bounds');
}

/**
 * Bytes of Gatehouse's own relations (tables with their indexes and TOAST), not of the whole database: the database
 * may hold other applications' data, which is not this storage's size.
 */
export async function readStoredBytes(sql: Db): Promise<number> {
  const rows = await sql<{ bytes: bigint }[]>`
    SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint AS bytes
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE c.relkind = 'r' AND c.relname LIKE 'gatehouse\\_%' AND n.nspname = current_schema()`;
  return Number(single(rows, 'the stored bytes').bytes);
}

/**
 * The newest row of `key` at `revision` (null: at the current revision), with the bounds of the same snapshot.
 * The row may be a tombstone.
 */
export async function readKey(sql: Db, key: string, revision: bigint | null): Promise<Bounds & { row?: KeyRow }> {
  const rows = await sql<(Bounds & Partial<KeyRow>)[]>`
    WITH b AS (${sql.unsafe(BOUNDS)})
    SELECT b.current, b.compacted, r.key, r.revision, r.deleted, r.value
    FROM b LEFT JOIN LATERAL (
      SELECT key, revision, deleted, value FROM gatehouse_log
      WHERE key = ${key} AND revision <= coalesce(${revision?.toString() ?? null}::bigint, b.current)
      ORDER BY revision DESC LIMIT 1
    ) r ON true`;
  const first = single(rows, `key ${key}`);
  // Both answers as literals of their own: a spread adding `row` gave each answer a hidden class of its own, and
  // every read of `.row` missed V8's caches (see withProperty in api/meta/clone.ts).
  if (first.revision === null || first.revision === undefined)
    return { current: first.current, compacted: first.compacted };
  return {
    current: first.current,
    compacted: first.compacted,
    row: { key: first.key!, revision: first.revision, deleted: first.deleted!, value: first.value! },
  };
}

export interface LogChunk {
  compacted: bigint;
  rows: LogRow[];
}

/**
 * Log rows with revision > `after`, oldest first, at most `limit`, optionally only keys under `prefix`; with the
 * compaction mark of the same snapshot, so a reader can tell whether rows it needed were compacted away.
 */
export async function readLogAfter(sql: Db, after: bigint, limit: number, prefix?: string): Promise<LogChunk> {
  const lower = prefix ?? '';
  const upper = prefix === undefined ? null : prefixEnd(prefix);
  const rows = await sql<({ c: bigint } & Partial<LogRow>)[]>`
    WITH c AS (SELECT revision AS c FROM gatehouse_compaction WHERE id = 1)
    SELECT c.c, r.* FROM c LEFT JOIN LATERAL (
      SELECT l.revision, l.key, l.created, l.deleted, l.prev_revision, l.value, l.written_at, p.value AS prev_value
      FROM gatehouse_log l LEFT JOIN gatehouse_log p ON p.revision = l.prev_revision AND l.prev_revision > 0
      WHERE l.revision > ${after.toString()}::bigint AND l.key >= ${lower} AND (${upper}::text IS NULL OR l.key < ${upper}::text)
      ORDER BY l.revision LIMIT ${limit}
    ) r ON true`;
  const first = single(rows, 'the log');
  if (first.revision === null || first.revision === undefined) return { compacted: first.c, rows: [] };
  return { compacted: first.c, rows: rows as LogRow[] };
}

/** A log row as the read cache replays it. */
export type ReplayRow = Pick<LogRow, 'revision' | 'key' | 'deleted' | 'value' | 'written_at'>;

export interface SnapshotVisitor {
  /** The snapshot's bounds, first. */
  bounds(bounds: Bounds): void;
  /** Live objects at the compacted revision, in key order, chunk by chunk (before any `rows`). */
  base(rows: readonly KeyRow[]): void;
  /** Every row above the compacted revision, in revision order, chunk by chunk. */
  rows(rows: readonly ReplayRow[]): void;
}

/**
 * The whole readable history in one REPEATABLE READ snapshot: the state at the compaction mark, then every row
 * after it (the compactor never deletes those, and revisions are contiguous). Read in keyset chunks so neither the
 * driver nor the server holds the whole table at once. Returns the bounds of the snapshot.
 */
export async function readSnapshot(sessions: Sessions, visit: SnapshotVisitor, chunk = 2_000): Promise<Bounds> {
  return sessions.transaction(
    async (tx) => {
      const bounds = single(await tx.unsafe<Bounds[]>(BOUNDS), 'the snapshot bounds');
      visit.bounds(bounds);
      const compacted = bounds.compacted.toString();
      // Keys are never empty, so '' sorts before every key.
      for (let after = ''; ;) {
        const rows = await tx<KeyRow[]>`
        SELECT DISTINCT ON (key) key, revision, deleted, value FROM gatehouse_log
        WHERE key > ${after} AND revision <= ${compacted}::bigint
        ORDER BY key, revision DESC LIMIT ${chunk}`;
        visit.base(rows.filter((r) => !r.deleted));
        if (rows.length < chunk) break;
        after = rows[rows.length - 1].key;
      }
      for (let after = bounds.compacted; ;) {
        const rows = await tx<ReplayRow[]>`
        SELECT revision, key, deleted, value, written_at FROM gatehouse_log
        WHERE revision > ${after.toString()}::bigint ORDER BY revision LIMIT ${chunk}`;
        visit.rows(rows);
        if (rows.length < chunk) break;
        after = rows[rows.length - 1].revision;
      }
      return { current: bounds.current, compacted: bounds.compacted };
    },
    { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' },
  );
}
