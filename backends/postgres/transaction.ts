// Transactions on a reserved connection, written around a defect of the postgres driver (3.4.9, upstream
// porsager/postgres#1208): a statement sent on a connection whose socket is gone throws from a setImmediate
// callback, which no caller can catch, so the whole process dies. The driver's own sql.begin() does exactly that
// when the connection is lost mid-transaction (it sends ROLLBACK on the dead connection), and releasing a lost
// reserved connection puts it back among the open ones, where the next query meets the same end.
//
// So once a statement failed because the connection is gone, nothing more is sent on it: no ROLLBACK (the server
// rolls back the transaction of a session that ended) and no release (the pool took the closed connection back
// when it closed).
import type { Db } from './queries.js';

// The driver's codes for a connection it lost or never had, the socket errors it passes through, and the server's
// errors that end the session (connection exceptions, and the administrator or crash shutdowns of class 57P).
const LOST_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
]);

/** True when `e` means the connection it came from is gone (or going): nothing more may be sent on it. */
export function connectionLost(e: unknown): boolean {
  const error = e as { code?: unknown; severity?: unknown } | null;
  if (typeof error?.code !== 'string') return false;
  return LOST_CODES.has(error.code) || error.code.startsWith('08') || error.severity === 'FATAL' || error.severity === 'PANIC';
}

/**
 * A session on one reserved connection that stops using it after a lost connection. `run` passes errors through
 * and records whether the connection is still usable; `release` hands it back only then.
 */
export async function reserveSession(sql: Db): Promise<{ tx: Db; run<T>(fn: () => Promise<T>): Promise<T>; usable(): boolean; release(): void }> {
  const reserved = await sql.reserve();
  let usable = true;
  return {
    tx: reserved,
    async run(fn) {
      if (!usable) throw Object.assign(new Error('connection lost earlier in this session'), { code: 'CONNECTION_CLOSED' });
      try {
        return await fn();
      } catch (e) {
        if (connectionLost(e)) usable = false;
        throw e;
      }
    },
    usable: () => usable,
    release() {
      if (usable) reserved.release();
    },
  };
}

/**
 * Runs `fn` between `begin` (BEGIN, or BEGIN with a mode) and COMMIT on one reserved connection; ROLLBACK on failure
 * while the connection lives.
 */
export async function transaction<T>(sql: Db, fn: (tx: Db) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  const session = await reserveSession(sql);
  try {
    return await session.run(async () => {
      await session.tx.unsafe(begin);
      const result = await fn(session.tx);
      await session.tx.unsafe('COMMIT');
      return result;
    });
  } catch (e) {
    // Sent in the same microtask run as the failure arrived, before the driver can process a close event.
    if (session.usable()) await session.run(() => session.tx.unsafe('ROLLBACK')).catch(() => undefined);
    throw e;
  } finally {
    session.release();
  }
}
