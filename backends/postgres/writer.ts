// The write path: one writer loop per storage instance with group commit.
//
// Revision order must equal commit order, or a watcher reading `revision > last` could pass a revision whose
// transaction commits late. Every write transaction therefore takes one transaction-scoped advisory lock before it
// reads max(revision), and holds it until its commit is visible (PostgreSQL releases locks after the commit is
// visible), so when revision R is visible every revision below R is committed, with no gaps.
//
// That lock serializes writers across replicas, so throughput comes from batching: writes queued while a
// transaction commits all go into the next one (a small one also waits a few turns of the event loop while they
// keep coming, see GATHER_UNTIL), each checked individually against its key's newest row (read under
// the lock) so one failing write does not abort the others; the unique (key, prev_revision) index backs the check.
// A batch is one call of a server-side function (gatehouse_commit, schema.ts) in one autocommit statement: the lock
// is held for the database's work alone, not across round trips to this process, whose event loop answers late
// while it serves other requests (measured: with the checks and inserts sent from here, a batch held the lock for
// two such round trips, and 16 clients got 1,600 creates/s).
// The wake-up NOTIFY goes out after commit, one per batch and coalesced: a NOTIFY inside the transaction would
// serialize commits on the server's notification queue lock.
//
// While the database is unreachable writes fail fast with Unavailable: a batch's transaction (connecting included)
// has a deadline, and a batch that failed because the database is gone takes the writes queued behind it along, so
// no write waits for more than about one attempt.
import { StorageError } from '../storage.js';
import { connectionLost, toStorageError } from './errors.js';
import type { Db, KeyRow, LogRow } from './queries.js';
import { NOTIFY_CHANNEL } from './schema.js';
import type { Sessions } from './transaction.js';

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

// A batch smaller than GATHER_UNTIL writes may wait up to GATHER_TURNS turns of the event loop for more, while each
// turn adds some. Bigger batches cost less of the gateway's CPU per write (one statement, one answer to parse, one
// wake-up NOTIFY for all) and of the database's. From 16 writes on a batch's own cost is spread thin, and waiting
// would only keep the database idle (bench/NOTES.md has the measurements).
const GATHER_TURNS = 3;
const GATHER_UNTIL = 16;

// Above the connect timeout (3 s, transaction.ts) plus a reconnect backoff, so a refused or timed-out connection
// fails with its own error first; far above a healthy commit.
const WRITE_DEADLINE_MS = 4_000;

/** One row of gatehouse_commit per write, in the batch's order. */
interface CommitRow {
  o_ok: boolean;
  o_revision: bigint | null;
  o_created: boolean | null;
  o_head_revision: bigint | null;
  o_head_deleted: boolean | null;
  o_head_value: string | null;
}

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

  /**
   * One batch in one autocommit statement (gatehouse_commit, schema.ts): the lock, the checks and the inserts run on
   * the server. A lost connection leaves the outcome unknown, as with a lost COMMIT: the batch fails with
   * Unavailable and its callers retry and see the truth.
   */
  async function commit(
    batch: Pending[],
  ): Promise<{ results: WriteResult[]; last: bigint | undefined; committed: LogRow[] }> {
    const at = opts.now();
    const keys = batch.map((p) => p.request.key);
    const expects = batch.map((p) => (p.request.expect === 'absent' ? null : p.request.expect.toString()));
    const values = batch.map((p) => p.request.value);
    // Arrays travel as JSON text, which JSON.stringify escapes natively (the clients fetch no array types, and a
    // text[] literal's escaping cost more than the rest of the statement).
    // One row per write, matched by position: WITH ORDINALITY numbers the function's rows as it emitted them.
    const rows = await opts.sessions.statement(
      (db) => db<CommitRow[]>`SELECT * FROM gatehouse_commit(
      ${JSON.stringify(keys)}::text::json, ${JSON.stringify(expects)}::text::json, ${JSON.stringify(values)}::text::json,
      ${at.toString()}::bigint) WITH ORDINALITY AS c ORDER BY c.ordinality`,
      { deadlineMs },
    );
    if (rows.length !== batch.length) {
      throw new StorageError('Internal', `the write batch answered ${rows.length} rows for ${batch.length} writes`);
    }
    let last: bigint | undefined;
    const committed: LogRow[] = [];
    const results = batch.map(({ request }, i): WriteResult => {
      const row = rows[i];
      const head =
        row.o_head_revision === null
          ? undefined
          : { key: request.key, revision: row.o_head_revision, deleted: row.o_head_deleted!, value: row.o_head_value! };
      if (!row.o_ok) return { ok: false, head };
      const revision = row.o_revision!;
      const created = row.o_created!;
      const deleted = request.value === null;
      const value = deleted ? head!.value : request.value!;
      const prevRevision = head?.revision ?? 0n;
      last = revision;
      committed.push({
        revision,
        key: request.key,
        created,
        deleted,
        prev_revision: prevRevision,
        value,
        prev_value: head?.value ?? null,
        written_at: BigInt(at),
      });
      return { ok: true, revision, created, value, prevRevision };
    });
    return { results, last, committed };
  }

  /**
   * Lets the writes of the requests the event loop is still working through join a small batch: waits a turn at a
   * time (at most GATHER_TURNS) while each turn added some. A write that finds the gateway otherwise idle waits one
   * turn.
   */
  async function gather(): Promise<void> {
    const enough = Math.min(GATHER_UNTIL, maxBatch);
    for (let turn = 0, seen = -1; turn < GATHER_TURNS && queue.length < enough && queue.length !== seen; turn++) {
      seen = queue.length;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length) {
        await gather();
        // close() failed what was queued meanwhile.
        if (queue.length === 0) break;
        const batch = queue.length > maxBatch ? queue.splice(0, maxBatch) : queue;
        if (batch === queue) queue = [];
        try {
          const { results, last, committed } = await commit(batch);
          if (last !== undefined) {
            opts.onCommit(last, committed);
            notify(last);
          }
          batch.forEach((p, i) => p.resolve(results[i]));
        } catch (e) {
          // The whole batch shares the outcome; with a connection lost while its statement ran it is unknown, as
          // with any client of a remote database, and the caller's retry sees the truth.
          const error = toStorageError(e);
          if (!(error instanceof StorageError))
            opts.log(`error: postgres storage: write batch failed: ${(e as Error).message}`);
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
