// The write path: one writer loop per storage instance with group commit.
//
// Revision order must equal commit order, or a watcher reading `revision > last` could pass a revision whose
// transaction commits late. Every write transaction therefore takes one transaction-scoped advisory lock before it
// reads max(revision), and holds it until its commit is visible (PostgreSQL releases locks after the commit is
// visible), so when revision R is visible every revision below R is committed, with no gaps.
//
// That lock serializes writers across replicas, so throughput comes from batching: writes queued while a
// transaction commits all go into the next one, each checked individually against its key's newest row (read under
// the lock) so one failing write does not abort the others; the unique (key, prev_revision) index backs the check.
// The wake-up NOTIFY goes out after commit, one per batch and coalesced: a NOTIFY inside the transaction would
// serialize commits on the server's notification queue lock.
//
// While the database is unreachable writes fail fast with Unavailable: a batch's transaction (connecting included)
// has a deadline, and a batch that failed because the database is gone takes the writes queued behind it along, so
// no write waits for more than about one attempt.
import { StorageError } from '../storage.js';
import { connectionLost, toStorageError } from './errors.js';
import { textArray, type Db, type KeyRow, type LogRow } from './queries.js';
import { NOTIFY_CHANNEL, WRITE_LOCK } from './schema.js';
import { failedBeforeCommit, PipelinedCommit, type Sessions } from './transaction.js';

export interface WriteRequest {
  key: string;
  /** absent: the key must not exist (no row, or a tombstone); a revision: the key's newest row must be it, live. */
  expect: 'absent' | bigint;
  /** The stored text of the new state, or null to delete (the tombstone keeps the last state). */
  value: string | null;
}

export type WriteResult =
  | { ok: true; revision: bigint; created: boolean; value: string; prevRevision: bigint }
  /** The check failed; `head` is the key's newest row at that moment (absent or a tombstone when deleted). */
  | { ok: false; head?: KeyRow };

export interface Writer {
  /** Queues a write for the next batch. Rejects with Unavailable when the database cannot be reached. */
  write(request: WriteRequest): Promise<WriteResult>;
  /** Stops accepting writes; queued ones fail with Unavailable. */
  close(): void;
}

export interface WriterOptions {
  /** The pool, for the NOTIFY after commit. */
  sql: Db;
  /** The transactions' connections. */
  sessions: Sessions;
  now: () => number;
  /**
   * Called after each commit with the batch's highest revision and its rows as a scan of the log would return them
   * (the local log reader's wake-up, which may take the rows without reading them back).
   */
  onCommit: (revision: bigint, rows: LogRow[]) => void;
  log: (line: string) => void;
  /** Writes per transaction; bounds the statement size and the lock hold time. */
  maxBatch?: number;
  /** How long one batch's transaction may take, connecting included, before it fails with Unavailable. */
  deadlineMs?: number;
}

// Above the connect timeout (3 s, transaction.ts) plus a reconnect backoff, so a refused or timed-out connection
// fails with its own error first; far above a healthy commit.
const WRITE_DEADLINE_MS = 4_000;

interface Pending {
  request: WriteRequest;
  resolve: (result: WriteResult) => void;
  reject: (error: unknown) => void;
}

export function createWriter(opts: WriterOptions): Writer {
  const { sql } = opts;
  const maxBatch = opts.maxBatch ?? 256;
  const deadlineMs = opts.deadlineMs ?? WRITE_DEADLINE_MS;
  let queue: Pending[] = [];
  let draining = false;
  let closed = false;
  let notifyPending: bigint | undefined;
  let notifying = false;

  async function sendNotifications(): Promise<void> {
    notifying = true;
    while (notifyPending !== undefined && !closed) {
      const revision = notifyPending;
      notifyPending = undefined;
      // A lost hint costs latency only: the other replicas' fallback poll finds the rows.
      await sql`SELECT pg_notify(${NOTIFY_CHANNEL}, ${revision.toString()})`.catch(() => undefined);
    }
    notifying = false;
  }

  function notify(revision: bigint): void {
    if (notifyPending === undefined || revision > notifyPending) notifyPending = revision;
    if (!notifying) void sendNotifications();
  }

  async function commit(batch: Pending[]): Promise<{ results: WriteResult[]; last: bigint | undefined; committed: LogRow[] }> {
    const keys = [...new Set(batch.map((p) => p.request.key))];
    return opts.sessions.transaction<{ results: WriteResult[]; last: bigint | undefined; committed: LogRow[] }>(async (tx) => {
      // Pipelined in one round trip; each statement takes its snapshot after the previous one finished, so the
      // reads see every commit of the lock's previous holder. Arrays travel as text[] (the driver infers no element
      // type from JS values) and are cast in SQL; the stored values, large, as one JSON array, which JSON.stringify
      // escapes natively where the text[] literal's escaping cost more than the rest of the statement.
      const [, heads, [top]] = await Promise.all([
        tx`SELECT pg_advisory_xact_lock(${WRITE_LOCK.toString()}::bigint)`,
        tx<KeyRow[]>`SELECT DISTINCT ON (key) key, revision, deleted, value FROM gatehouse_log
                     WHERE key = ANY(${textArray(keys)}::text[]) ORDER BY key, revision DESC`,
        tx<{ top: bigint }[]>`SELECT greatest(coalesce((SELECT max(revision) FROM gatehouse_log), 1),
                              (SELECT revision FROM gatehouse_compaction WHERE id = 1)) AS top`,
      ]);
      const head = new Map<string, KeyRow>(heads.map((r) => [r.key, r]));
      let next = top.top;
      const at = opts.now();
      const committed: LogRow[] = [];
      const rows = { revision: [] as string[], key: [] as string[], created: [] as string[], deleted: [] as string[], prev: [] as string[], value: [] as string[] };
      const results = batch.map(({ request }): WriteResult => {
        const current = head.get(request.key);
        const live = current !== undefined && !current.deleted;
        const ok = request.expect === 'absent' ? !live : live && current.revision === request.expect;
        if (!ok || (request.value === null && !live)) return { ok: false, head: current };
        const revision = ++next;
        const deleted = request.value === null;
        const value = deleted ? current!.value : request.value!;
        const prevRevision = current?.revision ?? 0n;
        rows.revision.push(revision.toString());
        rows.key.push(request.key);
        rows.created.push(live ? 'f' : 't');
        rows.deleted.push(deleted ? 't' : 'f');
        rows.prev.push(prevRevision.toString());
        rows.value.push(value);
        head.set(request.key, { key: request.key, revision, deleted, value });
        committed.push({
          revision, key: request.key, created: !live, deleted, prev_revision: prevRevision, value,
          prev_value: current?.value ?? null, written_at: BigInt(at),
        });
        return { ok: true, revision, created: !live, value, prevRevision };
      });
      if (rows.key.length) {
        // Not awaited: COMMIT goes out right behind it (PipelinedCommit), one round trip less per batch.
        const inserted = tx`INSERT INTO gatehouse_log (revision, key, created, deleted, prev_revision, value, written_at)
                 SELECT * FROM unnest(${textArray(rows.revision)}::text[]::bigint[], ${textArray(rows.key)}::text[],
                   ${textArray(rows.created)}::text[]::bool[], ${textArray(rows.deleted)}::text[]::bool[],
                   ${textArray(rows.prev)}::text[]::bigint[], ARRAY(SELECT e FROM json_array_elements_text(${JSON.stringify(rows.value)}::text::json)
                     WITH ORDINALITY AS t(e, n) ORDER BY n),
                   array_fill(${at.toString()}::bigint, ARRAY[${rows.key.length}::int]))`.execute();
        return new PipelinedCommit({ results, last: next, committed }, inserted);
      }
      return { results, last: undefined, committed };
    }, { deadlineMs });
  }

  /**
   * A connection that died while idle (a database restart, a terminated backend) is found only when the next batch
   * uses it; that batch never reached COMMIT, so it runs once more on a fresh connection before anyone sees an error.
   */
  async function commitOnce(batch: Pending[]): ReturnType<typeof commit> {
    try {
      return await commit(batch);
    } catch (e) {
      if (!(connectionLost(e) && failedBeforeCommit(e)) || closed) throw e;
      return commit(batch);
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length) {
        const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
        if (batch === queue) queue = [];
        try {
          const { results, last, committed } = await commitOnce(batch);
          if (last !== undefined) {
            opts.onCommit(last, committed);
            notify(last);
          }
          batch.forEach((p, i) => p.resolve(results[i]));
        } catch (e) {
          // The whole batch shares the outcome; with a connection lost during COMMIT it is unknown, as with any
          // client of a remote database, and the caller's retry sees the truth.
          const error = toStorageError(e);
          if (!(error instanceof StorageError)) opts.log(`postgres storage: write batch failed: ${(e as Error).message}`);
          for (const p of batch) p.reject(error);
          // The database is gone (or did not answer in time): the writes queued meanwhile, never sent, fail with
          // it rather than wait for an attempt of their own, and their callers retry.
          if (connectionLost(e) || (e instanceof StorageError && e.code === 'Unavailable')) {
            const waiting = queue;
            queue = [];
            for (const p of waiting) p.reject(toStorageError(e, p.request.key));
          }
        }
      }
    } finally {
      draining = false;
    }
  }

  return {
    write(request) {
      if (closed) return Promise.reject(new StorageError('Unavailable', 'storage is closed', request.key));
      return new Promise<WriteResult>((resolve, reject) => {
        queue.push({ request, resolve, reject });
        if (!draining) void drain();
      });
    },
    close() {
      closed = true;
      const dropped = queue;
      queue = [];
      for (const p of dropped) p.reject(new StorageError('Unavailable', 'storage is closed', p.request.key));
    },
  };
}
