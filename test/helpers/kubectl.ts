// Drives the real /usr/bin/kubectl against a test Gatehouse. Every invocation gets a private copy of the admin
// kubeconfig, a private discovery cache (kubectl caches discovery for hours, which would hide server changes between
// runs) and a private HOME, so nothing under the user's ~/.kube is ever read or written. Processes are spawned
// asynchronously without a shell: the gateway runs in this same process, so a synchronous exec would block the
// event loop that has to answer kubectl.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface KubectlResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Kills kubectl after this long; the result then has signal SIGKILL. */
  timeoutMs?: number;
  /** Value of --request-timeout. */
  requestTimeout?: string;
  /** Variables added to kubectl's environment, such as EDITOR for `kubectl edit`. */
  env?: Record<string, string>;
}

export interface KubectlStream {
  /** Complete stdout lines received so far. */
  readonly lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /**
   * Resolves with the index of the first line at or after `from` that matches; rejects after timeoutMs or on exit.
   * `on: 'stderr'` looks at stderr's lines instead, where kubectl -v=6 logs each request once its answer has come.
   */
  waitForLine(match: RegExp, opts?: { from?: number; timeoutMs?: number; on?: 'stdout' | 'stderr' }): Promise<number>;
  /** Whether the process is still running. */
  running(): boolean;
  /** Ends the process (SIGTERM, then SIGKILL) and resolves with what it printed. */
  stop(): Promise<KubectlResult>;
}

export interface Kubectl {
  /** Temp directory holding the kubeconfig, cache and manifests. */
  dir: string;
  kubeconfig: string;
  run(args: string[], opts?: RunOptions): Promise<KubectlResult>;
  /** Runs and returns stdout, failing with kubectl's stderr when the exit code is not 0. */
  ok(args: string[], opts?: RunOptions): Promise<string>;
  /** Starts a long-running command such as `get -w`, with stdout readable line by line. */
  stream(args: string[], opts?: { requestTimeout?: string }): KubectlStream;
  /** Writes a manifest file into the temp directory and returns its path. */
  manifest(name: string, text: string): Promise<string>;
  /** Stops any stream still running and removes the temp directory. */
  cleanup(): Promise<void>;
}

const KUBECTL = '/usr/bin/kubectl';

export async function createKubectl(kubeconfigPath: string): Promise<Kubectl> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-kubectl-'));
  const kubeconfig = path.join(dir, 'kubeconfig');
  const cacheDir = path.join(dir, 'cache');
  const home = path.join(dir, 'home');
  await copyFile(kubeconfigPath, kubeconfig);
  await chmod(kubeconfig, 0o600);
  await mkdir(home);
  await mkdir(path.join(dir, 'manifests'));
  const env = { ...process.env, HOME: home, KUBECONFIG: kubeconfig };
  const children = new Set<ChildProcess>();

  const start = (args: string[], requestTimeout: string, extraEnv: Record<string, string> = {}): ChildProcess => {
    const child = spawn(
      KUBECTL,
      ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, `--request-timeout=${requestTimeout}`, ...args],
      {
        env: { ...env, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.add(child);
    child.on('exit', () => children.delete(child));
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    return child;
  };

  const run = (args: string[], opts: RunOptions = {}): Promise<KubectlResult> =>
    new Promise((resolve, reject) => {
      const child = start(args, opts.requestTimeout ?? '10s', opts.env);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (d: string) => {
        stdout += d;
      });
      child.stderr!.on('data', (d: string) => {
        stderr += d;
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 20_000);
      child.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stdout, stderr });
      });
    });

  const ok = async (args: string[], opts?: RunOptions): Promise<string> => {
    const r = await run(args, opts);
    if (r.code !== 0) {
      throw new Error(
        `kubectl ${args.join(' ')} exited ${r.code ?? r.signal}\n--- stderr\n${r.stderr}--- stdout\n${r.stdout}`,
      );
    }
    return r.stdout;
  };

  const stream = (args: string[], opts: { requestTimeout?: string } = {}): KubectlStream => {
    const child = start(args, opts.requestTimeout ?? '60s');
    const lines: string[] = [];
    const stderrLines: string[] = [];
    let partial = '';
    let stderrPartial = '';
    let stderr = '';
    let exited = false;
    const listeners = new Set<() => void>();
    const notify = (): void => {
      for (const l of [...listeners]) l();
    };
    child.stdout!.on('data', (d: string) => {
      partial += d;
      const parts = partial.split('\n');
      partial = parts.pop()!;
      lines.push(...parts);
      notify();
    });
    child.stderr!.on('data', (d: string) => {
      stderr += d;
      const parts = (stderrPartial + d).split('\n');
      stderrPartial = parts.pop()!;
      stderrLines.push(...parts);
      notify();
    });
    const closed = new Promise<KubectlResult>((resolve) => {
      child.on('close', (code, signal) => {
        exited = true;
        if (partial) lines.push(partial);
        notify();
        resolve({ code, signal, stdout: lines.join('\n'), stderr });
      });
    });

    const waitForLine = (
      match: RegExp,
      o: { from?: number; timeoutMs?: number; on?: 'stdout' | 'stderr' } = {},
    ): Promise<number> =>
      new Promise((resolve, reject) => {
        const from = o.from ?? 0;
        const searched = o.on === 'stderr' ? stderrLines : lines;
        const check = (): void => {
          const i = searched.findIndex((l, idx) => idx >= from && match.test(l));
          if (i >= 0) return done(() => resolve(i));
          if (exited)
            done(() =>
              reject(
                new Error(
                  `kubectl ${args.join(' ')} exited before printing ${match}\n--- stdout\n${lines.join('\n')}\n--- stderr\n${stderr}`,
                ),
              ),
            );
        };
        const timer = setTimeout(
          () =>
            done(() =>
              reject(
                new Error(
                  `no line matching ${match} within ${o.timeoutMs ?? 10_000}ms\n--- stdout\n${lines.join('\n')}\n--- stderr\n${stderr}`,
                ),
              ),
            ),
          o.timeoutMs ?? 10_000,
        );
        const done = (settle: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });

    const stop = async (): Promise<KubectlResult> => {
      if (!exited) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await closed;
        clearTimeout(killer);
      }
      return closed;
    };

    return { lines, stderr: () => stderr, waitForLine, running: () => !exited, stop };
  };

  return {
    dir,
    kubeconfig,
    run,
    ok,
    stream,
    async manifest(name, text) {
      const file = path.join(dir, 'manifests', name);
      await writeFile(file, text);
      return file;
    },
    async cleanup() {
      for (const child of children) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Splits kubectl's column output into rows keyed by header name. Columns are found from where each header word
 * starts (tabwriter pads them to a common start), so empty cells such as a missing SHORTNAMES stay empty instead of
 * shifting the row.
 */
export function parseColumns(stdout: string): Record<string, string>[] {
  const [header, ...rows] = stdout.split('\n').filter((l) => l.trim() !== '');
  if (!header) return [];
  const starts: { name: string; at: number }[] = [];
  const re = /\S+(?: \S+)*/g;
  for (let m = re.exec(header); m; m = re.exec(header)) starts.push({ name: m[0], at: m.index });
  return rows.map((row) =>
    Object.fromEntries(
      starts.map(({ name, at }, i) => {
        const end = i + 1 < starts.length ? starts[i + 1].at : undefined;
        return [name, row.slice(at, end).trim()];
      }),
    ),
  );
}
