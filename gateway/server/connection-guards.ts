// Bounds what a client can hold without sending requests: every connection must finish its TLS handshake and its
// first request head (HTTP/1.1 headers, or the first complete HEADERS frame of HTTP/2) within the header timeout,
// counted from the TCP accept, as kube-apiserver's ReadHeaderTimeout (32 s) does; and the number of open connections
// is capped, so that idle or slow clients cannot take every file descriptor of the process.
//
// After the first request, HTTP/2 is bounded by the idle timeout (secure-server.ts), which counts open streams: a
// HEADERS frame still arriving opens none. HTTP/1.1 is not, because Node refreshes its keep-alive timer on every byte
// received: a head trickled one byte at a time would keep the connection forever. So once an HTTP/1.1 connection has
// answered its requests, the next head must be complete within the idle timeout plus the header timeout.
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest } from 'node:http2';
import { isHttp2 } from './connection.js';
import { createSummaryLog } from './summary-log.js';
import type { Logger } from './logger.js';

export interface ConnectionGuardOptions {
  /** 0: no header timeout. */
  headerTimeoutMs: number;
  /** The keep-alive idle timeout the server applies; an HTTP/1.1 connection's later heads get this plus the header timeout. */
  idleTimeoutMs: number;
  /** Connections accepted at once (--max-connections); 0: no cap. */
  maxConnections: number;
  logger: Logger;
}

/**
 * The default cap: half the soft open-file limit (which Node raises to the hard limit at start), leaving the other
 * half to storage, watches of files and outgoing calls; 512 where the limit cannot be read (not Linux).
 */
export function defaultMaxConnections(procLimits = readProcLimits()): number {
  const soft = /^Max open files\s+(\d+)/m.exec(procLimits ?? '')?.[1];
  return soft === undefined ? 512 : Math.max(1, Math.floor(Number(soft) / 2));
}

function readProcLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
}

export interface ConnectionGuards {
  close(): void;
}

interface Guard {
  readonly raw: Socket;
  timer?: NodeJS.Timeout;
  /** Requests being answered on an HTTP/1.1 connection: no head is awaited meanwhile. */
  answering: number;
  /** Whether the connection has answered a request, so that the next head's wait includes the idle time. */
  answered: boolean;
}

function peer(socket: Pick<Socket, 'remoteAddress' | 'remotePort'>): string {
  return `${socket.remoteAddress}|${socket.remotePort}`;
}

export function guardConnections(server: Http2SecureServer, opts: ConnectionGuardOptions): ConnectionGuards {
  const summary = (line: string): void => opts.logger.info(line);
  const refused = createSummaryLog(summary, (count, first) =>
    first
      ? `refusing new connections: ${opts.maxConnections} are open, the limit set by --max-connections (further refusals are summed up once a minute)`
      : `refused ${count} connections in the last minute: ${opts.maxConnections} were open, the limit set by --max-connections`,
  );
  if (opts.maxConnections > 0) {
    // Node closes a connection past the limit right after accepting it, before any TLS work.
    server.maxConnections = opts.maxConnections;
    server.on('drop', (dropped?: { remoteAddress?: string; remotePort?: number }) => {
      opts.logger.debug(
        { srcIP: `${dropped?.remoteAddress}:${dropped?.remotePort}` },
        'refused a connection: --max-connections are open',
      );
      refused.note();
    });
  }
  if (opts.headerTimeoutMs <= 0) return { close: () => refused.close() };

  const seconds = opts.headerTimeoutMs / 1000;
  const slow = createSummaryLog(
    summary,
    (count) =>
      `closed ${count} connection${count === 1 ? '' : 's'} that sent no complete request head within ${seconds}s (--read-header-timeout)`,
  );
  // The TLS socket and the HTTP/2 session do not expose the TCP socket they wrap; both report its peer address.
  const accepted = new Map<string, Guard>();
  const http1Guards = new WeakMap<object, Guard>();

  function expire(guard: Guard): void {
    if (guard.answering > 0) return;
    opts.logger.debug(
      { srcIP: `${guard.raw.remoteAddress}:${guard.raw.remotePort}` },
      'closing a connection that sent no complete request head in time (--read-header-timeout)',
    );
    slow.note();
    guard.raw.destroy();
  }
  function arm(guard: Guard, ms: number): void {
    clearTimeout(guard.timer);
    guard.timer = setTimeout(expire, ms, guard);
    guard.timer.unref();
  }

  server.on('connection', (raw: Socket) => {
    const key = peer(raw);
    const guard: Guard = { raw, answering: 0, answered: false };
    arm(guard, opts.headerTimeoutMs);
    accepted.set(key, guard);
    raw.once('close', () => {
      clearTimeout(guard.timer);
      if (accepted.get(key) === guard) accepted.delete(key);
    });
  });
  server.on('secureConnection', (socket: Socket & { alpnProtocol?: string | false }) => {
    const guard = accepted.get(peer(socket));
    if (guard && socket.alpnProtocol !== 'h2') http1Guards.set(socket, guard);
  });
  server.on('session', (session: ServerHttp2Session) => {
    const key = peer(session.socket);
    const guard = accepted.get(key);
    if (!guard) return;
    session.once('stream', () => {
      clearTimeout(guard.timer);
      accepted.delete(key);
    });
  });
  const laterHeadMs = opts.idleTimeoutMs + opts.headerTimeoutMs;
  server.on('request', (req: IncomingMessage | Http2ServerRequest, res: ServerResponse) => {
    if (isHttp2(req)) return;
    const guard = http1Guards.get(req.socket);
    if (!guard) return;
    guard.answering++;
    const socket = req.socket;
    res.once('close', () => {
      // A response ended by closing its connection (shutdown, a client gone) leaves nothing to guard: a timer armed
      // now would hold the guard and its socket for idle + header timeout after the server closed.
      if (--guard.answering > 0 || socket.destroyed || guard.raw.destroyed) return;
      if (guard.answered) {
        guard.timer?.refresh();
      } else {
        guard.answered = true;
        arm(guard, laterHeadMs);
      }
    });
  });

  return {
    close() {
      refused.close();
      slow.close();
    },
  };
}
