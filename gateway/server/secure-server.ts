// The secure listener: HTTP/2 and HTTP/1.1 on one TLS port, chosen by ALPN, as kube-apiserver serves them. Clients
// built on client-go (kubectl among them) speak HTTP/2 and multiplex their requests and watches over one connection;
// curl and older clients keep HTTP/1.1. Both reach the same Koa handler through Node's compatibility API.
import http from 'node:http';
import http2 from 'node:http2';
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { TlsOptions } from 'node:tls';
import { isHttp2 } from './connection.js';
import { guardConnections } from './connection-guards.js';
import { createLogger, type Logger } from './logger.js';
import { realClock, type Clock } from './clock.js';
import { serveUpgrades } from './upgrade.js';

export interface SecureServerOptions {
  tls: Pick<TlsOptions, 'cert' | 'key' | 'minVersion' | 'ca' | 'requestCert' | 'rejectUnauthorized'>;
  /** SETTINGS_MAX_CONCURRENT_STREAMS offered to HTTP/2 clients (--http2-max-streams-per-connection); 0 keeps Node's. */
  maxStreamsPerConnection: number;
  /**
   * A connection carrying no request for this long is closed (HTTP/2: GOAWAY); default 90 s, kube-apiserver's
   * (http.DefaultTransport's keep-alive). Node keeps an idle HTTP/2 session forever, and a watch without events
   * is not idle, so this counts open streams rather than traffic.
   */
  idleTimeoutMs?: number;
  /**
   * Chance per HTTP/2 request that its connection is told to go away (--goaway-chance): the request and every other
   * one in flight finish, and the client's next ones open a new connection, which a load balancer may send to
   * another replica. Without it an HTTP/2 client stays on the replica it first reached.
   */
  goawayChance?: number;
  /** Uniform in [0, 1); tests make the draw certain. */
  random?: () => number;
  /** Times HTTP/2 sessions out when idle (default: the real clock); tests move theirs by hand. */
  clock?: Clock;
  /**
   * A connection whose TLS handshake and first request head are not complete this long after the TCP accept is
   * closed (--read-header-timeout); default 32 s, kube-apiserver's ReadHeaderTimeout. 0 disables.
   */
  headerTimeoutMs?: number;
  /** Connections open at once (--max-connections); those beyond are closed on accept. 0: no cap. */
  maxConnections?: number;
  /** Counts failed TLS handshakes (apiserver_tls_handshake_errors_total). */
  onTlsHandshakeError?: () => void;
  /** Refused and timed-out connections: one debug line each, summed up at info at most once a minute. */
  logger?: Logger;
}

/** What shutdown needs of a listener, for both protocols. */
export interface ServingConnections {
  readonly listening: boolean;
  /** Stops accepting; the callback runs once every connection has ended. */
  close(callback: (err?: Error) => void): void;
  /** Ends HTTP/1.1 connections that carry no request, and asks every HTTP/2 session to end once its streams are done. */
  closeIdleConnections(): void;
  /** Cuts every connection, whatever it carries. */
  closeAllConnections(): void;
}

export interface SecureServer extends ServingConnections {
  readonly server: Http2SecureServer;
}

type Handler = (
  req: http.IncomingMessage | http2.Http2ServerRequest,
  res: http.ServerResponse | http2.Http2ServerResponse,
) => void;

export function createSecureServer(opts: SecureServerOptions, handler: Handler): SecureServer {
  const settings = opts.maxStreamsPerConnection > 0 ? { maxConcurrentStreams: opts.maxStreamsPerConnection } : {};
  const goawayChance = opts.goawayChance ?? 0;
  const random = opts.random ?? Math.random;
  const serve: Handler =
    goawayChance <= 0
      ? handler
      : (req, res) => {
          if (isHttp2(req) && random() < goawayChance) {
            const session = req.stream.session;
            if (session && !session.closed) session.close();
          }
          handler(req, res);
        };
  const server = http2.createSecureServer({ ...opts.tls, allowHTTP1: true, settings }, serve);
  // The HTTP/1.1 side is Node's http.Server machinery bound to this server (typed apart, the same at run time).
  const http1 = server as unknown as http.Server;
  // Watches are long-lived: the HTTP/1.1 side's default 5-minute request timeout would cut them.
  http1.requestTimeout = 0;
  const idleTimeoutMs = opts.idleTimeoutMs ?? 90_000;
  http1.keepAliveTimeout = idleTimeoutMs;
  // Upgrades (HTTP/1.1 only: HTTP/2 has no Upgrade) reach the same handler; see upgrade.ts.
  const upgraded = serveUpgrades(server, serve);
  const logger = opts.logger ?? createLogger();
  const guards = guardConnections(server, {
    headerTimeoutMs: opts.headerTimeoutMs ?? 32_000,
    idleTimeoutMs,
    maxConnections: opts.maxConnections ?? 0,
    logger,
  });
  // Failed handshakes and broken sessions are the clients' doing (a scanner, an untrusted certificate, a closed
  // laptop); Node ends the connection either way, and a line each is worth having only while debugging.
  server.on('tlsClientError', (err: NodeJS.ErrnoException, socket: { remoteAddress?: string; remotePort?: number }) => {
    opts.onTlsHandshakeError?.();
    logger.debug(
      { srcIP: `${socket.remoteAddress}:${socket.remotePort}`, code: err.code, reason: err.message },
      'TLS handshake error',
    );
  });
  server.on('sessionError', (err: NodeJS.ErrnoException) => {
    logger.debug({ code: err.code, reason: err.message }, 'HTTP/2 session error');
  });
  // Node tracks HTTP/1.1 connections for the closing calls but not HTTP/2 sessions: those are kept here.
  const sessions = new Set<ServerHttp2Session>();
  const clock = opts.clock ?? realClock;
  server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    let open = 0;
    let cancelIdle: (() => void) | undefined;
    const armIdle = (): void => {
      cancelIdle = clock.setTimeout(() => {
        if (!session.closed) session.close();
      }, idleTimeoutMs);
    };
    session.on('stream', (stream) => {
      open++;
      cancelIdle?.();
      stream.once('close', () => {
        if (--open === 0 && !session.closed) armIdle();
      });
    });
    session.once('close', () => {
      cancelIdle?.();
      sessions.delete(session);
    });
    armIdle();
  });
  return {
    server,
    get listening() {
      return server.listening;
    },
    close(callback) {
      guards.close();
      server.close(callback);
    },
    closeIdleConnections() {
      http1.closeIdleConnections();
      // GOAWAY: the client opens no new stream here, and the session closes when its last stream has ended.
      for (const session of sessions) if (!session.closed) session.close();
    },
    closeAllConnections() {
      // Node gives the HTTP/2 server only the idle variant; the HTTP/1.1 connection list it keeps is the same one.
      http.Server.prototype.closeAllConnections.call(http1);
      for (const session of sessions) session.destroy();
      for (const socket of upgraded) socket.destroy();
    },
  };
}
