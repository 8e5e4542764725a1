// How Gatehouse reads from the server behind a remote APIService (the availability check, merged discovery and
// OpenAPI): HTTPS to the address the resolver gives, with the TLS rules of upstream-tls.ts that the proxy shares, and
// one GET bounded by the server's clock.
import https from 'node:https';
import type { KObject } from '../../api/meta/types.js';
import { serviceOf, type ServiceReference } from '../../api/apiregistration/v1/api-service.js';
import type { Clock } from '../server/clock.js';
import type { ServiceResolver } from './service-resolver.js';
import { upstreamTlsOptions, type ClientCertificateSource } from './upstream-tls.js';

export interface UpstreamTarget {
  service: ServiceReference;
  /** The base URL the resolver gave. */
  base: URL;
  tls: https.RequestOptions;
}

/**
 * Where and how to reach a remote APIService's server: undefined for a Local one, 'unresolved' when the resolver has
 * no address for its Service.
 */
export function upstreamTarget(
  apiService: KObject,
  resolver: ServiceResolver,
  clientCert?: ClientCertificateSource,
): UpstreamTarget | 'unresolved' | undefined {
  const service = serviceOf(apiService);
  if (!service) return undefined;
  const base = resolver.resolve(service);
  if (!base) return 'unresolved';
  return { service, base, tls: upstreamTlsOptions(apiService, service, clientCert?.current()) };
}

/** `path` (with its query) under the target's base URL, whose own path is kept as a prefix. */
export function upstreamUrl(base: URL, path: string): URL {
  const [pathname, query] = path.split('?', 2);
  const url = new URL(base.href);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${pathname}`;
  if (query !== undefined) url.search = `?${query}`;
  return url;
}

/** Failures that mean the name has no address (no such Service, in upstream's terms), not that its server failed. */
const UNRESOLVED = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NODATA', 'EAI_NONAME']);

export interface GetDeps {
  clock: Clock;
  timeoutMs: number;
  /** Aborts the request (its owner stopping): it then resolves as failed. */
  signal?: AbortSignal;
}

export interface UpstreamResponse {
  kind: 'response';
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Empty when the body was not asked for. */
  body: Buffer;
}

/** How one GET went: an answer (any status), or the problem in Go's client error shape. */
export type GetOutcome =
  UpstreamResponse | { kind: 'timeout' } | { kind: 'unresolved' } | { kind: 'failed'; problem: string };

/**
 * kube-aggregator's own identity on its discovery, availability and OpenAPI GETs: the front-proxy certificate makes
 * the upstream believe these headers, and system:masters keeps an upstream that delegates authorization (a second
 * Gatehouse with a Webhook authorizer) from refusing the checks that decide whether it is reachable at all.
 */
export const AGGREGATOR_IDENTITY: Readonly<Record<string, string>> = {
  'x-remote-user': 'system:kube-aggregator',
  'x-remote-group': 'system:masters',
};

/** Bodies bigger than this are refused: discovery and OpenAPI documents are far smaller, and memory is not free. */
const MAX_BODY_BYTES = 64 << 20;

export function upstreamGet(
  url: URL,
  target: UpstreamTarget,
  asked: Record<string, string>,
  deps: GetDeps & { readBody: boolean },
): Promise<GetOutcome> {
  const headers = { ...asked, ...AGGREGATOR_IDENTITY };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: GetOutcome): void => {
      if (settled) return;
      settled = true;
      cancelTimer();
      deps.signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const req = https.request(url, { ...target.tls, headers, method: 'GET', agent: false }, (res) => {
      const answer = { kind: 'response' as const, status: res.statusCode ?? 0, headers: res.headers };
      if (!deps.readBody) {
        // A server still sending the body must not hold a caller that only wants the status.
        res.destroy();
        finish({ ...answer, body: Buffer.alloc(0) });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          res.destroy();
          finish({ kind: 'failed', problem: `Get "${url.href}": response body larger than ${MAX_BODY_BYTES} bytes` });
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => finish({ ...answer, body: Buffer.concat(chunks) }));
      res.on('error', (e) => finish({ kind: 'failed', problem: `Get "${url.href}": ${e.message}` }));
    });
    const onAbort = (): void => void req.destroy(new Error('request stopped'));
    deps.signal?.addEventListener('abort', onAbort, { once: true });
    const cancelTimer = deps.clock.setTimeout(() => {
      req.destroy();
      finish({ kind: 'timeout' });
    }, deps.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== undefined && UNRESOLVED.has(e.code)) return finish({ kind: 'unresolved' });
      // Go's client error shape: `Get "<url>": <cause>`.
      finish({ kind: 'failed', problem: `Get "${url.href}": ${e.message}` });
    });
    req.end();
  });
}
