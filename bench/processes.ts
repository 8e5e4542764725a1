// Child processes under test: the gateway (one per backend) and the bare-server baseline. Each runs apart from the
// load generator so that its CPU is its own and its peak resident memory (VmHWM) can be read from /proc.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourceNewerThan } from '../bin/stale-build.js';
import { trackChild, trackDir } from './cleanup.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface ServerProcess {
  child: ChildProcess;
  pid: number;
  url: string;
  /** Last lines the process wrote, for a failure report. */
  output(): string;
  stop(): Promise<void>;
}

export type StartResult = { ok: true; server: ServerProcess } | { ok: false; reason: string };

const STARTUP_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * The compiled gateway when dist/ is at least as new as the sources (`make bench` builds first); otherwise the
 * sources through tsx, so that `node --import tsx bench/run.ts` never measures a stale build.
 */
export function gatewayCommand(): { args: string[]; label: string } {
  const compiled = path.join(REPO_ROOT, 'dist/gateway/main.js');
  if (existsSync(compiled)) {
    const stale = sourceNewerThan(REPO_ROOT, statSync(compiled).mtimeMs);
    if (stale === undefined) return { args: [compiled], label: 'dist (compiled)' };
  }
  return {
    args: ['--import', 'tsx', path.join(REPO_ROOT, 'gateway/main.ts')],
    label: 'sources via tsx (dist missing or older than the sources)',
  };
}

/** Spawns `node <args>` and resolves once a stdout line matches `ready` (its first group is the URL). */
export function startServer(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = process.env): Promise<StartResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
    trackChild(child);
    const lines: string[] = [];
    let settled = false;
    const remember = (chunk: Buffer): string[] => {
      const fresh = chunk
        .toString('utf8')
        .split('\n')
        .filter((l) => l.trim());
      lines.push(...fresh);
      if (lines.length > 40) lines.splice(0, lines.length - 40);
      return fresh;
    };
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const stop = async (): Promise<void> => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      void stop();
      resolve({
        ok: false,
        reason: `no start banner within ${STARTUP_TIMEOUT_MS / 1000} s: ${lines.slice(-3).join(' | ')}`,
      });
    }, STARTUP_TIMEOUT_MS);
    child.stderr.on('data', remember);
    child.stdout.on('data', (chunk: Buffer) => {
      for (const line of remember(chunk)) {
        const match = ready.exec(line);
        if (match && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve({
            ok: true,
            server: { child, pid: child.pid!, url: match[1], output: () => lines.join('\n'), stop },
          });
        }
      }
    });
    child.once('exit', (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        ok: false,
        reason: `exited (${signal ?? `code ${code}`}) before serving: ${lines.slice(-3).join(' | ') || 'no output'}`,
      });
    });
  });
}

export interface Gateway extends ServerProcess {
  dataDir: string;
  token: string;
  ca: string;
  removeDataDir(): void;
}

/**
 * Node flags for every gateway the bench starts, from BENCH_NODE_FLAGS (split on whitespace): a profiler's
 * (`--cpu-prof --cpu-prof-dir=/tmp/prof`) or V8's logs (`--log-ic --logfile=/tmp/v8.log`), which the figures then
 * include.
 */
export function gatewayNodeFlags(): string[] {
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const stray = flags.find((f) => !f.startsWith('-'));
  if (stray !== undefined)
    throw new Error(`BENCH_NODE_FLAGS: ${JSON.stringify(stray)} is not a node flag (flags start with -)`);
  return flags;
}

/** Starts `gatehouse` on a fresh data dir with the backend's flags, on loopback and a free port. */
export async function startGateway(
  backendFlags: string[],
  env?: NodeJS.ProcessEnv,
  /** The CA of a serving certificate given with --tls-cert-file: the gateway then generates none. */
  servingCaPem?: string,
): Promise<{ ok: true; gateway: Gateway } | { ok: false; reason: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-bench-'));
  const removeDataDir = trackDir(dataDir);
  const args = [
    ...gatewayNodeFlags(),
    ...gatewayCommand().args,
    '--data-dir',
    dataDir,
    '--secure-port',
    '0',
    '--bind-address',
    '127.0.0.1',
    ...backendFlags,
  ];
  const started = await startServer(args, /Gatehouse is serving on (https:\/\/\S+)/, env);
  if (!started.ok) {
    removeDataDir();
    return started;
  }
  try {
    const token = (await readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
    const ca = servingCaPem ?? (await readFile(path.join(dataDir, 'pki/ca.crt'), 'utf8'));
    return { ok: true, gateway: { ...started.server, dataDir, token, ca, removeDataDir } };
  } catch (e) {
    await started.server.stop();
    removeDataDir();
    return { ok: false, reason: `started but its credentials are unreadable: ${(e as Error).message}` };
  }
}

/** Peak (VmHWM) and current (VmRSS) resident memory in MiB, from /proc; NaN when the process is gone. */
export function residentMemory(pid: number): { peakMiB: number; currentMiB: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { peakMiB: kb('VmHWM') / 1024, currentMiB: kb('VmRSS') / 1024 };
  } catch {
    return { peakMiB: NaN, currentMiB: NaN };
  }
}

/** The fields of /proc/<pid>/stat after the command name, or undefined when the process is gone. */
function statFields(pid: string | number): { name: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return {
      name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
      fields: stat.slice(stat.lastIndexOf(')') + 2).split(' '),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds every PostgreSQL process on this machine has used so far: the live ones' own time, plus what the
 * postmaster collected from backends that already exited. The bench's cluster is the only one it starts.
 */
export function postgresCpuSeconds(): number {
  const processes = new Map<string, string[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statFields(entry);
    if (stat?.name === 'postgres') processes.set(entry, stat.fields);
  }
  let total = 0;
  for (const fields of processes.values()) {
    total += Number(fields[11]) + Number(fields[12]);
    // A postmaster (its parent is not PostgreSQL) also holds its exited children's time.
    if (!processes.has(fields[1])) total += Number(fields[13]) + Number(fields[14]);
  }
  return total / 100;
}

/** CPU seconds (user + system) the process has used so far; Linux reports them in clock ticks of 1/100 s. */
export function cpuSeconds(pid: number): number {
  const stat = statFields(pid);
  return stat ? (Number(stat.fields[11]) + Number(stat.fields[12])) / 100 : NaN;
}
