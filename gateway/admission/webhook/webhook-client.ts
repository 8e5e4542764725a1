// The HTTPS calls to admission webhooks, and to CustomResourceDefinitions' conversion webhooks. Each webhook keeps its
// own keep-alive pool (a TLS handshake per write would double a webhook's latency), made again when its clientConfig
// changes. timeoutSeconds bounds the whole call, connecting included, and the answer is read up to a size bound:
// nothing a webhook does (hang, flood, close mid-body, garbage) can hold the request or the heap. Failures carry Go's
// wording, `Post "<url>": <why>`, as kube-apiserver's messages quote its HTTP client.
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Clock } from '../../server/clock.js';
import type { ServiceResolver } from '../../aggregator/service-resolver.js';
import { serviceTlsOptions } from '../../aggregator/upstream-tls.js';
import type { CompiledWebhook } from './webhook-config.js';

/** What a call needs of a webhook: admission webhooks and CustomResourceDefinitions' conversion webhooks alike. */
export type WebhookEndpoint = Pick<CompiledWebhook, 'key' | 'clientConfig' | 'clientConfigText' | 'timeoutSeconds'>;

/**
 * The largest answer read. Twice the request body limit, so that a patch replacing a maximum-size object still fits
 * with base64's third on top; upstream reads any size, which one bad webhook could turn into an out-of-memory.
 */
export const MAX_WEBHOOK_RESPONSE_BYTES = 6 * 1024 * 1024;

/** A call that did not produce an answer (upstream's ErrCallingWebhook); `code` is what the metrics record. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
    this.name = 'WebhookCallError';
  }
}

export interface WebhookClient {
  /** POSTs the body; resolves with the parsed JSON answer of a 2xx, throws a WebhookCallError otherwise. */
  post(hook: WebhookEndpoint, body: string): Promise<unknown>;
  /** Drops the pools of webhooks no longer in force. */
  retain(keys: ReadonlySet<string>): void;
  close(): void;
}

interface Pool {
  clientConfigText: string;
  agent: https.Agent;
}

export interface WebhookClientOptions {
  /** Reaches webhooks named by a service (the aggregator's resolver: cluster DNS or --aggregator-endpoints-file). */
  resolver: () => ServiceResolver | undefined;
  clock: Clock;
  maxResponseBytes?: number;
}

const SERVICE_UNAVAILABLE = 503;

/** Node's socket errors in the words of Go's net package, which upstream's messages carry. */
function transportReason(e: NodeJS.ErrnoException & { address?: string; port?: number }): string {
  if (e.code === 'ECONNREFUSED') return `dial tcp ${e.address}:${e.port}: connect: connection refused`;
  if (e.code === 'ECONNRESET' || e.code === 'EPIPE') return 'EOF';
  if (e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' || e.code === 'SELF_SIGNED_CERT_IN_CHAIN')
    return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
  if (e.code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `tls: failed to verify certificate: x509: ${e.message}`;
  return e.message;
}

/** client-go's words for an error answer that is not a Status (newUnstructuredResponseError). */
function httpErrorReason(code: number, body: string): string {
  try {
    const status = JSON.parse(body) as { kind?: unknown; message?: unknown };
    if (status.kind === 'Status' && typeof status.message === 'string' && status.message !== '') return status.message;
  } catch {
    // not a Status: the generic wording below
  }
  const snippet = body.length > 1024 ? `${body.slice(0, 1024)}...` : body;
  if (code === 503) return 'the server is currently unable to handle the request';
  if (code === 404) return 'the server could not find the requested resource';
  if (code === 401) return 'Unauthorized';
  if (code >= 500)
    return `an error on the server (${JSON.stringify(snippet)}) has prevented the request from succeeding`;
  return `the server rejected our request for an unknown reason (${JSON.stringify(snippet)})`;
}

export function createWebhookClient(opts: WebhookClientOptions): WebhookClient {
  const pools = new Map<string, Pool>();
  const limit = opts.maxResponseBytes ?? MAX_WEBHOOK_RESPONSE_BYTES;

  function poolOf(hook: WebhookEndpoint): https.Agent {
    const known = pools.get(hook.key);
    if (known?.clientConfigText === hook.clientConfigText) return known.agent;
    known?.agent.destroy();
    const { service, caBundle } = hook.clientConfig;
    const tls = service ? serviceTlsOptions(caBundle, service) : { ca: caBundle };
    const agent = new https.Agent({ keepAlive: true, maxSockets: 64, ...tls });
    pools.set(hook.key, { clientConfigText: hook.clientConfigText, agent });
    return agent;
  }

  function urlOf(hook: WebhookEndpoint): URL {
    const { url, service } = hook.clientConfig;
    let target: URL;
    if (url !== undefined) target = new URL(url);
    else if (service) {
      const base = opts.resolver()?.resolve({ namespace: service.namespace, name: service.name, port: service.port });
      if (!base)
        throw new WebhookCallError(
          `service "${service.namespace}/${service.name}" port ${service.port} has no address`,
          SERVICE_UNAVAILABLE,
        );
      target = new URL(base);
      target.pathname = `${target.pathname.replace(/\/$/, '')}${service.path}`;
    } else throw new WebhookCallError('webhook has no clientConfig url or service', SERVICE_UNAVAILABLE);
    // Upstream tells the webhook how long it has, in whole seconds.
    target.searchParams.set('timeout', `${hook.timeoutSeconds}s`);
    return target;
  }

  function post(hook: WebhookEndpoint, body: string): Promise<unknown> {
    let target: URL;
    try {
      target = urlOf(hook);
    } catch (e) {
      return Promise.reject(e instanceof WebhookCallError ? e : new WebhookCallError((e as Error).message, 503));
    }
    const described = `Post "${target.href}"`;
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      const finish = (error: WebhookCallError | undefined, value?: unknown) => {
        if (settled) return;
        settled = true;
        cancelTimer();
        if (error) {
          req.destroy();
          reject(error);
        } else resolve(value);
      };
      // Transport failures name the request, as Go's url.Error does; a decoded answer's problems do not.
      const fail = (why: string, code = SERVICE_UNAVAILABLE) =>
        finish(new WebhookCallError(`${described}: ${why}`, code));
      const refuse = (why: string, code = SERVICE_UNAVAILABLE) => finish(new WebhookCallError(why, code));
      const req = https.request(target, {
        method: 'POST',
        agent: poolOf(hook),
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, */*',
          'content-length': Buffer.byteLength(body),
        },
      });
      const cancelTimer = opts.clock.setTimeout(() => fail('context deadline exceeded'), hook.timeoutSeconds * 1000);
      req.on('error', (e) => fail(transportReason(e)));
      req.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) return refuse(`response body larger than ${limit} bytes`);
          chunks.push(chunk);
        });
        res.on('error', (e) => fail(transportReason(e)));
        res.on('aborted', () => fail('unexpected EOF'));
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) return refuse(httpErrorReason(code, text), code);
          try {
            finish(undefined, JSON.parse(text));
          } catch (e) {
            refuse(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
          }
        });
      });
      req.end(body);
    });
  }

  return {
    post,
    retain(keys) {
      for (const [key, pool] of pools)
        if (!keys.has(key)) {
          pool.agent.destroy();
          pools.delete(key);
        }
    },
    close() {
      for (const pool of pools.values()) pool.agent.destroy();
      pools.clear();
    },
  };
}
