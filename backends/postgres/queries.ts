// The read-side SQL. Every query that must be consistent with the store's revision bounds reads them in the same
// statement (one READ COMMITTED statement is one snapshot), so a compaction or a commit landing between two
// queries can never make a read mix states.
//
// Revisions travel as decimal strings with explicit ::bigint casts, and come back as bigint (the pool parses int8
// with postgres.BigInt).
import type postgres from 'postgres';
import type { Sql } from 'postgres';
import type { KObject } from '../../api/meta/types.js';

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
}

// The bounds as one scalar subquery pair; the log's max can lag the compaction mark only when the newest row was
// compacted, which the compactor never does, so greatest() is a guard, not a hot path.
const BOUNDS = `
  SELECT greatest(coalesce((SELECT max(revision) FROM gatehouse_log), 1), c.revision) AS current, c.revision AS compacted
  FROM gatehouse_compaction c WHERE c.id = 1`;

/** Parses a stored value and stamps the revision it is read at as its resourceVersion. */
export function decodeObject(value: string, revision: bigint): KObject {
  const obj = JSON.parse(value) as KObject;
  obj.metadata = { ...obj.metadata, resourceVersion: revision.toString() };
  return obj;
}

/** The stored form: JSON without resourceVersion, which is the row's revision and stamped on read. */
export function encodeObject(obj: KObject): string {
  return JSON.stringify({ ...obj, metadata: { ...obj.metadata, resourceVersion: undefined } });
}

/** The smallest string greater than every string starting with `prefix`, for index range scans. */
export function prefixEnd(prefix: string): string {
  if (prefix === '') return '\u{10FFFF}';
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/**
 * `key >= start` as SQL. Continue tokens put "\u0000" after the last key, which PostgreSQL text cannot hold; as no
 * key contains NUL, "at or after X\u0000..." is exactly "after X".
 */
function fromStart(sql: Db, start: string): postgres.PendingQuery<postgres.Row[]> {
  const nul = start.indexOf('\u0000');
  return nul < 0 ? sql`key >= ${start}` : sql`key > ${start.slice(0, nul)}`;
}

export async function readBounds(sql: Db): Promise<Bounds> {
  const [row] = await sql.unsafe<Bounds[]>(BOUNDS);
  return row;
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
  const [first] = rows;
  const bounds = { current: first.current, compacted: first.compacted };
  if (first.revision === null || first.revision === undefined) return bounds;
  return { ...bounds, row: { key: first.key!, revision: first.revision, deleted: first.deleted!, value: first.value! } };
}

export interface ListChunk extends Bounds {
  /** The revision the chunk was read at. */
  revision: bigint;
  /** Live objects in key order. */
  rows: KeyRow[];
}

/**
 * Up to `limit` live objects under `prefix` with key >= `start`, each at its newest row with revision <= `revision`
 * (null: the current revision of this statement's snapshot). Keyset pagination over the (key, revision DESC) index.
 */
export async function readListChunk(sql: Db, prefix: string, start: string, revision: bigint | null, limit: number): Promise<ListChunk> {
  const rows = await sql<(Bounds & { at: bigint } & Partial<KeyRow>)[]>`
    WITH b AS (${sql.unsafe(BOUNDS)}),
    at AS (SELECT b.current, b.compacted, coalesce(${revision?.toString() ?? null}::bigint, b.current) AS at FROM b)
    SELECT at.current, at.compacted, at.at, r.key, r.revision, r.value
    FROM at LEFT JOIN LATERAL (
      SELECT n.key, n.revision, n.value FROM (
        SELECT DISTINCT ON (key) key, revision, deleted, value FROM gatehouse_log
        WHERE ${fromStart(sql, start)} AND key < ${prefixEnd(prefix)} AND revision <= at.at
        ORDER BY key, revision DESC
      ) n WHERE NOT n.deleted ORDER BY n.key LIMIT ${limit}
    ) r ON true`;
  const [first] = rows;
  const chunk: ListChunk = { current: first.current, compacted: first.compacted, revision: first.at, rows: [] };
  if (first.key === null || first.key === undefined) return chunk;
  chunk.rows = rows.map((r) => ({ key: r.key!, revision: r.revision!, deleted: false, value: r.value! }));
  return chunk;
}

/** Live objects under `prefix` with key >= `start` at `revision`. */
export async function countLive(sql: Db, prefix: string, start: string, revision: bigint | null): Promise<number> {
  const [row] = await sql<{ n: bigint }[]>`
    WITH b AS (${sql.unsafe(BOUNDS)})
    SELECT count(*) AS n FROM (
      SELECT DISTINCT ON (key) deleted FROM gatehouse_log, b
      WHERE ${fromStart(sql, start)} AND key < ${prefixEnd(prefix)} AND revision <= coalesce(${revision?.toString() ?? null}::bigint, b.current)
      ORDER BY key, revision DESC
    ) n WHERE NOT n.deleted`;
  return Number(row.n);
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
      SELECT l.revision, l.key, l.created, l.deleted, l.prev_revision, l.value, p.value AS prev_value
      FROM gatehouse_log l LEFT JOIN gatehouse_log p ON p.revision = l.prev_revision AND l.prev_revision > 0
      WHERE l.revision > ${after.toString()}::bigint AND l.key >= ${lower} AND (${upper}::text IS NULL OR l.key < ${upper}::text)
      ORDER BY l.revision LIMIT ${limit}
    ) r ON true`;
  const [first] = rows;
  if (first.revision === null || first.revision === undefined) return { compacted: first.c, rows: [] };
  return { compacted: first.c, rows: rows as LogRow[] };
}
