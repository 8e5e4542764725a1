// Starts a throwaway redis-server for tests: a temp directory, a free loopback port, no persistence. When the binary
// is missing it fails with the Debian package to install (`make redis-server` does it), so a run never skips the
// shared-state tests silently. kill() and restart() take it away and bring it back on the same port (a replica's
// client reconnects to it); pause() and resume() freeze it with its connections open, as a Redis too slow to answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './postgres.js';
import { killOnExit } from './kill-on-exit.js';

export interface TestRedis {
  url: string;
  port: number;
  /** SIGKILL: connections cut, everything it held lost (scripts included). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** SIGSTOP and SIGCONT: the connections stay open and nothing answers in between. */
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

const INSTALL_HINT =
  'redis-server not found in the PATH: install it with `apt-get install redis-server` (or `make redis-server`)';

function findRedisServer(): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, 'redis-server'))) return path.join(dir, 'redis-server');
  }
  throw new Error(INSTALL_HINT);
}

/** Resolves once the port accepts connections, the server being up. */
async function waitListening(port: number, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server exited before listening:\n${output()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`redis-server not listening on ${port} within 10 s:\n${output()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function startRedis(): Promise<TestRedis> {
  const binary = findRedisServer();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async (): Promise<void> => {
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no'];
    const started = spawn(binary, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const remember = (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-4000));
    started.stdout?.on('data', remember);
    started.stderr?.on('data', remember);
    killOnExit(started);
    exited = new Promise((resolve) => started.once('exit', () => resolve()));
    child = started;
    await waitListening(port, started, () => output);
  };
  const kill = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    }
    await exited;
  };

  try {
    await start();
  } catch (e) {
    await kill();
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill,
    async restart() {
      await kill();
      await start();
    },
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    async stop() {
      await kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
