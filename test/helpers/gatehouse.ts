// Starts a throwaway Gatehouse in-process for integration and end-to-end tests: a fresh temp data dir, a free port,
// and an HTTPS client that trusts the generated CA and sends the admin token unless told otherwise.
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startGatehouse, type RunningGatehouse } from '../../gateway/main.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Clock } from '../../gateway/server/clock.js';
import type { AdmissionPlugin } from '../../gateway/admission/plugin.js';

export interface GatehouseResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The body's bytes (binary media types such as protobuf). */
  raw: Buffer;
  json(): any;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Send no Authorization header (anonymous), or a different bearer token. */
  token?: string | null;
  /** Destroys the request and rejects after this long (default: none), so a hanging server fails a test fast. */
  timeoutMs?: number;
  /** A client certificate (PEM) to present, on a fresh connection. */
  clientCert?: { cert: string; key: string };
}

export interface TestGatehouse {
  url: string;
  ca: string;
  adminToken: string;
  kubeconfigPath: string;
  dataDir: string;
  running: RunningGatehouse;
  /** Lines the server logged (diagnostics and banner). */
  logs: string[];
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<GatehouseResponse>;
  close(): Promise<void>;
}

export function httpsRequest(
  url: string,
  ca: string,
  method: string,
  urlPath: string,
  opts: RequestOptions & { defaultToken?: string } = {},
): Promise<GatehouseResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  const token = opts.token === undefined ? opts.defaultToken : opts.token;
  if (token && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization'))
    headers.authorization = `Bearer ${token}`;
  let payload: Buffer | undefined;
  if (opts.body !== undefined) {
    payload = Buffer.isBuffer(opts.body)
      ? opts.body
      : Buffer.from(typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body));
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
    // Node frames a DELETE body only with an explicit length.
    headers['content-length'] = String(payload.length);
  }
  const tls = opts.clientCert ? { ...opts.clientCert, agent: false as const } : {};
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(urlPath, url), { method, headers, ca, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        const raw = Buffer.concat(chunks);
        const body = raw.toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, raw, json: () => JSON.parse(body) });
      });
      res.on('error', reject);
    });
    const timer =
      opts.timeoutMs === undefined
        ? undefined
        : setTimeout(
            () => req.destroy(new Error(`${method} ${urlPath}: no response within ${opts.timeoutMs} ms`)),
            opts.timeoutMs,
          );
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(payload);
  });
}

/**
 * The per-namespace controllers (a `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap in every
 * namespace) are off unless a test names --controllers itself, so the namespaces a test creates hold only what it
 * puts there: lists, watches and quota counts stay the test's own.
 */
export function withTestControllers(args: readonly string[]): string[] {
  return args.some((a) => a.startsWith('--controllers'))
    ? [...args]
    : ['--controllers=*,-serviceaccount,-root-ca-cert-publisher', ...args];
}

/**
 * `dataDir` reuses a directory (restart tests); it is then left in place on close. `kinds` replaces the built-in
 * kinds served. `clock` replaces the real one (history window, watch timeouts): test/helpers/manual-clock.ts.
 * `admissionPlugins` join the server's admission list where mutating webhooks go.
 */
export async function startTestGatehouse(
  extraArgs: string[] = [],
  opts: { dataDir?: string; kinds?: KindDefinition[]; clock?: Clock; admissionPlugins?: AdmissionPlugin[] } = {},
): Promise<TestGatehouse> {
  const owned = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'gatehouse-test-')));
  const logs: string[] = [];
  let running: RunningGatehouse;
  try {
    running = await startGatehouse(
      ['--data-dir', dataDir, '--secure-port', '0', '--bind-address', '127.0.0.1', ...withTestControllers(extraArgs)],
      {
        log: (l) => logs.push(l),
        out: (l) => logs.push(l),
        kinds: opts.kinds,
        clock: opts.clock,
        admissionPlugins: opts.admissionPlugins,
      },
    );
  } catch (e) {
    if (owned) await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: running.url,
    ca: running.caPem,
    adminToken: running.adminToken,
    kubeconfigPath: running.adminKubeconfigPath,
    dataDir,
    running,
    logs,
    request: (method, urlPath, reqOpts = {}) =>
      httpsRequest(running.url, running.caPem, method, urlPath, { ...reqOpts, defaultToken: running.adminToken }),
    async close() {
      await running.close();
      if (owned) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
