// Raw baselines measured in the same run as the gateway figures, with the same load generator: a bare Node HTTPS
// (and plain HTTP) server answering the same JSON, and PostgreSQL single-row INSERT transactions and primary-key
// SELECTs through the same `postgres` driver the backend uses, on the same database.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { trackCloser, trackDir } from './cleanup.js';
import { runHttp2Gets } from './http2-load.js';
import { measure, runLoad, runOps, type Measured } from './load.js';
import { configMapJson, dataJson } from './objects.js';
import { REPO_ROOT, startServer } from './processes.js';
import { WATCH_SCENARIO, WATCH_RUNS } from './scenarios.js';
import { runWatch, type WatchResult, type WatchTransport } from './watch-load.js';

export interface BareBaselines {
  httpsGet: Measured;
  httpsPost: Measured;
  httpGet: Measured;
  /** The same GET over HTTP/2, as kubectl speaks it: 16 streams in flight on one connection. */
  http2Get: Measured;
  /** The https GET again, the server spending SPEND_BUDGET_US of CPU on each request before it answers. */
  httpsGetSpending: Measured;
  /**
   * The watch scenario's 1,000 streams against the bare server, per transport: one write per stream per event and
   * nothing else (over HTTP/1.1 one TLS write each; over HTTP/2 Node's session gathers the frames).
   */
  watchFanout: Record<WatchTransport, WatchResult | { failed: string }>;
}

export const BASELINE_MS = 3_000;
const BASELINE_MAX = 300_000;
const CONCURRENCY = 16;
/**
 * Microseconds of CPU per request for the budget baseline. Measured on the 2-core dev VM: a bare server spending
 * 10 / 20 / 30 / 50 µs per GET answered 73% / 50% / 38% / 27% of its rate without (the client, sleeping more, also
 * costs the server more per write), so 20 µs is about what the gets target (half the bare rate) leaves a gateway.
 */
export const SPEND_BUDGET_US = 20;

/**
 * The bare server, kept running after its baselines so that the judged GET baseline can be measured again right
 * next to each backend's gets: this VM has slow spells (the same bare GET read 20,000-33,000/s in four runs back to
 * back), and a baseline caught in one would flatter the gateway.
 */
export interface BareServer {
  baselines: BareBaselines;
  /** The bare https GET baseline once more, now; undefined when the server did not start. */
  measureHttpsGet: () => Promise<Measured> | undefined;
  stop(): Promise<void>;
}

export async function startBareServer(): Promise<BareServer> {
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-bare-'));
  const removeCertDir = trackDir(certDir);
  const failed = (reason: string): BareServer => ({
    baselines: {
      httpsGet: { ok: false, reason },
      httpsPost: { ok: false, reason },
      httpGet: { ok: false, reason },
      http2Get: { ok: false, reason },
      httpsGetSpending: { ok: false, reason },
      watchFanout: { http1: { failed: reason }, http2: { failed: reason } },
    },
    measureHttpsGet: () => undefined,
    stop: async () => undefined,
  });
  const started = await startServer(
    ['--import', 'tsx', path.join(REPO_ROOT, 'bench/bare-server.ts'), certDir],
    /bare servers: (https:\/\/\S+ http:\/\/\S+ https:\/\/\S+)/,
  );
  if (!started.ok) {
    removeCertDir();
    return failed(`bare server: ${started.reason}`);
  }
  const stop = async (): Promise<void> => {
    await started.server.stop();
    removeCertDir();
  };
  const [httpsUrl, httpUrl, http2Url] = started.server.url.split(' ');
  try {
    const ca = await readFile(path.join(certDir, 'ca.crt'), 'utf8');
    const secure = { url: httpsUrl, ca, token: 'bare' };
    const get = { method: 'GET', path: '/api/v1/namespaces/bench/configmaps/bench-0' };
    // A short warm-up so that neither side is measured while its JIT is still cold.
    await runLoad(secure, { concurrency: CONCURRENCY, maxRequests: 5_000, maxMs: 500, request: () => get });
    const pid = started.server.pid;
    const measureHttpsGet = () =>
      measure(pid, () =>
        runLoad(secure, {
          concurrency: CONCURRENCY,
          maxRequests: BASELINE_MAX,
          maxMs: BASELINE_MS,
          request: () => get,
        }),
      );
    const httpsGet = await measureHttpsGet();
    const httpsPost = await measure(pid, () =>
      runLoad(secure, {
        concurrency: CONCURRENCY,
        maxRequests: BASELINE_MAX,
        maxMs: BASELINE_MS,
        expect: [201],
        request: (i) => ({
          method: 'POST',
          path: '/api/v1/namespaces/bench/configmaps',
          body: configMapJson(`bare-${i}`, 1024),
        }),
      }),
    );
    const httpGet = await measure(pid, () =>
      runLoad(
        { url: httpUrl, token: 'bare' },
        { concurrency: CONCURRENCY, maxRequests: BASELINE_MAX, maxMs: BASELINE_MS, request: () => get },
      ),
    );
    const http2Target = { ...secure, url: http2Url };
    await runHttp2Gets(http2Target, { concurrency: CONCURRENCY, maxRequests: 5_000, maxMs: 500, request: () => get });
    const http2Get = await measure(pid, () =>
      runHttp2Gets(http2Target, {
        concurrency: CONCURRENCY,
        maxRequests: BASELINE_MAX,
        maxMs: BASELINE_MS,
        request: () => get,
      }),
    );
    const spending = { ...get, path: `${get.path}?spendUs=${SPEND_BUDGET_US}` };
    const httpsGetSpending = await measure(pid, () =>
      runLoad(secure, {
        concurrency: CONCURRENCY,
        maxRequests: BASELINE_MAX,
        maxMs: BASELINE_MS,
        request: () => spending,
      }),
    );
    const watchers = Math.max(...WATCH_RUNS.map((run) => run.watchers));
    const fanout = (url: string, transport: WatchTransport) =>
      runWatch({ ...secure, url }, { ...WATCH_SCENARIO, namespace: 'bench', watchers, transport }).catch(
        (e: Error) => ({ failed: e.message }),
      );
    const watchFanout = { http1: await fanout(httpsUrl, 'http1'), http2: await fanout(http2Url, 'http2') };
    return {
      baselines: { httpsGet, httpsPost, httpGet, http2Get, httpsGetSpending, watchFanout },
      measureHttpsGet,
      stop,
    };
  } catch (e) {
    await stop();
    return failed((e as Error).message);
  }
}

export interface PostgresServer {
  url: string;
  stop(): Promise<void>;
}

export const POSTGRES_HELPER = 'test/helpers/postgres.ts';

/**
 * The PostgreSQL server the test harness starts (initdb + pg_ctl, throwaway dir, free port). Loaded at run time so
 * that the bench runs, and says why PostgreSQL is skipped, while that helper is absent or the binaries are missing.
 */
export async function startBenchPostgres(): Promise<
  { ok: true; server: PostgresServer } | { ok: false; reason: string }
> {
  const helper = path.join(REPO_ROOT, POSTGRES_HELPER);
  if (!existsSync(helper)) return { ok: false, reason: `${POSTGRES_HELPER} is missing (it provides startPostgres())` };
  try {
    const mod = (await import(pathToFileURL(helper).href)) as {
      startPostgres?: (opts?: { fast?: boolean }) => Promise<PostgresServer>;
    };
    if (typeof mod.startPostgres !== 'function')
      return { ok: false, reason: `${POSTGRES_HELPER} exports no startPostgres()` };
    // Durable settings (fast: false): the figures are meant to say what production would see.
    const server = await mod.startPostgres({ fast: false });
    const untrack = trackCloser(() => server.stop());
    return {
      ok: true,
      server: {
        url: server.url,
        stop: async () => {
          untrack();
          await server.stop();
        },
      },
    };
  } catch (e) {
    return { ok: false, reason: `could not start PostgreSQL: ${(e as Error).message}` };
  }
}

export interface PostgresBaselines {
  insert: Measured;
  select: Measured;
}

let tables = 0;

/** Runs `body` on a fresh table of 1 KiB text rows through its own pool, dropped afterwards; a throw is `failed`. */
async function withRawTable<T>(
  url: string,
  body: (sql: postgres.Sql, table: string) => Promise<T>,
  failed: (reason: string) => T,
): Promise<T> {
  const sql = postgres(url, { max: CONCURRENCY, onnotice: () => {}, connect_timeout: 10, idle_timeout: 5 });
  const table = `bench_raw_${process.pid}_${++tables}`;
  try {
    await sql.unsafe(`CREATE TABLE ${table} (k text COLLATE "C" PRIMARY KEY, v text NOT NULL)`);
    return await body(sql, table);
  } catch (e) {
    return failed((e as Error).message);
  } finally {
    await sql.unsafe(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
    await sql.end({ timeout: 5 });
  }
}

async function measureInsert(sql: postgres.Sql, table: string): Promise<{ insert: Measured; inserted: number }> {
  const value = dataJson(1024);
  // Open every connection before timing, as the gateway's pool is open before its first request.
  await Promise.all(Array.from({ length: CONCURRENCY }, () => sql`SELECT 1`));
  let inserted = 0;
  const insert = await measure(undefined, () =>
    runOps({
      concurrency: CONCURRENCY,
      maxOps: BASELINE_MAX,
      maxMs: BASELINE_MS,
      op: async (i) => {
        await sql`INSERT INTO ${sql(table)} (k, v) VALUES (${`row-${i}`}, ${value})`;
        inserted = Math.max(inserted, i + 1);
      },
    }),
  );
  return { insert, inserted };
}

/** Single-row INSERT transactions alone (the judged baseline, measured again next to the PostgreSQL creates). */
export function measurePostgresInsert(url: string): Promise<Measured> {
  return withRawTable(
    url,
    async (sql, table) => (await measureInsert(sql, table)).insert,
    (reason) => ({ ok: false, reason }),
  );
}

/** INSERT and SELECT by primary key of 1 KiB rows, 16 concurrent, each statement its own transaction. */
export function measurePostgres(url: string): Promise<PostgresBaselines> {
  return withRawTable(
    url,
    async (sql, table) => {
      const { insert, inserted } = await measureInsert(sql, table);
      const rows = Math.max(1, inserted);
      const select = await measure(undefined, () =>
        runOps({
          concurrency: CONCURRENCY,
          maxOps: BASELINE_MAX,
          maxMs: BASELINE_MS,
          op: async (i) => {
            const found = await sql`SELECT v FROM ${sql(table)} WHERE k = ${`row-${(i * 7919) % rows}`}`;
            if (found.length !== 1 && insert.ok && insert.result.errors === 0)
              throw new Error('primary-key SELECT found no row');
          },
        }),
      );
      return { insert, select };
    },
    (reason) => ({ insert: { ok: false, reason }, select: { ok: false, reason } }),
  );
}
