// A minimal aggregated API server for the aggregation tests: real HTTPS with its own CA (test/helpers/pki.ts) and a
// serving certificate for `<service>.<namespace>.svc`, answering the discovery document of one group-version and one
// namespaced kind, flunders (test/helpers/upstream-flunders.ts). It asks for a client certificate (verified against
// `clientCa` when given) and records every request as it arrived: headers one entry per line, the certificate's CN.
// Its `mode` decides each answer: served, a hang (until the client gives up), a 500, bytes that are no HTTP, an
// answer whose body is cut off after its first bytes, or one held after its first bytes until release(). Upgrades
// are answered 101 and echo what they receive, or left unanswered in 'hang' mode.
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { issueServerCert, makeCA, type CertificateAuthority } from './pki.js';
import { FlunderStore } from './upstream-flunders.js';

export type UpstreamMode = 'ok' | 'hang' | '500' | 'garbage' | 'close-mid-stream' | 'held-mid-stream';

export interface ReceivedRequest {
  method: string;
  path: string;
  /** Lowercased name → every line's value, in order. */
  headers: Record<string, string[]>;
  /** The CN of the client certificate presented, if any. */
  clientCN?: string;
  /** Whether that certificate verified against `clientCa`. */
  clientAuthorized: boolean;
  /** The client's port: the same for requests that came over one kept connection. */
  remotePort?: number;
}

export interface UpstreamAPIServer {
  /** `https://127.0.0.1:<port>`: what an endpoints-file entry points at. */
  url: string;
  ca: CertificateAuthority;
  /** The CA as an APIService's caBundle (base64 PEM). */
  caBundle: string;
  mode: UpstreamMode;
  /** Paths requested, in order. */
  requests: string[];
  /** Every request with its headers and client certificate, in order. */
  received: ReceivedRequest[];
  /** Paths of requests whose connection closed before their answer had ended (the client, or a proxy, gave up). */
  closed: string[];
  flunders: FlunderStore;
  /** Lets the answers held by 'held-mid-stream' finish. */
  release(): void;
  /**
   * Resolves at the next request received (before it is answered), for `path` when given: the front's own periodic
   * discovery fetches arrive too.
   */
  nextRequest(path?: string): Promise<string>;
  /** Resolves when the next request's (for `path` when given) connection closes before its answer ended. */
  nextClosed(path?: string): Promise<string>;
  close(): Promise<void>;
}

function record(req: IncomingMessage): ReceivedRequest {
  const socket = req.socket as TLSSocket;
  const peer = socket.getPeerCertificate?.();
  const cn = peer && 'subject' in peer && peer.subject ? peer.subject.CN : undefined;
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: { ...req.headersDistinct } as Record<string, string[]>,
    clientCN: Array.isArray(cn) ? cn[0] : cn,
    clientAuthorized: socket.authorized === true,
    remotePort: socket.remotePort,
  };
}

export async function startUpstreamAPIServer(opts: {
  group: string;
  version: string;
  service: { namespace: string; name: string };
  /** PEM of the CA client certificates are verified against (they are asked for either way, required if below). */
  clientCa?: string;
  /** Refuses, in the TLS handshake, a client without a certificate `clientCa` verifies. */
  requireClientCert?: boolean;
  /** Answers a request itself, in mode 'ok', when it returns true (test/helpers/upstream-aggregated.ts). */
  handle?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<UpstreamAPIServer> {
  const ca = await makeCA(`upstream-${opts.service.name}-ca`);
  const serving = await issueServerCert(ca, {
    dns: [`${opts.service.name}.${opts.service.namespace}.svc`],
    ips: ['127.0.0.1'],
  });
  const hanging = new Set<ServerResponse>();
  const held: (() => void)[] = [];
  const upgraded = new Set<Duplex>();
  type Waiter = { path?: string; resolve: (path: string) => void };
  let waiters: Waiter[] = [];
  let closeWaiters: Waiter[] = [];
  /** Resolves the waiters `path` satisfies and returns the others. */
  const settle = (pending: Waiter[], path: string): Waiter[] =>
    pending.filter((w) => {
      if (w.path !== undefined && w.path !== path) return true;
      w.resolve(path);
      return false;
    });
  const groupVersion = `${opts.group}/${opts.version}`;
  const discovery = `/apis/${groupVersion}`;
  const upstream: UpstreamAPIServer = {
    url: '',
    ca,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    mode: 'ok',
    requests: [],
    received: [],
    closed: [],
    flunders: new FlunderStore(groupVersion),
    release: () => {
      for (const finish of held.splice(0)) finish();
    },
    nextRequest: (path) => new Promise((resolve) => waiters.push({ path, resolve })),
    nextClosed: (path) => new Promise((resolve) => closeWaiters.push({ path, resolve })),
    close: async () => {},
  };
  const noteClosed = (path: string): void => {
    upstream.closed.push(path);
    closeWaiters = settle(closeWaiters, path);
  };
  const arrived = (req: IncomingMessage): string => {
    const path = req.url ?? '';
    upstream.requests.push(path);
    upstream.received.push(record(req));
    waiters = settle(waiters, path);
    return path;
  };
  const server = https.createServer(
    {
      cert: serving.certPem,
      key: serving.keyPem,
      requestCert: true,
      rejectUnauthorized: opts.requireClientCert === true,
      ca: opts.clientCa,
    },
    (req, res) => {
      const path = arrived(req);
      res.on('close', () => {
        if (!res.writableFinished) noteClosed(path);
      });
      switch (upstream.mode) {
        case 'hang':
          hanging.add(res);
          return;
        case '500':
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"kind":"Status","status":"Failure","code":500}');
          return;
        case 'garbage':
          // Bytes straight onto the TLS stream, outside any HTTP framing.
          req.socket.end('\u0000\u0001not an HTTP response at all\r\n\r\n');
          return;
        case 'close-mid-stream':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"kind":"FlunderList","items":[');
          // Written, then the connection cut: the client has headers and a body that never ends properly.
          setImmediate(() => req.socket.destroy());
          return;
        case 'held-mid-stream':
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"kind":"FlunderList","items":[');
          held.push(() => res.end('{"metadata":{"name":"late"}}]}'));
          return;
        case 'ok':
          break;
      }
      if (opts.handle?.(req, res)) return;
      const url = new URL(path, 'https://upstream');
      if (url.pathname === discovery && req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            kind: 'APIResourceList',
            apiVersion: 'v1',
            groupVersion,
            resources: [
              {
                name: 'flunders',
                singularName: 'flunder',
                namespaced: true,
                kind: 'Flunder',
                verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
              },
            ],
          }),
        );
        return;
      }
      if (!url.pathname.startsWith(`${discovery}/`)) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"kind":"Status","status":"Failure","code":404}');
        return;
      }
      const rest = url.pathname.slice(discovery.length + 1).split('/');
      upstream.flunders.serve(req, res, rest, url.searchParams).catch((e: Error) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 400, message: e.message }));
      });
    },
  );
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    const path = arrived(req);
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    socket.on('error', () => socket.destroy());
    if (upstream.mode === 'hang') {
      // No answer at all; its connection closing is what the test waits for.
      socket.once('close', () => noteClosed(path));
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: ${req.headers.upgrade}\r\nConnection: Upgrade\r\n\r\n`);
    // An echo: what the client sends after the switch comes back, proving bytes flow both ways.
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  upstream.close = async () => {
    for (const res of hanging) res.destroy();
    upstream.release();
    for (const socket of upgraded) socket.destroy();
    upstream.flunders.closeWatches();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return upstream;
}
