// Translation of driver failures into the storage error catalog. A database that is down, restarting or out of
// connections is Unavailable (503, the client retries); anything else is Internal, with the server's message kept
// for the log but never the connection URL.
import { StorageError } from '../storage.js';

// Codes that mean the connection a statement ran on is gone (or going): nothing more may be sent on it.
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

// Failures of a live connection that still mean "the server cannot serve right now": too many connections,
// serialization failure, deadlock. The client's retry may succeed.
const TRANSIENT_SQLSTATES = new Set(['53300', '40001', '40P01']);

/**
 * A result whose first rows are missing: the driver stored its rows after a count its connection kept from a
 * statement that failed mid-result, its connection lost or an error raised while rows were sent (transaction.ts).
 * The count is reset once this result ended, so the read may be repeated; Unavailable where it is not.
 */
export class StaleRowCountError extends StorageError {
  constructor(what: string, rows: number) {
    super(
      'Unavailable',
      `storage unavailable: the driver numbered the ${rows} rows of ${what} from an earlier statement's count`,
    );
  }
}

/** True when `e` means the connection it came from is gone (or going): nothing more may be sent on it. */
export function connectionLost(e: unknown): boolean {
  const error = e as { code?: unknown; severity?: unknown } | null;
  if (typeof error?.code !== 'string') return false;
  return (
    LOST_CODES.has(error.code) ||
    error.code.startsWith('08') ||
    error.severity === 'FATAL' ||
    error.severity === 'PANIC'
  );
}

export function isUnavailable(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return connectionLost(e) || (typeof code === 'string' && TRANSIENT_SQLSTATES.has(code));
}

/** Passes StorageErrors through; maps driver errors; keeps anything else (a caller's own error) untouched. */
export function toStorageError(e: unknown, key = ''): unknown {
  if (e instanceof StorageError) return e;
  if (isUnavailable(e)) return new StorageError('Unavailable', `storage unavailable: ${(e as Error).message}`, key);
  if (e && typeof e === 'object' && 'severity' in e)
    return new StorageError('Internal', `storage error: ${(e as unknown as Error).message}`, key);
  return e;
}

export function isPostgresUrl(url: URL): boolean {
  return url.protocol === 'postgres:' || url.protocol === 'postgresql:';
}

/**
 * A storage URL as log lines and error messages may show it: a postgres URL with its password replaced, anything
 * else with whatever may be credentials (up to the last `@`, after a `scheme://`) hidden. Only a postgres URL is
 * known to keep its password where URL parsing finds it: `user:secret@host` parses too, as a URL of scheme `user:`
 * whose path holds the secret.
 */
export function redactUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL: it may be a password pasted alone, so nothing of it is shown.
    return REDACTED;
  }
  if (isPostgresUrl(parsed)) {
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  }
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  return `${scheme}***${url.slice(at)}`;
}

/**
 * The server's address as driver options, for a URL whose host is an IPv6 literal (`postgres://u@[::1]:5432/db`):
 * the driver splits a URL's host at every `:` (its multi-host form is `h1:p1,h2:p2`), which leaves the host `[`.
 * Given as lists, host and port are taken as they are (at run time: the typings allow only a string, hence `object`).
 * Other URLs need nothing: the driver reads them.
 */
export function ipv6HostOptions(url: string): object {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  if (!parsed.hostname.startsWith('[')) return {};
  return { host: [parsed.hostname.slice(1, -1)], port: [Number(parsed.port || DEFAULT_PORT)] };
}

const DEFAULT_PORT = 5432;

/** What redactUrl shows of a value that is not a URL. */
export const REDACTED = '(value not shown)';

/**
 * Seconds a pooled connection waits before it reconnects after a failed attempt, for the driver's `backoff` option:
 * the driver's own curve (3^attempt / 100 s, jittered), capped at half a second instead of its 20 s. Its failure
 * count is shared by the pool and reset only by a successful connect, so after an outage of a few seconds every
 * connection waited 10-20 s before its next attempt, and a query handed to one waited with it: requests hung long
 * after the database was back. The short cap keeps requests bounded while it is down and recovery prompt after.
 */
export function reconnectBackoff(attempt: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** attempt / 100, 0.5);
}
