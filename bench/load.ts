// The load generator: N concurrent clients, each issuing one request after another over its own keep-alive
// connection, bounded by a request count and a deadline (whichever comes first). Every request's latency is kept, so
// percentiles are exact rather than bucketed. The bare-server baselines and the gateway are measured by exactly the
// same code: runLoad on raw-client.ts for throughput, `send` (node:http/https) for single requests such as lists.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { cpuSeconds } from './processes.js';
import { RawConnection } from './raw-client.js';

export interface Target {
  /** Base URL, e.g. https://127.0.0.1:6443 (loopback only). */
  url: string;
  ca?: string;
  token?: string;
}

export interface RequestSpec {
  method: string;
  path: string;
  body?: string;
}

export interface LoadOptions {
  concurrency: number;
  maxRequests: number;
  maxMs: number;
  /** The i-th request (0-based, distinct across clients). */
  request(i: number): RequestSpec;
  /** Statuses that count as success (default 200). */
  expect?: number[];
  /** Per-request timeout (default 10 s): a stuck request is an error, never a hang. */
  timeoutMs?: number;
}

export interface LoadResult {
  ok: number;
  errors: number;
  /** The first few distinct failures, to print next to the figure. */
  errorSamples: string[];
  elapsedMs: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** The client process's CPU use over the run, in percent of one core (to tell a client-bound figure). */
  clientCpu: number;
}

export interface SingleResponse {
  status: number;
  body: string;
  /** Time from sending until the last byte arrived. */
  ms: number;
  /** performance.now() when the response was complete. */
  at: number;
}

export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === '[::1]' || host === 'localhost';
}

export function createAgent(target: Target, maxSockets: number): http.Agent {
  if (!isLoopback(target.url)) throw new Error(`refusing a non-loopback target: ${target.url}`);
  return target.url.startsWith('https:')
    ? new https.Agent({ keepAlive: true, maxSockets, ca: target.ca })
    : new http.Agent({ keepAlive: true, maxSockets });
}

function headersFor(target: Target, spec: RequestSpec): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  if (spec.body !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(spec.body));
  }
  return headers;
}

/**
 * One request. `keepBody` false drains the body without keeping it (the common case under load) unless the status is
 * unexpected, when the body is kept for the error sample.
 */
export function send(
  target: Target,
  agent: http.Agent,
  spec: RequestSpec,
  opts: { keepBody?: boolean; expect?: number[]; timeoutMs?: number } = {},
): Promise<SingleResponse> {
  const mod = target.url.startsWith('https:') ? https : http;
  const expect = opts.expect ?? [200];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = mod.request(
      new URL(spec.path, target.url),
      { method: spec.method, agent, headers: headersFor(target, spec) },
      (res) => {
        const status = res.statusCode ?? 0;
        const keep = opts.keepBody || !expect.includes(status);
        const chunks: Buffer[] = [];
        if (keep) res.on('data', (c: Buffer) => chunks.push(c));
        else res.resume();
        res.on('end', () => {
          const at = performance.now();
          resolve({ status, body: keep ? Buffer.concat(chunks).toString('utf8') : '', ms: at - started, at });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(opts.timeoutMs ?? 10_000, () =>
      req.destroy(new Error(`no response within ${opts.timeoutMs ?? 10_000} ms`)),
    );
    req.on('error', reject);
    req.end(spec.body);
  });
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function describeFailure(status: number, body: string): string {
  let reason = body.slice(0, 160);
  try {
    const parsed = JSON.parse(body) as { message?: string };
    if (parsed.message) reason = parsed.message.slice(0, 160);
  } catch {
    // Not JSON: the raw text is the best description there is.
  }
  return `HTTP ${status}: ${reason}`;
}

export interface OpsOptions {
  concurrency: number;
  maxOps: number;
  maxMs: number;
  /** The i-th operation (0-based, distinct across clients); a rejection counts as an error. */
  op(i: number): Promise<void>;
}

/** The core of every throughput figure: `concurrency` clients, each running operations back to back. */
export async function runOps(opts: OpsOptions): Promise<LoadResult> {
  const latencies = new Float64Array(opts.maxOps);
  let next = 0;
  let ok = 0;
  let errors = 0;
  const errorSamples: string[] = [];
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + opts.maxMs;
  const client = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const i = next++;
      if (i >= opts.maxOps) return;
      const t0 = performance.now();
      try {
        await opts.op(i);
        latencies[ok++] = performance.now() - t0;
      } catch (e) {
        errors++;
        const message = (e as Error).message;
        if (errorSamples.length < 3 && !errorSamples.includes(message)) errorSamples.push(message);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = latencies.subarray(0, ok).sort();
  return {
    ok,
    errors,
    errorSamples,
    elapsedMs,
    perSecond: (ok / elapsedMs) * 1000,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    clientCpu: ((cpu.user + cpu.system) / 1000 / elapsedMs) * 100,
  };
}

/** HTTP load: each client keeps one keep-alive connection (raw-client.ts); a status outside `expect` is an error. */
export async function runLoad(target: Target, opts: LoadOptions): Promise<LoadResult> {
  if (!isLoopback(target.url)) throw new Error(`refusing a non-loopback target: ${target.url}`);
  const expect = opts.expect ?? [200];
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const connections = Array.from({ length: opts.concurrency }, () => new RawConnection(target));
  // Requests are handed out in order, so the client that takes request i uses a connection no other client holds.
  const idle = [...connections];
  try {
    return await runOps({
      concurrency: opts.concurrency,
      maxOps: opts.maxRequests,
      maxMs: opts.maxMs,
      op: async (i) => {
        const connection = idle.pop()!;
        try {
          const res = await connection.request(connection.encode(opts.request(i)), { expect, timeoutMs });
          if (!expect.includes(res.status))
            throw new Error(describeFailure(res.status, res.body?.toString('utf8') ?? ''));
        } finally {
          idle.push(connection);
        }
      },
    });
  } finally {
    for (const connection of connections) connection.close();
  }
}

export type Figure = { ok: true; result: LoadResult } | { ok: false; reason: string };

/**
 * A figure with the server's own CPU use over it (percent of one core), to tell which side was saturated, and the
 * database's when the server has one.
 */
export type Measured = Figure & { serverCpu?: number; databaseCpu?: number };

/**
 * Runs a scenario, turning a throw into a failed figure, and notes the CPU the server process `pid` used, and the
 * database (`databaseCpuSeconds`, cumulative) when given.
 */
export async function measure(
  pid: number | undefined,
  run: () => Promise<LoadResult>,
  databaseCpuSeconds?: () => number,
): Promise<Measured> {
  const cpu0 = pid === undefined ? NaN : cpuSeconds(pid);
  const db0 = databaseCpuSeconds?.();
  const t0 = performance.now();
  try {
    const result = await run();
    const seconds = (performance.now() - t0) / 1000;
    const serverCpu = pid === undefined ? undefined : ((cpuSeconds(pid) - cpu0) / seconds) * 100;
    const databaseCpu =
      databaseCpuSeconds && db0 !== undefined ? ((databaseCpuSeconds() - db0) / seconds) * 100 : undefined;
    return { ok: true, result, serverCpu, databaseCpu };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}
