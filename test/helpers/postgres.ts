// Starts a throwaway PostgreSQL cluster for tests and benchmarks: initdb into a temp dir, pg_ctl on a free loopback
// port, trust authentication for the `gatehouse` superuser. When the server binaries are missing it fails with the
// Debian package to install, so a test run never skips the PostgreSQL suite silently.
//
// fsync stays on unless `fast` is asked for: benchmarks start their cluster here too and must measure real commits.
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface StartPostgresOptions {
  /** fsync, synchronous_commit and full_page_writes off: for tests that need correctness, not durability figures. */
  fast?: boolean;
  /** Kept for the whole run by a helper that serves several test files: the leak check asks for it only at the end. */
  sharedByFiles?: boolean;
}

export interface TestPostgres {
  /** postgres://gatehouse@127.0.0.1:PORT/postgres (trust authentication, no password). */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server and removes its directory. */
  stop(): Promise<void>;
  /** Stops and starts the server on the same port and data (for fault tests). */
  restart(): Promise<void>;
  /** Stops the server immediately (pg_ctl -m immediate) without removing the data; restart() brings it back. */
  kill(): Promise<void>;
  /** Runs SQL through psql in the `postgres` database and returns its unaligned output. */
  psql(sql: string): Promise<string>;
}

const INSTALL_HINT =
  'PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in /usr/lib/postgresql/*/bin or the PATH: install them with `apt-get install postgresql-15`';

function findBinDir(): string {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v) && existsSync(path.join(root, v, 'bin', 'pg_ctl')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length) return path.join(root, versions[0], 'bin');
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(path.join(dir, b)))) return dir;
  }
  throw new Error(INSTALL_HINT);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const running = new Set<TestPostgres>();
const sharedByFiles = new WeakSet<TestPostgres>();
let exitHookInstalled = false;

/** The clusters started and not yet stopped: the leak check names those a test forgot. */
export function runningPostgres(): Array<{ dataDir: string; sharedByFiles: boolean }> {
  return [...running].map((pg) => ({ dataDir: pg.dataDir, sharedByFiles: sharedByFiles.has(pg) }));
}

/** The postmaster's pid: the first line of postmaster.pid, or undefined when the server is not running. */
function postmasterPid(dataDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Synchronous on purpose: 'exit' listeners cannot await, and a leaked postmaster would outlive the test run. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pg of running) {
      const pid = postmasterPid(pg.dataDir);
      if (pid === undefined) continue;
      try {
        // SIGQUIT is PostgreSQL's immediate shutdown.
        process.kill(pid, 'SIGQUIT');
      } catch {
        // Already gone.
      }
    }
  });
}

export async function startPostgres(opts: StartPostgresOptions = {}): Promise<TestPostgres> {
  const bin = findBinDir();
  const asRoot = process.getuid?.() === 0;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-pg-'));
  const dataDir = path.join(dir, 'data');
  // initdb and postgres refuse to run as root: run them as the postgres user on a directory it owns.
  const command = (file: string, args: string[]): [string, string[]] =>
    asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, file), ...args]] : [path.join(bin, file), args];
  if (asRoot) await run('chown', ['postgres:postgres', dir]);

  const exec = async (file: string, args: string[]): Promise<string> => {
    const [cmd, argv] = command(file, args);
    try {
      const { stdout } = await run(cmd, argv, { cwd: dir, maxBuffer: 16 << 20 });
      return stdout;
    } catch (e) {
      const err = e as { stderr?: string; message: string };
      throw new Error(`${file} failed: ${err.stderr?.trim() || err.message}`, { cause: e });
    }
  };

  await exec('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'gatehouse', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const settings = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1,::1'", '-c max_connections=200'];
  if (opts.fast) settings.push('-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off');

  const start = (): Promise<string> =>
    exec('pg_ctl', [
      '-D',
      dataDir,
      '-l',
      path.join(dir, 'server.log'),
      '-w',
      '-t',
      '30',
      '-o',
      settings.join(' '),
      'start',
    ]);
  const pgStop = (mode: 'fast' | 'immediate'): Promise<string> =>
    exec('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
  let up = false;

  const pg: TestPostgres = {
    url: `postgres://gatehouse@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async stop() {
      if (up) await pgStop('fast').catch(() => pgStop('immediate'));
      up = false;
      running.delete(pg);
      await rm(dir, { recursive: true, force: true });
    },
    async restart() {
      if (up) await pgStop('fast');
      up = false;
      await start();
      up = true;
    },
    async kill() {
      if (up) await pgStop('immediate');
      up = false;
    },
    psql(sql) {
      return new Promise((resolve, reject) => {
        const child = spawn(existsSync(path.join(bin, 'psql')) ? path.join(bin, 'psql') : 'psql', [
          '-X',
          '-q',
          '-A',
          '-t',
          '-v',
          'ON_ERROR_STOP=1',
          '-h',
          '127.0.0.1',
          '-p',
          String(port),
          '-U',
          'gatehouse',
          '-d',
          'postgres',
          '-c',
          sql,
        ]);
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) =>
          code === 0 ? resolve(out.trim()) : reject(new Error(`psql failed: ${err.trim()}`)),
        );
      });
    },
  };

  try {
    await start();
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  up = true;
  running.add(pg);
  if (opts.sharedByFiles) sharedByFiles.add(pg);
  installExitHook();
  return pg;
}
