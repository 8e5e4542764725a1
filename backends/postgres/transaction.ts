// Transactions on connections of their own, written around defects of the postgres driver (3.4.9):
//
// - A statement sent on a reserved connection whose socket is gone throws from a setImmediate callback, which no
//   caller can catch (upstream porsager/postgres#1208). The driver's sql.begin() sends ROLLBACK on the dead
//   connection when it is lost mid-transaction, and releasing a lost reserved connection puts it back among the open
//   ones, where the next query meets the same end.
// - sql.reserve() on a pool without an open connection queues its waiter and also hands it to a connection it
//   starts; when that connect fails the waiter is rejected but stays queued, and the next connection that opens is
//   handed to the dead waiter and lost for good. Every outage leaks connections this way until none is left and
//   every reserve() (and then every query) waits forever.
// - With fetch_types (the default) every new connection first runs a query for the array types, whose promise no
//   one handles: a connection lost in that moment (a database restarting) is an unhandled rejection
//   `write CONNECTION_CLOSED`, which ends the process. Without fetch_types, reserve() on a connection it had to
//   open never resolves at all.
// - A statement that fails after some of its rows arrived (the connection lost mid-result, or an error raised
//   while rows were sent) leaves the driver's count of received rows where it stopped, on the connection object the
//   client keeps reconnecting; the next statement's rows are stored from that index, behind as many holes
//   (porsager/postgres#1119, #1181). Seen here as a one-write batch answered with four rows after a restart. A
//   session whose work failed is therefore never reused: the next caller gets a client of its own. Reads on the
//   pools meet it as missing first rows (StaleRowCountError, from `single` in queries.ts), which ends the count: the
//   reads that retry a lost connection retry that too, and the others answer Unavailable.
//
// So no pool of this backend fetches types or reserves connections. A transaction runs on a session: a client of
// its own with a single connection (max: 1, where the driver allows BEGIN as a plain statement), whose queries the
// driver routes to a new connection when the old one is gone instead of writing to a dead socket. That routing
// would run the rest of a transaction outside it, so every statement of a transaction first checks that the
// session's connection is still the one BEGIN ran on (the driver reports each close through onclose), and nothing
// is sent once it changed: the server rolls back the transaction of a session that ended. Connections do not
// expire by age or idleness (max_lifetime, idle_timeout): an expiry between two statements would be such a change.
import postgres from 'postgres';
import { StorageError } from '../storage.js';
import { connectionLost, ipv6HostOptions, reconnectBackoff, StaleRowCountError } from './errors.js';
import type { Db } from './queries.js';

// The driver's codes for a connection it lost or never had, the socket errors it passes through, and the server's
// errors that end the session (connection exceptions, and the administrator or crash shutdowns of class 57P).
/** Seconds a connection attempt may take before it fails with CONNECT_TIMEOUT (Unavailable), for every pool. */
export const CONNECT_TIMEOUT_S = 3;

/**
 * Runs a read on the pool once more when its connection turned out dead: after a database restart each pooled
 * connection is found closed only by the next statement sent on it, and a read has no effect to repeat. The same
 * for a result the driver numbered from a count left by a statement lost mid-result (see above).
 */
export async function readRetryingLostConnection<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (e) {
    if (!connectionLost(e) && !(e instanceof StaleRowCountError)) throw e;
    return read();
  }
}

/** The options every client of this backend shares; see above for fetch_types. */
export function clientOptions(applicationName: string): postgres.Options<{ bigint: typeof postgres.BigInt }> {
  return {
    fetch_types: false,
    // A database that is down must fail calls fast (Unavailable), not queue them for the default 30 s.
    connect_timeout: CONNECT_TIMEOUT_S,
    backoff: reconnectBackoff,
    onnotice: () => undefined,
    types: { bigint: postgres.BigInt },
    connection: { application_name: applicationName },
  };
}

export interface TransactionOptions {
  /** BEGIN, or BEGIN with a mode. */
  begin?: string;
  /**
   * The longest the transaction may take, connecting included; past it the session's connection is destroyed (the
   * server rolls back) and the call fails with Unavailable. Default: none.
   */
  deadlineMs?: number;
}

export interface Sessions {
  /** Runs `fn` between BEGIN and COMMIT on one connection; ROLLBACK on failure while the connection lives. */
  transaction<T>(fn: (tx: Db) => Promise<T>, opts?: TransactionOptions): Promise<T>;
  /**
   * Runs `fn`'s statements outside a transaction (each its own, autocommit) on one connection, within the
   * deadline: for work that one statement does whole.
   */
  statement<T>(fn: (db: Db) => Promise<T>, opts?: Pick<TransactionOptions, 'deadlineMs'>): Promise<T>;
  /**
   * Runs `fn` on one connection of its own, for session state (a session-level advisory lock) across statements;
   * its statements fail once the connection changed. The connection is closed afterwards, so no session state
   * outlives the call.
   */
  session<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Closes every session; calls after it fail with Unavailable. */
  close(): Promise<void>;
  /** Sessions (one connection each) kept for reuse, and those running work. */
  stats(): { idle: number; busy: number };
}

interface Session {
  client: Db;
  /** Bumped whenever the connection closes. */
  generation: number;
}

function lostError(): Error {
  return Object.assign(new Error('the connection of this transaction was lost'), { code: 'CONNECTION_CLOSED' });
}

/**
 * The session's client for one transaction: each statement is refused (thrown synchronously, before the driver
 * sees it) once the connection it started on closed.
 */
function guarded(session: Session, refusal?: () => unknown): Db {
  const start = session.generation;
  const check = (): void => {
    if (session.generation !== start) throw lostError();
    const refused = refusal?.();
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows the failure of BEGIN as the driver gave it
    if (refused !== undefined) throw refused;
  };
  const client = session.client as unknown as (...args: unknown[]) => unknown;
  const tx = (...args: unknown[]): unknown => {
    check();
    return client(...args);
  };
  return Object.assign(tx, {
    unsafe: (...args: Parameters<Db['unsafe']>) => {
      check();
      return session.client.unsafe(...args);
    },
  }) as unknown as Db;
}

/** Rolls back the transaction a statement of which failed with `failure`, unless the connection is gone with it. */
export async function rollbackUnlessLost(tx: Db, failure: unknown): Promise<void> {
  if (connectionLost(failure)) return;
  try {
    await tx.unsafe('ROLLBACK');
  } catch {
    // The connection went meanwhile: the server rolled back.
  }
}

/**
 * A small pool of single-connection sessions, one per concurrent caller (the writer, the compactor, a snapshot
 * read), reused while healthy.
 */
export function createSessions(opts: { url: string; applicationName?: string }): Sessions {
  const idle: Session[] = [];
  const all = new Set<Session>();
  let closed = false;

  function open(): Session {
    const session: Session = { generation: 0, client: undefined as unknown as Db };
    session.client = postgres(opts.url, {
      ...clientOptions(opts.applicationName ?? 'gatehouse'),
      ...ipv6HostOptions(opts.url),
      max: 1,
      max_lifetime: 0,
      idle_timeout: 0,
      onclose: () => void session.generation++,
    });
    all.add(session);
    return session;
  }

  function discard(session: Session): void {
    all.delete(session);
    // end() never rejects; timeout 0 destroys the connection at once, failing whatever is still in flight on it.
    void session.client.end({ timeout: 0 });
  }

  async function use<T>(
    body: (session: Session) => Promise<T>,
    deadlineMs: number | undefined,
    keep: boolean,
  ): Promise<T> {
    if (closed) throw new StorageError('Unavailable', 'storage is closed');
    const session = idle.pop() ?? open();
    let timer: NodeJS.Timeout | undefined;
    let expired = false;
    let failed = false;
    try {
      const work = body(session);
      if (deadlineMs === undefined) return await work;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          expired = true;
          // Fails the statements in flight, so `work` settles too (its rejection is handled by the race).
          discard(session);
          reject(new StorageError('Unavailable', `database did not answer within ${deadlineMs} ms`));
        }, deadlineMs);
      });
      return await Promise.race([work, deadline]);
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      clearTimeout(timer);
      if (!expired) {
        // A failed session may also still have statements in flight (a transaction whose BEGIN failed).
        if (keep && !closed && !failed) idle.push(session);
        else discard(session);
      }
    }
  }

  return {
    transaction(fn, { begin = 'BEGIN', deadlineMs } = {}) {
      return use(
        async (session) => {
          // BEGIN is not awaited on its own: the driver pipelines statements on a busy connection, so BEGIN goes out
          // with the body's first statements, one round trip less per transaction. Should BEGIN fail, those first
          // statements ran outside a transaction, which is why every statement after them is refused: nothing the
          // body decides on what they read is ever written.
          let beginFailed: unknown;
          const tx = guarded(session, () => beginFailed);
          const begun = tx.unsafe(begin).then(
            () => undefined,
            (e: unknown) => {
              beginFailed = e;
              throw e;
            },
          );
          try {
            const [, out] = await Promise.all([begun, fn(tx)]);
            await tx.unsafe('COMMIT');
            return out;
          } catch (e) {
            await rollbackUnlessLost(tx, e);
            throw e;
          }
        },
        deadlineMs,
        true,
      );
    },
    statement(fn, { deadlineMs } = {}) {
      return use((session) => fn(guarded(session)), deadlineMs, true);
    },
    session(fn) {
      return use((session) => fn(guarded(session)), undefined, false);
    },
    stats: () => ({ idle: idle.length, busy: all.size - idle.length }),
    async close() {
      closed = true;
      idle.length = 0;
      await Promise.all([...all].map((s) => s.client.end({ timeout: 1 })));
      all.clear();
    },
  };
}
