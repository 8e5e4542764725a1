// A diagnostic of the aggregation scenario's watch figure, not a scenario of its own: W watchers through a front and
// W straight to its upstream, all on the same collection, so that every write is one event delivered 2W times and the
// two sides compare event by event (the scenario's sides watch two namespaces with their own writes, which a slow
// spell of this machine can favour either way). Besides the latencies it reports the front's and upstream's CPU and
// syscall bytes per delivered event, and with `--trace` (bench/event-trace.ts loaded into both servers) where the
// front path's time goes: upstream write, front read, front write, client receipt, all on the one monotonic clock.
//
//   node --import tsx bench/aggregation-probe.ts <gatehouse|bare-http-proxy|bare-pipe> [--trace] [--http2] [--watchers=N]
//
// `gatehouse` is the scenario's pair (aggregation-pair.ts); the bare fronts (bare-proxy.ts) pass to bare-server.ts's
// fan-out, the floor of a Node TLS hop on this machine with and without http-proxy.
import { mkdtemp, readFile } from 'node:fs/promises';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { eventJson, GROUP_VERSION, startAggregationPair } from './aggregation-pair.js';
import { cleanupAll, installCleanupHandlers, trackDir } from './cleanup.js';
import { createAgent, describeFailure, percentile, send, type Target } from './load.js';
import { breakdown, readTrace, stats, type Deliveries, type Receipt, type Side } from './probe-trace.js';
import { cpuSeconds, REPO_ROOT, startServer, type ServerProcess } from './processes.js';
import { openRawWatch } from './raw-watch.js';
import { createRawHttp2Pool } from './raw-http2.js';
import { probeNameIn } from './event-trace.js';
import { freshResultPath } from './results-file.js';

const RATE = 20;
const WARMUP_EVENTS = 20;
const TRACE_MODULE = path.join(REPO_ROOT, 'bench/event-trace.ts');
const NAMESPACE = 'probe';
const USAGE = 'usage: aggregation-probe.ts <gatehouse|bare-http-proxy|bare-pipe> [--trace] [--http2] [--watchers=N]';

interface Pair {
  viaFront: Target;
  direct: Target;
  frontPid: number;
  upstreamPid: number;
  collection: string;
  stop(): Promise<void>;
}

interface ProbeOptions {
  watchers: number;
  seconds: number;
  /** Watchers multiplexed over HTTP/2 as client-go holds them, instead of a connection each. */
  http2: boolean;
}

/** What the front and the upstream spent while the measured events flowed. */
interface Spent {
  frontCpu: number;
  upstreamCpu: number;
  frontRead: number;
  frontWritten: number;
  upstreamWritten: number;
}

interface ProbeRun extends Deliveries {
  openTimes: Record<Side, number[]>;
  /** CPU seconds the front and the upstream spent while the watches opened. */
  openCpu: { front: number; upstream: number };
  spent: Spent;
  measuredEvents: number;
  lineBytes: number;
  writeProblems: number;
}

async function startBarePair(mode: 'http-proxy' | 'pipe', nodeFlags: string[]): Promise<Pair> {
  const upDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-probe-up-'));
  const frontDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-probe-front-'));
  const removeDirs = [trackDir(upDir), trackDir(frontDir)];
  const servers: ServerProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const s of servers) await s.stop();
    for (const remove of removeDirs) remove();
  };
  const start = async (args: string[], banner: RegExp): Promise<ServerProcess> => {
    const started = await startServer([...nodeFlags, ...args], banner);
    if (!started.ok) throw new Error(started.reason);
    servers.push(started.server);
    return started.server;
  };
  try {
    const up = await start(
      [path.join(REPO_ROOT, 'bench/bare-server.ts'), upDir],
      /bare servers: (https:\/\/\S+) http:\/\/\S+ https:\/\/\S+/,
    );
    const front = await start(
      [path.join(REPO_ROOT, 'bench/bare-proxy.ts'), mode, up.url, path.join(upDir, 'ca.crt'), frontDir],
      /bare proxy \(\S+\) on (https:\/\/\S+)/,
    );
    const ca = (dir: string) => readFile(path.join(dir, 'ca.crt'), 'utf8');
    return {
      viaFront: { url: front.url, ca: await ca(frontDir), token: 'bare' },
      direct: { url: up.url, ca: await ca(upDir), token: 'bare' },
      frontPid: front.pid,
      upstreamPid: up.pid,
      collection: `${GROUP_VERSION}/namespaces/${NAMESPACE}/events`,
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function startGatehousePair(): Promise<Pair> {
  const pair = await startAggregationPair();
  const agent = createAgent(pair.direct, 1);
  const body = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${NAMESPACE}"}}`;
  const made = await send(pair.direct, agent, { method: 'POST', path: '/api/v1/namespaces', body }, { expect: [201] });
  agent.destroy();
  if (made.status !== 201) throw new Error(`namespace: ${describeFailure(made.status, made.body)}`);
  return {
    viaFront: pair.viaFront,
    direct: pair.direct,
    frontPid: pair.front.pid,
    upstreamPid: pair.upstream.pid,
    collection: `${GROUP_VERSION}/namespaces/${NAMESPACE}/events`,
    stop: () => pair.stop(),
  };
}

/** Bytes the process passed through read and write system calls (sockets included), from /proc. */
function ioBytes(pid: number): { read: number; written: number } {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  return { read: field('rchar'), written: field('wchar') };
}

function spentSoFar(pair: Pair): Spent {
  const front = ioBytes(pair.frontPid);
  return {
    frontCpu: cpuSeconds(pair.frontPid),
    upstreamCpu: cpuSeconds(pair.upstreamPid),
    frontRead: front.read,
    frontWritten: front.written,
    upstreamWritten: ioBytes(pair.upstreamPid).written,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function probe(pair: Pair, opts: ProbeOptions): Promise<ProbeRun> {
  const receipts: Record<Side, Receipt[]> = { front: [], direct: [] };
  const ports: Record<Side, Set<number>> = { front: new Set(), direct: new Set() };
  const openTimes: Record<Side, number[]> = { front: [], direct: [] };
  const sentAt = new Map<string, number>();
  const closers: (() => void)[] = [];
  const pools = opts.http2
    ? { front: createRawHttp2Pool(pair.viaFront), direct: createRawHttp2Pool(pair.direct) }
    : undefined;
  const agent = createAgent(pair.direct, 4);
  let lineBytes = 0;
  let writeProblems = 0;
  const path_ = `${pair.collection}?watch=1&timeoutSeconds=600`;
  const open = async (side: Side): Promise<void> => {
    const connection = { port: 0 };
    const openStart = performance.now();
    const handlers = {
      onLine: (line: Buffer, at: number) => {
        const name = probeNameIn(line);
        if (name === undefined) return;
        lineBytes = line.length;
        receipts[side].push({ name, at, port: connection.port });
      },
      onEnd: () => undefined,
    };
    const opened = pools
      ? await pools[side].open(path_, handlers, 15_000)
      : await openRawWatch(side === 'front' ? pair.viaFront : pair.direct, path_, handlers, 15_000);
    if (!opened.ok) throw new Error(`${side} watch did not open: ${describeFailure(opened.status, opened.body)}`);
    openTimes[side].push(performance.now() - openStart);
    connection.port = opened.localPort ?? 0;
    ports[side].add(connection.port);
    closers.push(opened.close);
  };
  try {
    const cpuBeforeOpens = { front: cpuSeconds(pair.frontPid), upstream: cpuSeconds(pair.upstreamPid) };
    // Alternating, so that neither side holds the first places in the upstream's fan-out order.
    for (let i = 0; i < opts.watchers; i += 8) {
      const batch: Promise<void>[] = [];
      for (let j = i; j < Math.min(opts.watchers, i + 8); j++) batch.push(open('front'), open('direct'));
      await Promise.all(batch);
    }
    const openCpu = {
      front: cpuSeconds(pair.frontPid) - cpuBeforeOpens.front,
      upstream: cpuSeconds(pair.upstreamPid) - cpuBeforeOpens.upstream,
    };
    await sleep(500);
    const total = WARMUP_EVENTS + opts.seconds * RATE;
    const writes: Promise<void>[] = [];
    const start = performance.now();
    let before = spentSoFar(pair);
    for (let seq = 0; seq < total; seq++) {
      if (seq === WARMUP_EVENTS) before = spentSoFar(pair);
      const wait = start + (seq * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
      const name = `probe-${seq}`;
      sentAt.set(name, performance.now());
      const request = { method: 'POST', path: pair.collection, body: eventJson(NAMESPACE, name) };
      writes.push(
        send(pair.direct, agent, request, { expect: [201] }).then(
          (res) => void (res.status !== 201 && writeProblems++),
          () => void writeProblems++,
        ),
      );
    }
    await Promise.all(writes);
    const expected = total * opts.watchers;
    const drainUntil = performance.now() + 5_000;
    while ((receipts.front.length < expected || receipts.direct.length < expected) && performance.now() < drainUntil)
      await sleep(20);
    const after = spentSoFar(pair);
    const spent = Object.fromEntries(
      Object.entries(after).map(([k, v]) => [k, v - before[k as keyof Spent]]),
    ) as unknown as Spent;
    const measured = (name: string) => Number(name.slice('probe-'.length)) >= WARMUP_EVENTS;
    return {
      receipts,
      ports,
      sentAt,
      measured,
      openTimes,
      openCpu,
      spent,
      measuredEvents: total - WARMUP_EVENTS,
      lineBytes,
      writeProblems,
    };
  } finally {
    agent.destroy();
    for (const close of closers) close();
    pools?.front.close();
    pools?.direct.close();
  }
}

function report(run: ProbeRun, opts: ProbeOptions): string[] {
  const latencies = (side: Side) =>
    Float64Array.from(
      run.receipts[side].filter((r) => run.measured(r.name)).map((r) => r.at - (run.sentAt.get(r.name) ?? NaN)),
    ).sort();
  const front = latencies('front');
  const direct = latencies('direct');
  const at = (sorted: Float64Array, p: number) => percentile(sorted, p);
  const deliveries = run.measuredEvents * opts.watchers;
  const us = (seconds: number, per: number) => ((seconds * 1e6) / per).toFixed(1);
  const { spent } = run;
  const expected = (WARMUP_EVENTS + run.measuredEvents) * opts.watchers;
  return [
    `delivered: front ${run.receipts.front.length}, direct ${run.receipts.direct.length} of ${expected} each; ` +
      `write problems ${run.writeProblems}`,
    `watch opens (8 a side at a time): through the front ${stats(run.openTimes.front)}; ` +
      `direct ${stats(run.openTimes.direct)}; CPU while they opened: front ${us(run.openCpu.front, opts.watchers)} µs ` +
      `per watch through it, upstream ${us(run.openCpu.upstream, 2 * opts.watchers)} µs per watch`,
    `through the front: ${stats([...front])}`,
    `direct:            ${stats([...direct])}`,
    `the front adds ${(at(front, 99) - at(direct, 99)).toFixed(2)} ms at p99, ` +
      `${(at(front, 50) - at(direct, 50)).toFixed(2)} ms at p50 (same events on both sides)`,
    `front CPU ${us(spent.frontCpu, deliveries)} µs per event per watcher (${us(spent.frontCpu, run.measuredEvents)} ` +
      `µs per event); upstream CPU ${us(spent.upstreamCpu, 2 * deliveries)} µs per delivered event ` +
      `(${us(spent.upstreamCpu, run.measuredEvents)} µs per event)`,
    `front syscall bytes per event per watcher: ${(spent.frontRead / deliveries).toFixed(0)} read, ` +
      `${(spent.frontWritten / deliveries).toFixed(0)} written; upstream written per delivered event ` +
      `${(spent.upstreamWritten / (2 * deliveries)).toFixed(0)}; an event line is ${run.lineBytes} bytes`,
  ];
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

async function main(): Promise<void> {
  installCleanupHandlers(600_000);
  const args = process.argv.slice(2);
  const mode = args[0];
  if (mode !== 'gatehouse' && mode !== 'bare-http-proxy' && mode !== 'bare-pipe') throw new Error(USAGE);
  const trace = args.includes('--trace');
  const opts: ProbeOptions = {
    watchers: Number(/--watchers=(\d+)/.exec(args.join(' '))?.[1] ?? 100),
    seconds: Number(/--seconds=(\d+)/.exec(args.join(' '))?.[1] ?? 5),
    http2: args.includes('--http2'),
  };
  if (trace && opts.http2) throw new Error('--trace follows connections by port: HTTP/1.1 watchers only');
  const traceDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-probe-trace-'));
  const removeTraceDir = trackDir(traceDir);
  const traceFlags = trace ? ['--import=tsx', `--import=${TRACE_MODULE}`] : [];
  if (trace) {
    process.env.BENCH_EVENT_TRACE_DIR = traceDir;
    process.env.BENCH_NODE_FLAGS = [process.env.BENCH_NODE_FLAGS ?? '', ...traceFlags].join(' ');
  }
  const out: string[] = [];
  const say = (line: string): void => {
    out.push(line);
    process.stdout.write(`${line}\n`);
  };
  const git = (...a: string[]) => execFileSync('git', a, { cwd: REPO_ROOT }).toString().trim();
  const commit = git('rev-parse', '--short', 'HEAD');
  const dirty = git('status', '--porcelain', '--untracked-files=no') ? ' (with uncommitted changes)' : '';
  const nodeFlags = process.env.BENCH_NODE_FLAGS?.trim();
  say(
    `aggregation probe ${new Date().toISOString()}, commit ${commit}${dirty}: ${mode}, ${opts.watchers} ` +
      `${opts.http2 ? 'HTTP/2' : 'HTTP/1.1'} watchers a side on one collection, ${RATE} ev/s for ${opts.seconds} s ` +
      `after ${WARMUP_EVENTS} warm-up events${trace ? ', traced' : ''}${nodeFlags ? `; node flags: ${nodeFlags}` : ''}`,
  );
  say(`load average at start: ${loadAverage()}`);
  const pair =
    mode === 'gatehouse'
      ? await startGatehousePair()
      : await startBarePair(mode === 'bare-pipe' ? 'pipe' : 'http-proxy', trace ? traceFlags : ['--import', 'tsx']);
  let run: ProbeRun;
  try {
    run = await probe(pair, opts);
  } finally {
    await pair.stop();
  }
  say(`load average at end: ${loadAverage()}`);
  report(run, opts).forEach(say);
  if (trace) {
    const traces = await Promise.all([readTrace(traceDir, pair.frontPid), readTrace(traceDir, pair.upstreamPid)]);
    breakdown(...traces, run).forEach(say);
  }
  removeTraceDir();
  const resultsDir = path.join(REPO_ROOT, 'bench/results');
  mkdirSync(resultsDir, { recursive: true });
  const file = freshResultPath(resultsDir, new Date().toISOString().slice(0, 10), `${commit}-probe-${mode}`);
  writeFileSync(file, `${out.join('\n')}\n`);
  process.stdout.write(`saved to ${path.relative(REPO_ROOT, file)}\n`);
}

main().then(
  async () => {
    await cleanupAll();
    process.exit(0);
  },
  async (e: Error) => {
    process.stderr.write(`probe failed: ${e.stack ?? e.message}\n`);
    await cleanupAll();
    process.exit(1);
  },
);
