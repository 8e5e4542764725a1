// Gateway replicas as real child processes on one storage URL, for the multi-replica and fault tests. Every replica
// of a cluster serves a certificate from one CA (a shared --cert-dir, generated here before any replica starts, so
// concurrent starts never race to create it) and has its own --data-dir and admin token. The sources run through
// tsx, so no build is needed; the storage URL travels in the environment, as an operator would pass a password.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadOrCreateCertificates } from '../../gateway/server/certs.js';
import { STORAGE_URL_ENV } from '../../gateway/server/options.js';
import { httpsRequest, withTestControllers, type GatehouseResponse, type RequestOptions } from './gatehouse.js';
import { startPostgres, type TestPostgres } from './postgres.js';
import { openWatch, type OpenWatch } from './watch-client.js';
import { killOnExit } from './kill-on-exit.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const BANNER = /Gatehouse is serving on (https:\/\/\S+)/;

export type ReplicaRequestOptions = RequestOptions;

export interface Replica {
  name: string;
  url: string;
  ca: string;
  token: string;
  pid: number;
  dataDir: string;
  /** Settles with how the process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
  /** The last lines the process wrote (stdout and stderr), for failure messages. */
  output(): string;
  request(method: string, urlPath: string, opts?: ReplicaRequestOptions): Promise<GatehouseResponse>;
  watch(urlPath: string, headers?: Record<string, string>): Promise<OpenWatch>;
  /** SIGKILL: no shutdown sequence, sockets cut mid-request. */
  kill9(): Promise<void>;
  /** SIGTERM (the graceful shutdown), SIGKILL if it takes longer than 10 s. */
  stop(): Promise<void>;
}

export interface ReplicaCluster {
  storageUrl: string;
  certDir: string;
  ca: string;
  replicas: Replica[];
  /** Starts one more replica of this cluster. */
  start(name: string, extraArgs?: string[]): Promise<Replica>;
  /** Stops every replica (those still running) and removes the directories. */
  stop(): Promise<void>;
}

export function replicaRequest(
  url: string,
  ca: string,
  token: string,
  method: string,
  urlPath: string,
  opts: ReplicaRequestOptions = {},
): Promise<GatehouseResponse> {
  return httpsRequest(url, ca, method, urlPath, { ...opts, defaultToken: token });
}

async function startReplica(
  name: string,
  storageUrl: string,
  certDir: string,
  ca: string,
  extraArgs: string[],
): Promise<Replica> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `gatehouse-replica-${name}-`));
  const args = [
    '--import',
    'tsx',
    path.join(REPO_ROOT, 'gateway/main.ts'),
    '--data-dir',
    dataDir,
    '--cert-dir',
    certDir,
    '--secure-port',
    '0',
    '--bind-address',
    '127.0.0.1',
    '--storage-backend',
    'postgres',
    ...withTestControllers(extraArgs),
  ];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, [STORAGE_URL_ENV]: storageUrl },
  });
  killOnExit(child);
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const output = (): string => lines.join('\n');
  const remember = (chunk: Buffer): string[] => {
    const fresh = chunk
      .toString('utf8')
      .split('\n')
      .filter((l) => l.trim());
    lines.push(...fresh);
    if (lines.length > 60) lines.splice(0, lines.length - 60);
    return fresh;
  };
  child.stderr.on('data', remember);
  const alive = (): boolean => child.exitCode === null && child.signalCode === null;
  const stop = async (): Promise<void> => {
    if (alive()) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replica ${name}: no start banner within ${START_TIMEOUT_MS / 1000} s:\n${output()}`)),
        START_TIMEOUT_MS,
      );
      child.stdout.on('data', (chunk: Buffer) => {
        for (const line of remember(chunk)) {
          const match = BANNER.exec(line);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]);
          }
        }
      });
      void exited.then(({ code, signal }) => {
        clearTimeout(timer);
        reject(new Error(`replica ${name} exited (${signal ?? `code ${code}`}) before serving:\n${output()}`));
      });
    });
  } catch (e) {
    await stop();
    throw e;
  }

  const token = (await readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
  const replica: Replica = {
    name,
    url,
    ca,
    token,
    pid: child.pid!,
    dataDir,
    exited,
    alive,
    output,
    request: (method, urlPath, opts) => replicaRequest(url, ca, token, method, urlPath, opts),
    watch: (urlPath, headers) => openWatch(url, urlPath, { ca, token, headers }),
    async kill9() {
      if (alive()) child.kill('SIGKILL');
      await exited;
    },
    stop,
  };
  await waitReady(replica, START_TIMEOUT_MS);
  return replica;
}

/**
 * Polls /readyz until it answers 200: the replica is another process, whose readiness only /readyz tells, and the
 * banner it prints comes before the first storage check has run.
 */
export async function waitReady(replica: Replica, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let last: string;
  for (;;) {
    try {
      const res = await replica.request('GET', '/readyz?verbose', { timeoutMs: 5_000 });
      if (res.status === 200) return;
      last = `${res.status}: ${res.body}`;
    } catch (e) {
      last = (e as Error).message;
    }
    if (!replica.alive()) throw new Error(`replica ${replica.name} exited:\n${replica.output()}`);
    if (Date.now() > deadline)
      throw new Error(`replica ${replica.name}: /readyz not 200 within ${deadlineMs} ms (last: ${last})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts `names.length` replicas at once on `storageUrl`, sharing one CA. */
export async function startReplicas(storageUrl: string, names: string[]): Promise<ReplicaCluster> {
  const certDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-replica-pki-'));
  const { caPem } = await loadOrCreateCertificates({ certDir, bindAddress: '127.0.0.1' });
  const replicas: Replica[] = [];
  const cluster: ReplicaCluster = {
    storageUrl,
    certDir,
    ca: caPem,
    replicas,
    async start(name, extraArgs = []) {
      const replica = await startReplica(name, storageUrl, certDir, caPem, extraArgs);
      replicas.push(replica);
      return replica;
    },
    async stop() {
      await Promise.all(replicas.map((r) => r.stop()));
      await rm(certDir, { recursive: true, force: true });
    },
  };
  const started = await Promise.allSettled(names.map((name) => cluster.start(name)));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await cluster.stop();
    throw failed.reason;
  }
  // Callers index replicas by their position in `names`; concurrent starts push them in finishing order.
  replicas.sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name));
  return cluster;
}

export interface ReplicasOnPostgres {
  pg: TestPostgres;
  cluster: ReplicaCluster;
}

/**
 * For a describe block: a throwaway PostgreSQL server (`fast`: without fsync, where durability is not under test) and
 * replicas `names` on it, started in the block's before hook and stopped in its after hook. Fields are set once the
 * hook has run; replicas started later through `cluster.start` stop with it.
 */
export function replicasOnPostgres(opts: { fast: boolean; names: string[] }): ReplicasOnPostgres {
  const env = {} as ReplicasOnPostgres;
  before(async () => {
    env.pg = await startPostgres({ fast: opts.fast });
    env.cluster = await startReplicas(env.pg.url, opts.names);
  });
  after(async () => {
    await env.cluster?.stop();
    await env.pg?.stop();
  });
  return env;
}

/** A watch on `through` from the resourceVersion of a list of `collection` made on it just before. */
export async function watchFromList(through: Replica, collection: string): Promise<OpenWatch> {
  const list = await through.request('GET', collection);
  if (list.status !== 200) throw new Error(`${through.name}: list ${collection}: ${list.status} ${list.body}`);
  const w = await through.watch(`${collection}?watch=1&resourceVersion=${list.json().metadata.resourceVersion}`);
  if (w.status !== 200) throw new Error(`${through.name}: watch ${collection}: ${w.status}`);
  return w;
}
