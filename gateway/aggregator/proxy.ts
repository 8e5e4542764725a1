// Proxying of the group-versions remote APIServices own, as kube-aggregator's proxy handler does: after this
// server's authentication, impersonation and authorization, the request goes through http-proxy to the service the
// resolver names, with its body, Accept and Content-Type untouched and its answer streamed back as it arrives
// (watches, chunked lists), the identity in request-header form over --proxy-client-cert-file's certificate. Upgrade
// requests (SPDY, websocket) are handed over with their socket, as upstream's UpgradeAwareHandler does.
//
// Failures answer as upstream's: 503 "service unavailable" while the APIService is not Available or its service has
// no address, 503 with the cause when the upstream cannot be reached; a hanging upstream is cut by the timeout filter
// (504), which ends the response and with it the upstream request.
import type { Context } from 'koa';
import type { ClientRequest, IncomingMessage } from 'node:http';
import https from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import httpProxy from 'http-proxy';
import { errors } from '../../api/meta/errors.js';
import type { RequestHeaderConfig } from '../authn/request-header.js';
import type { AggregatorMetrics } from '../metrics/aggregator-metrics.js';
import { markAnsweredByAggregator } from '../metrics/answered-by.js';
import type { RequestInfo } from '../request/request-info.js';
import { userOf } from '../request/user.js';
import type { Clock } from '../server/clock.js';
import type { Logger } from '../server/logger.js';
import { upgradeOf } from '../server/upgrade.js';
import type { RemoteAPIService, RemoteAPIServices } from './remote-apiservices.js';
import type { ServiceResolver } from './service-resolver.js';
import { identityHeaderNames, stripHopByHop, upstreamRequestHeaders } from './proxy-headers.js';
import {
  upstreamTlsOptions,
  type ClientCertificate,
  type ClientCertificateSource,
  type UpstreamTlsOptions,
} from './upstream-tls.js';
import type { KObject } from '../../api/meta/types.js';

export interface AggregatorProxyDeps {
  remotes: RemoteAPIServices;
  resolver: ServiceResolver;
  /** --proxy-client-cert-file / --proxy-client-key-file; without them the upstream sees no client certificate. */
  clientCert?: ClientCertificateSource;
  /** --requestheader-* names, stripped from what clients send as the standard X-Remote-* ones are. */
  requestHeader?: Omit<RequestHeaderConfig, 'allowedNames'>;
  metrics?: AggregatorMetrics;
  clock: Clock;
  logger: Logger;
}

export interface AggregatorProxy {
  /** The remote APIService that answers this request, or undefined when this server does. */
  owner(info: RequestInfo): RemoteAPIService | undefined;
  /** Whether a remote APIService owns the group-version (request metrics name its resources then). */
  owns(group: string, version: string): boolean;
  /** Proxies the request; resolves once its answer has ended. */
  serve(ctx: Context, remote: RemoteAPIService): Promise<void>;
  /** Closes the connections kept open to upstreams. */
  close(): void;
}

const SERVICE_UNAVAILABLE = 'service unavailable';

/** What one ordinary request wants to hear of the shared proxy server's events. */
interface WebRequestHandlers {
  proxyReq(proxyReq: ClientRequest): void;
  proxyRes(proxyRes: IncomingMessage): void;
}

const isUpgradeRequest = (req: IncomingMessage): boolean =>
  typeof req.headers.upgrade === 'string' && /(^|,)\s*upgrade\s*(,|$)/i.test(String(req.headers.connection ?? ''));

export function createAggregatorProxy(deps: AggregatorProxyDeps): AggregatorProxy {
  const identity = identityHeaderNames(deps.requestHeader);
  // Connections to upstreams are kept and reused, as Go's transport under upstream's proxy keeps them: without an
  // agent http-proxy opens a TLS connection per request. The pool is keyed by the TLS options too (CA, client
  // certificate, server name), so two APIServices, or one whose caBundle changed, never share a connection. No
  // Nagle delay: a watch event is a small write that must not wait for the previous one's acknowledgement.
  const agent = new https.Agent({ keepAlive: true, noDelay: true });
  // One proxy server for every ordinary request: its events name the request, which finds its own handlers here.
  // (Upgrades get a server each: http-proxy's `open` event does not say which request it is about.)
  const webProxy = httpProxy.createProxyServer({});
  const inFlight = new WeakMap<IncomingMessage, WebRequestHandlers>();
  webProxy.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) => inFlight.get(req)?.proxyReq(proxyReq));
  webProxy.on('proxyRes', (proxyRes: IncomingMessage, req: IncomingMessage) => inFlight.get(req)?.proxyRes(proxyRes));
  /** The upstream's address and TLS settings, made once per APIService revision, resolved address and client pair. */
  const targets = new WeakMap<
    KObject,
    {
      href: string;
      pair?: ClientCertificate;
      target: httpProxy.ProxyTarget;
      tls: UpstreamTlsOptions;
      secureContext: SecureContext;
    }
  >();

  function optionsFor(remote: RemoteAPIService, base: URL, upgrading: boolean): httpProxy.ServerOptions {
    let cached = targets.get(remote.object);
    // A reloaded pair is a new object: the agent keys its pool by the certificate too, so the next request opens a
    // connection that presents it, while the old pair's idle connections are left to close.
    const pair = deps.clientCert?.current();
    if (cached?.href !== base.href || cached.pair !== pair) {
      const tls = upstreamTlsOptions(remote.object, remote.service, pair);
      cached = {
        href: base.href,
        pair,
        tls,
        // Made once here: given only the PEM strings, every new connection to the upstream (each watch opens one)
        // would parse the CA bundle, the client certificate and its key again. The target keeps them too, because
        // the agent pools connections by them.
        secureContext: createSecureContext({ ca: tls.ca, cert: tls.cert, key: tls.key }),
        // http-proxy's typings leave out `path`, which it prepends to the request's path (an endpoints-file prefix).
        target: {
          protocol: 'https:',
          host: base.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: base.port === '' ? 443 : Number(base.port),
          path: base.pathname.replace(/\/+$/, ''),
          ca: tls.ca?.toString('utf8'),
          cert: tls.cert,
          key: tls.key,
        } as unknown as httpProxy.ProxyTarget,
      };
      targets.set(remote.object, cached);
    }
    return {
      target: cached.target,
      // Options http-proxy does not copy from the target; a fresh object, since it writes the request options into it.
      ssl: {
        servername: cached.tls.servername,
        checkServerIdentity: cached.tls.checkServerIdentity,
        secureContext: cached.secureContext,
      },
      secure: cached.tls.rejectUnauthorized,
      // The upstream sees its own host, as upstream's proxy sets the location's host.
      changeOrigin: true,
      xfwd: false,
      // An upgraded connection belongs to its request alone.
      agent: upgrading ? undefined : agent,
    };
  }

  function owner(info: RequestInfo): RemoteAPIService | undefined {
    // `/apis/<group>/<version>` and everything under it; the group list and `/apis/<group>` are discovery's.
    if (info.apiPrefix !== 'apis' || info.apiGroup === '' || info.apiVersion === '') return undefined;
    return deps.remotes.lookup(info.apiGroup, info.apiVersion);
  }

  function serve(ctx: Context, remote: RemoteAPIService): Promise<void> {
    // An answer made here rather than by the upstream: the request metrics count it under the aggregator.
    const ownAnswer = (message: string) => {
      markAnsweredByAggregator(ctx);
      return errors.serviceUnavailable(message);
    };
    if (!remote.available) throw ownAnswer(SERVICE_UNAVAILABLE);
    const base = deps.resolver.resolve(remote.service);
    if (!base) throw ownAnswer(SERVICE_UNAVAILABLE);
    const req = ctx.req;
    const upgrade = upgradeOf(req);
    const upgrading = upgrade !== undefined && isUpgradeRequest(req);
    const headers = upstreamRequestHeaders(req, userOf(ctx), identity, upgrading, req.socket.remoteAddress);
    // http-proxy copies req.headers into the upstream request: from here on they are the forwarded set. An own
    // property, because the request's header map itself still holds what Node reads url and method from (HTTP/2).
    Object.defineProperty(req, 'headers', { value: headers, configurable: true, writable: true });
    const options = optionsFor(remote, base, upgrading);
    const started = deps.clock.monotonic();
    let observed = false;
    // Once per request: a failure after the headers came is not a second answer.
    const observe = (): void => {
      if (observed) return;
      observed = true;
      deps.metrics?.proxied(remote.name, (deps.clock.monotonic() - started) / 1000);
    };
    const unreachable = (err: Error) => {
      deps.logger.error({ err, apiService: remote.name }, 'Error while proxying request');
      return ownAnswer(err.message);
    };

    if (upgrading) {
      // http-proxy's first ws pass turns away all but a websocket GET; upstream's UpgradeAwareHandler passes any
      // upgrade, and kubectl's SPDY exec and port-forward are POSTs.
      const proxy = httpProxy.createProxyServer(options);
      const passes = proxy as unknown as { wsPasses: { name: string }[] };
      passes.wsPasses = passes.wsPasses.filter((pass) => pass.name !== 'checkMethodAndHeader');
      return new Promise<void>((resolve) => {
        let proxyReq: ClientRequest | undefined;
        let handedOver = false;
        // The upstream answered (101, or a refusal http-proxy relays as it is): the socket is its from now on, and
        // nothing here may answer through Koa any more. Until then a timeout or a failure still answers here.
        const handOver = (): void => {
          if (handedOver) return;
          handedOver = true;
          observe();
          ctx.respond = false;
          upgrade.takeOver();
        };
        proxy.on('proxyReqWs', (r: ClientRequest) => {
          proxyReq = r;
          r.once('response', handOver);
          r.once('upgrade', handOver);
        });
        proxy.once('open', () => resolve());
        // The client gone, or the timeout's 504 sent: the upstream request has nobody left to answer.
        upgrade.socket.once('close', () => {
          proxyReq?.destroy();
          resolve();
        });
        proxy.ws(req, upgrade.socket, upgrade.head, {}, (err) => {
          const res = ctx.res;
          if (handedOver || res.headersSent) {
            upgrade.socket.destroy();
          } else {
            // Written here and now: http-proxy ends the socket as soon as this returns, before Koa could answer.
            observe();
            ctx.respond = false;
            const status = unreachable(err);
            const body = Buffer.from(JSON.stringify(status.toStatus()));
            res.writeHead(status.code, { 'content-type': 'application/json', 'content-length': body.length });
            res.end(body);
          }
          resolve();
        });
      });
    }

    return new Promise<void>((resolve, reject) => {
      let proxyReq: ClientRequest | undefined;
      let ended = false;
      inFlight.set(req, {
        proxyReq: (r) => {
          proxyReq = r;
        },
        proxyRes: (proxyRes) => answered(proxyRes),
      });
      const answered = (proxyRes: IncomingMessage): void => {
        observe();
        stripHopByHop(proxyRes.headers);
        // HTTP/2 has no reason phrase, and Node warns at every attempt to set one.
        proxyRes.statusMessage = '';
        // The answer is the upstream's, written by http-proxy as it arrives; Koa must not add one of its own.
        ctx.respond = false;
        // An upstream cut off mid-answer: http-proxy's pipe would leave the client waiting for the rest forever.
        // Its stream is cut too, so that it sees the answer fail rather than end as if complete.
        proxyRes.once('close', () => {
          if (!proxyRes.complete) ctx.res.destroy();
        });
        // A streamed answer (a watch, no length) goes out with its headers now rather than with its first chunk, which
        // for a quiet watch may be minutes away and which clients wait for before they call the watch open. The
        // microtask runs once http-proxy has copied the status and headers, in the same turn.
        if (proxyRes.headers['content-length'] === undefined)
          queueMicrotask(() => {
            if (!ctx.res.headersSent && !ctx.res.writableEnded) ctx.res.flushHeaders();
          });
      };
      // Ended (answered, cut by the timeout filter's 504, or the client gone): the upstream request has no reader.
      ctx.res.once('close', () => {
        ended = true;
        proxyReq?.destroy();
        resolve();
      });
      webProxy.web(req, ctx.res, options, (err) => {
        // The upstream request this server cut itself, once nobody was left to read its answer.
        if (ended) return;
        observe();
        // Cut mid-answer, the status filter ends the client's stream before its time, as upstream's would.
        reject(unreachable(err));
      });
    });
  }

  return {
    owner,
    owns: (group, version) => deps.remotes.lookup(group, version) !== undefined,
    serve,
    close: () => {
      webProxy.close();
      agent.destroy();
    },
  };
}
