// Versioned schema migrations, applied on start. Several replicas may start at once: a session advisory lock
// serializes them, and each migration runs in its own transaction and records its version, so a replica that
// waited finds the work done and applies nothing twice.
import { rollbackUnlessLost, type Sessions } from './transaction.js';

/** Advisory lock keys (pg_advisory_lock takes a bigint); distinct per purpose so they never block each other. */
export const MIGRATION_LOCK = 0x6761746501n;
export const WRITE_LOCK = 0x6761746502n;
export const COMPACT_LOCK = 0x6761746503n;

export const NOTIFY_CHANNEL = 'gatehouse_log';

interface Migration {
  version: number;
  description: string;
  sql: string;
}

// Append only: a released migration never changes, a fix is a new version.
const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'revision log and compaction mark',
    sql: `
      -- One row per write. value holds the object's JSON text without its resourceVersion (the row's revision
      -- is stamped on read), and for a tombstone the last state. text rather than jsonb: objects are stored and
      -- returned as the exact text, and no jsonb parse or render is paid on the hot paths.
      CREATE TABLE gatehouse_log (
        revision bigint PRIMARY KEY,
        key text COLLATE "C" NOT NULL,
        created boolean NOT NULL,
        deleted boolean NOT NULL,
        prev_revision bigint NOT NULL,
        value text NOT NULL,
        written_at bigint NOT NULL
      );
      -- Compare-and-swap: two writes that both saw the same newest row of a key cannot both land.
      CREATE UNIQUE INDEX gatehouse_log_key_prev ON gatehouse_log (key, prev_revision);
      -- Newest row per key, and keyset pagination in byte order (the column's C collation).
      CREATE UNIQUE INDEX gatehouse_log_key_revision ON gatehouse_log (key, revision DESC);
      -- The compactor's cut: the newest row written before the window, found with one index probe.
      CREATE INDEX gatehouse_log_written_at ON gatehouse_log (written_at, revision);
      -- Tombstones, which the compactor removes once they leave the window.
      CREATE INDEX gatehouse_log_tombstones ON gatehouse_log (revision) WHERE deleted;
      -- The oldest readable revision, shared by every replica. Revision 1 is the empty store's: the first write is 2.
      CREATE TABLE gatehouse_compaction (
        id int PRIMARY KEY CHECK (id = 1),
        revision bigint NOT NULL
      );
      INSERT INTO gatehouse_compaction VALUES (1, 1);
    `,
  },
  {
    version: 2,
    description: 'group commit as one server-side call',
    sql: `
      -- One batch of writes, whole, in the transaction of the statement that calls it (the writer sends one
      -- autocommit statement per batch): the write lock, the revision top, each key's newest row, the check of
      -- the write's expectation and the row it adds. Run on the server, the lock is held for the database's own
      -- work only, never across a round trip to a gateway whose event loop is busy with other requests; the batch
      -- costs one round trip instead of two.
      -- A write expects its key absent (NULL, or a tombstone) or its newest row live at the given revision; a NULL
      -- value deletes (the tombstone keeps the last state). Writes run in order, so a later write of the same key
      -- sees an earlier one. Each write yields one row: o_ok, and the revision it took, or the key's newest row
      -- as found (which, for a write that went through, is the row it superseded).
      CREATE FUNCTION gatehouse_commit(p_keys json, p_expects json, p_values json, p_at bigint,
        OUT o_ok boolean, OUT o_revision bigint, OUT o_created boolean,
        OUT o_head_revision bigint, OUT o_head_deleted boolean, OUT o_head_value text)
      RETURNS SETOF record LANGUAGE plpgsql AS $fn$
      DECLARE
        keys text[] := ARRAY(SELECT e FROM json_array_elements_text(p_keys) WITH ORDINALITY AS t(e, n) ORDER BY n);
        expects bigint[] := ARRAY(SELECT e::bigint FROM json_array_elements_text(p_expects) WITH ORDINALITY AS t(e, n) ORDER BY n);
        vals text[] := ARRAY(SELECT e FROM json_array_elements_text(p_values) WITH ORDINALITY AS t(e, n) ORDER BY n);
        top bigint;
        live boolean;
      BEGIN
        PERFORM pg_advisory_xact_lock(${WRITE_LOCK.toString()});
        SELECT greatest(coalesce((SELECT max(l.revision) FROM gatehouse_log l), 1),
                        (SELECT c.revision FROM gatehouse_compaction c WHERE c.id = 1)) INTO top;
        FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP
          o_head_revision := NULL;
          o_head_deleted := NULL;
          o_head_value := NULL;
          SELECT l.revision, l.deleted, l.value INTO o_head_revision, o_head_deleted, o_head_value
            FROM gatehouse_log l WHERE l.key = keys[i] ORDER BY l.revision DESC LIMIT 1;
          live := coalesce(NOT o_head_deleted, false);
          o_ok := CASE WHEN expects[i] IS NULL THEN NOT live ELSE live AND o_head_revision = expects[i] END
                  AND (vals[i] IS NOT NULL OR live);
          o_revision := NULL;
          o_created := NULL;
          IF o_ok THEN
            top := top + 1;
            o_revision := top;
            o_created := NOT live;
            INSERT INTO gatehouse_log (revision, key, created, deleted, prev_revision, value, written_at)
              VALUES (top, keys[i], NOT live, vals[i] IS NULL, coalesce(o_head_revision, 0), coalesce(vals[i], o_head_value), p_at);
          END IF;
          RETURN NEXT;
        END LOOP;
      END
      $fn$;
    `,
  },
];

export async function migrate(sessions: Sessions, log: (line: string) => void): Promise<void> {
  // A connection of its own (see transaction.ts for the driver's defects), closed afterwards: were the unlock below
  // to fail, the session lock goes with the connection instead of blocking the next replica to start.
  await sessions.session(async (tx) => {
    // A session lock, held across the per-migration transactions below; released explicitly (and by the server if
    // this process dies). A statement on a lost connection fails before it is sent: nothing runs outside the lock.
    await tx`SELECT pg_advisory_lock(${MIGRATION_LOCK.toString()}::bigint)`;
    try {
      await tx`CREATE TABLE IF NOT EXISTS gatehouse_schema_migrations (
        version int PRIMARY KEY,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`;
      const done = new Set(
        (await tx<{ version: number }[]>`SELECT version FROM gatehouse_schema_migrations`).map((r) => r.version),
      );
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await tx.unsafe('BEGIN');
        try {
          await tx.unsafe(m.sql);
          await tx`INSERT INTO gatehouse_schema_migrations (version, description) VALUES (${m.version}, ${m.description})`;
          await tx.unsafe('COMMIT');
        } catch (e) {
          await rollbackUnlessLost(tx, e);
          throw e;
        }
        log(`postgres storage: applied schema migration ${m.version} (${m.description})`);
      }
    } finally {
      try {
        await tx`SELECT pg_advisory_unlock(${MIGRATION_LOCK.toString()}::bigint)`;
      } catch {
        // Lost with the connection, which is closed after this call either way.
      }
    }
  });
}
