// Everything the bench starts (child processes, temp dirs, a PostgreSQL server) is registered here so that it is
// stopped on every way out: normal end, a thrown error, Ctrl-C, or the global watchdog.
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';

const children = new Set<ChildProcess>();
const dirs = new Set<string>();
const asyncClosers = new Set<() => Promise<void>>();

export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.once('exit', () => children.delete(child));
}

export function trackDir(dir: string): () => void {
  dirs.add(dir);
  return () => {
    dirs.delete(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Registers an asynchronous closer (the PostgreSQL server); returns the function that unregisters it. */
export function trackCloser(close: () => Promise<void>): () => void {
  asyncClosers.add(close);
  return () => asyncClosers.delete(close);
}

/** Synchronous part: safe to call from an 'exit' handler, where no promise will ever settle. */
function killAndRemoveSync(): void {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  children.clear();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs.clear();
}

export async function cleanupAll(): Promise<void> {
  killAndRemoveSync();
  const closers = [...asyncClosers];
  asyncClosers.clear();
  await Promise.allSettled(
    closers.map((close) => Promise.race([close(), new Promise<void>((r) => setTimeout(r, 15_000).unref())])),
  );
}

/** Signals and the watchdog run the asynchronous cleanup first; 'exit' is the last resort. */
export function installCleanupHandlers(watchdogMs: number): void {
  process.once('exit', killAndRemoveSync);
  const bail = (why: string, code: number): void => {
    process.stderr.write(`\nbench: ${why}; cleaning up\n`);
    void cleanupAll().finally(() => process.exit(code));
  };
  process.once('SIGINT', () => bail('interrupted', 130));
  process.once('SIGTERM', () => bail('terminated', 143));
  setTimeout(() => bail(`watchdog: the run exceeded ${Math.round(watchdogMs / 1000)} s`, 2), watchdogMs).unref();
}
