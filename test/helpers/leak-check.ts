// A root-hook plugin (.mocharc.json `require`): mocha no longer force-exits, so whatever a test leaves open would
// hang the run after the last test. Instead, after every test file and once after all of them, the resources that
// keep the event loop alive are compared with what was open before; anything new fails an "after all" hook naming
// the file, and a run that leaked is ended after the summary is printed, so CI fails instead of hanging.
//
// LEAK_TRACE=1 records where each timer and handle was created (async_hooks; slow, so only on demand) and prints
// those stacks with the report; LEAK_TRACE=unref also lists unref'd timers and handles still pending at each check,
// which never hold the process but outliving their file means a stop path forgot them.
import { createHook } from 'node:async_hooks';
import net from 'node:net';
import type { Context, Suite } from 'mocha';
import { runningPostgres } from './postgres.js';

const TRACE = process.env.LEAK_TRACE === '1' || process.env.LEAK_TRACE === 'unref';
const LIST_UNREF = process.env.LEAK_TRACE === 'unref';
/** Sockets and servers close a few ticks after their close() resolves; a leak is what outlives this. */
const SETTLE_MS = 2_000;
/** After a failed check, time for mocha to print its summary before the process is ended. */
const EXIT_AFTER_LEAK_MS = 1_000;
/** A process still up this long after a clean check holds something the check cannot see: end it all the same. */
const EXIT_AFTER_CLEAN_MS = 10_000;

interface Traced {
  type: string;
  stack: string;
  resource: WeakRef<object>;
}

const traced = new Map<number, Traced>();
const tracedByResource = new WeakMap<object, Traced>();
// Promises and ticks are no resources a process can leak, and recording them would make a run many times slower.
const TRACED_TYPES =
  /^(Timeout|TCPWRAP|TCPSERVERWRAP|PIPEWRAP|PIPESERVERWRAP|PROCESSWRAP|FSEVENTWRAP|STATWATCHER|UDPWRAP|SIGNALWRAP|HTTP2SESSION|WORKER|MESSAGEPORT|FILEHANDLE)$/;

/** Stacks of the calls that opened a socket or server: their handles are created a tick later, past any caller. */
const openedAt = new WeakMap<object, string>();

function captureStack(): string {
  const holder = { stack: '' };
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  Error.captureStackTrace(holder);
  Error.stackTraceLimit = limit;
  return creationFrames(holder.stack);
}

if (TRACE) {
  for (const [proto, method] of [
    [net.Server.prototype, 'listen'],
    [net.Socket.prototype, 'connect'],
  ] as const) {
    const methods = proto as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = methods[method];
    methods[method] = function (this: object, ...args: unknown[]) {
      if (!openedAt.has(this)) openedAt.set(this, captureStack());
      return original.apply(this, args);
    };
  }
  createHook({
    init(asyncId, type, _trigger, resource) {
      if (!TRACED_TYPES.test(type)) return;
      const entry = { type, stack: captureStack(), resource: new WeakRef(resource) };
      traced.set(asyncId, entry);
      tracedByResource.set(resource, entry);
    },
    destroy(asyncId) {
      traced.delete(asyncId);
    },
  }).enable();
}

/** The frames of the project and its dependencies: node's internals and this file say nothing about the leak. */
function creationFrames(stack: string): string {
  return stack
    .split('\n')
    .slice(1)
    .filter((l) => !/[( ]node:/.test(l) && !l.includes('leak-check.ts'))
    .slice(0, 12)
    .map((l) => `      ${l.trim()}`)
    .join('\n');
}

// Private but stable since node 0.x: the only way to reach the objects, not just the type names, without tracing.
const activeHandles = (): object[] => (process as unknown as { _getActiveHandles(): object[] })._getActiveHandles();

const isStdio = (h: object): boolean => h === process.stdout || h === process.stderr || h === process.stdin;

function address(a: string | net.AddressInfo | null | undefined): string {
  if (!a) return '?';
  return typeof a === 'string' ? a : `${a.address}:${a.port}`;
}

/** The fields of node's handle owners (sockets, servers, child processes) that tell one from another. */
interface HandleOwner {
  _handle?: { fd?: number } | null;
  _host?: string;
  listen?: unknown;
  address?: () => string | net.AddressInfo | null;
  server?: { address?: () => string | net.AddressInfo | null };
  pid?: number;
  spawnargs?: string[];
}

/** One line that is enough to find the handle: what it is, where it listens or talks to, which process. */
function describeHandle(h: object): string {
  const owner = h as HandleOwner;
  const name = h.constructor?.name ?? typeof h;
  if (typeof owner.listen === 'function' && owner.address) return `${name} listening on ${address(owner.address())}`;
  if (h instanceof net.Socket) {
    const fd = owner._handle?.fd;
    const local = h.localAddress ? `${h.localAddress}:${h.localPort}` : fd !== undefined ? `fd ${fd}` : '?';
    const remote = h.remoteAddress ? `${h.remoteAddress}:${h.remotePort}` : (owner._host ?? '?');
    // An accepted socket was created by no code of the test: the server it came through is what to look for.
    const origin = owner.server ? `, accepted by the server on ${address(owner.server.address?.())}` : '';
    return `${name} ${local} -> ${remote}${origin}${h.destroyed ? ' (destroyed)' : ''}`;
  }
  if (typeof owner.pid === 'number' && owner.spawnargs)
    return `${name} pid ${owner.pid}: ${owner.spawnargs.join(' ').slice(0, 200)}`;
  return name;
}

function stackOf(h: object): string | undefined {
  const wrap = (h as HandleOwner)._handle ?? h;
  return openedAt.get(h) ?? (tracedByResource.get(wrap) ?? tracedByResource.get(h))?.stack;
}

interface Snapshot {
  /** Resource type names and how many of each (timers and requests included, which have no handle object). */
  counts: Map<string, number>;
  handles: Set<object>;
  /** Ref'd timers pending, when traced: without tracing a timer is only a count. */
  timers: Set<object>;
  postgres: Set<string>;
}

interface PendingTimer {
  hasRef?(): boolean;
  _destroyed?: boolean;
  _idleTimeout?: number;
  _onTimeout?: { name?: string };
}

const pending = (t: PendingTimer | undefined): t is PendingTimer => t !== undefined && !t._destroyed;

/** `ownTimer`: the timeout mocha armed for the hook taking the snapshot, which is no test's. */
function snapshot(ownTimer: PendingTimer | undefined, endOfRun: boolean): Snapshot {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  if (pending(ownTimer) && ownTimer.hasRef?.() && counts.get('Timeout'))
    counts.set('Timeout', counts.get('Timeout')! - 1);
  const timers = new Set<object>();
  for (const t of traced.values()) {
    const timer = t.resource.deref() as PendingTimer | undefined;
    if (t.type === 'Timeout' && timer !== ownTimer && pending(timer) && timer.hasRef?.()) timers.add(timer);
  }
  return {
    counts,
    handles: new Set(activeHandles().filter((h) => !isStdio(h))),
    timers,
    postgres: new Set(
      runningPostgres()
        .filter((pg) => endOfRun || !pg.sharedByFiles)
        .map((pg) => pg.dataDir),
    ),
  };
}

/** What is open now and was not in `before`, as report lines; empty when nothing leaked. */
function leaksSince(before: Snapshot, now: Snapshot): string[] {
  const lines: string[] = [];
  for (const [type, n] of now.counts) {
    const extra = n - (before.counts.get(type) ?? 0);
    if (extra > 0) lines.push(`  ${extra} × ${type}`);
  }
  for (const h of now.handles) {
    if (before.handles.has(h)) continue;
    lines.push(`    ${describeHandle(h)}`);
    const stack = stackOf(h);
    if (stack) lines.push(stack);
  }
  for (const timer of now.timers as Set<PendingTimer>) {
    if (before.timers.has(timer)) continue;
    lines.push(
      `    Timeout ${timer._idleTimeout} ms, calls ${timer._onTimeout?.name || 'an anonymous function'}`,
      tracedByResource.get(timer)?.stack ?? '',
    );
  }
  for (const pg of now.postgres)
    if (!before.postgres.has(pg)) lines.push(`  PostgreSQL cluster still running in ${pg}`);
  if (lines.length && !TRACE) lines.push('  (LEAK_TRACE=1 prints where each was created)');
  return lines;
}

const reportedUnref = new WeakSet<object>();

/** Unref'd timers and handles still pending and not listed before: no hang, but a stop path that forgot them. */
function newlyPendingUnref(): string[] {
  const lines: string[] = [];
  for (const t of traced.values()) {
    const r = t.resource.deref() as PendingTimer | undefined;
    if (!pending(r) || r.hasRef?.() !== false || reportedUnref.has(r)) continue;
    // tsx compiles through an esbuild worker that lives as long as the run: the runner's, no test's.
    if (t.stack.includes('node_modules/esbuild/')) continue;
    reportedUnref.add(r);
    lines.push(`    unref'd ${t.type}${t.type === 'Timeout' ? ` ${r._idleTimeout} ms` : ''}`, t.stack);
  }
  return lines;
}

/** The timer mocha armed for the running hook's timeout. */
const hookTimer = (ctx: Context): PendingTimer | undefined =>
  (ctx.runnable() as unknown as { timer?: PendingTimer }).timer;

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Leak lines after giving closing sockets and exiting children their few ticks; returns as soon as nothing is left. */
async function settledLeaks(
  before: Snapshot,
  hook: Context,
  endOfRun = false,
): Promise<{ lines: string[]; now: Snapshot }> {
  const deadline = Date.now() + SETTLE_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 100)) {
    // Sampled from a fresh macrotask, so the timer that woke this loop has already left the active list.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Read each time: mocha arms the hook's timeout only once the hook has returned its promise.
    const now = snapshot(hookTimer(hook), endOfRun);
    const lines = leaksSince(before, now);
    if (!lines.length || Date.now() >= deadline) return { lines, now };
    await delay(wait);
  }
}

let baseline: Snapshot | undefined;
let lastCheck: Snapshot | undefined;
let leaked = false;
let fileChecks = 0;
let fileCheckMs = 0;

function endTheRunSoon(ms: number, why: () => string): void {
  setTimeout(() => {
    process.stderr.write(why());
    // Mocha sets the exit code from its failure count in an 'exit' listener of its own; this one comes later.
    process.on('exit', () => (process.exitCode = 1));
    process.exit(1);
  }, ms).unref();
}

const releasedAtFileEnd = new Set<() => Promise<void>>();

/**
 * For what a helper shares between the files of a run and reopens cheaply on demand (a connection pool): released
 * after every file, before its check, so that each file answers for its own resources only.
 */
export function releaseAtFileEnd(release: () => Promise<void>): void {
  releasedAtFileEnd.add(release);
}

async function checkFile(this: Context, file: string): Promise<void> {
  const started = performance.now();
  for (const release of releasedAtFileEnd) await release();
  const { lines, now } = await settledLeaks(lastCheck!, this);
  // The next file answers only for what it opens itself.
  lastCheck = now;
  fileChecks++;
  fileCheckMs += performance.now() - started;
  if (LIST_UNREF) {
    const forgotten = newlyPendingUnref();
    if (forgotten.length)
      process.stderr.write(`leak-check: unref'd, still pending after ${file}:\n${forgotten.join('\n')}\n`);
  }
  if (lines.length) {
    leaked = true;
    throw new Error(`${file} left open:\n${lines.join('\n')}`);
  }
}

/** One check per file, in the "after all" hooks of its last top-level suite, which run after the file's own. */
function addFileChecks(root: Suite): void {
  const lastSuiteOfFile = new Map<string, Suite>();
  for (const suite of root.suites) if (suite.file) lastSuiteOfFile.set(suite.file, suite);
  const cwd = `${process.cwd()}/`;
  for (const [file, suite] of lastSuiteOfFile) {
    const shown = file.startsWith(cwd) ? file.slice(cwd.length) : file;
    suite.afterAll(`leak check of ${shown}`, function (this: Context) {
      return checkFile.call(this, shown);
    });
  }
}

/** After the root's own "after all" hooks, which is where helpers shared by several files release what they hold. */
async function checkRun(this: Context): Promise<void> {
  const { lines } = await settledLeaks(baseline!, this, true);
  if (fileChecks)
    process.stderr.write(`leak-check: ${fileChecks} file checks took ${Math.round(fileCheckMs)} ms in all\n`);
  if (lines.length || leaked) {
    endTheRunSoon(
      EXIT_AFTER_LEAK_MS,
      () => `leak-check: ended the run, which leaked (see the failed "after all" hooks)\n`,
    );
    if (lines.length) throw new Error(`still open after all tests:\n${lines.join('\n')}`);
    return;
  }
  endTheRunSoon(
    EXIT_AFTER_CLEAN_MS,
    () =>
      `leak-check: the process was still up ${EXIT_AFTER_CLEAN_MS} ms after the last test, holding ${JSON.stringify(process.getActiveResourcesInfo())}; ended it\n`,
  );
}

export const mochaHooks = {
  beforeAll(this: Context) {
    baseline = lastCheck = snapshot(hookTimer(this), true);
    // Every file is loaded by now, and with it every hook the files added to the root: these checks come after them.
    const root = this.test!.parent!;
    addFileChecks(root);
    root.afterAll('leak check of the whole run', checkRun);
  },
};
