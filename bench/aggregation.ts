// What the aggregation proxy adds: the same requests sent through a front Gatehouse to an upstream Gatehouse
// (aggregation-pair.ts) and straight to that upstream, in the same run and at the same time, so that a slow spell of
// this shared machine falls on both sides (the reasoning of paired-cost.ts). The issue's targets: a proxied GET of one
// object at 60% or more of the direct rate, and watch delivery through the front at most 2 ms later at p99 than
// direct, with 100 watchers on each side.
//
// Unlike paired-cost.ts, the two sides share a server: the proxied requests load the upstream too. The rate ratio of
// one round is therefore that of two closed loops sharing the upstream; the CPU cross-check splits the upstream's CPU
// evenly per request (a proxied GET costs it what a direct one does) and adds the front's.
import { performance } from 'node:perf_hooks';
import { cpuPerRequest, median } from './paired-cost.js';
import { cpuSeconds } from './processes.js';
import { measure, runLoad, type Measured, type Target } from './load.js';
import { eventJson, GROUP_VERSION, startAggregationPair } from './aggregation-pair.js';
import { runWatch, type WatchResult } from './watch-load.js';
import { WATCH_SCENARIO } from './scenarios.js';

export const GET_TARGET = 0.6;
export const WATCH_P99_TARGET_MS = 2;
const WATCHERS = 100;
const OBJECT = `${GROUP_VERSION}/namespaces/bench/events/agg-get`;

export interface AggregationSettings {
  rounds: number;
  sliceMs: number;
}

export const FULL_AGGREGATION_SETTINGS: AggregationSettings = { rounds: 8, sliceMs: 3_000 };
export const QUICK_AGGREGATION_SETTINGS: AggregationSettings = { rounds: 4, sliceMs: 2_000 };

export interface AggregationResult {
  viaFront: Measured[];
  direct: Measured[];
  /** CPU percent of one core the upstream used in each round, for the cross-check. */
  upstreamCpu: number[];
  ratios: number[];
  cpuRatios: number[];
  watchFront: WatchResult;
  watchDirect: WatchResult;
}

export type AggregationOutcome = { ok: true; result: AggregationResult } | { ok: false; reason: string };

const slice = (target: Target, ms: number) =>
  runLoad(target, {
    concurrency: 16,
    maxRequests: 10_000_000,
    maxMs: ms,
    expect: [200],
    request: () => ({ method: 'GET', path: OBJECT }),
  });

async function createNamespace(direct: Target, name: string): Promise<void> {
  const body = `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${name}"}}`;
  const request = () => ({ method: 'POST', path: '/api/v1/namespaces', body });
  await runLoad(direct, { concurrency: 1, maxRequests: 1, maxMs: 10_000, expect: [201], request });
}

export async function measureAggregation(
  say: (line: string) => void,
  settings = FULL_AGGREGATION_SETTINGS,
): Promise<AggregationOutcome> {
  let pair;
  try {
    pair = await startAggregationPair();
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  try {
    const { viaFront, direct, front, upstream } = pair;
    const create = () => ({
      method: 'POST',
      path: `${GROUP_VERSION}/namespaces/bench/events`,
      body: eventJson('bench', 'agg-get'),
    });
    await runLoad(direct, { concurrency: 1, maxRequests: 1, maxMs: 10_000, expect: [201], request: create });
    // Long enough for the JIT of all three processes to settle.
    await Promise.all([slice(viaFront, 3_000), slice(direct, 3_000)]);
    const viaRuns: Measured[] = [];
    const directRuns: Measured[] = [];
    const upstreamCpu: number[] = [];
    for (let round = 0; round < settings.rounds; round++) {
      say(`  GETs through the front and direct at once (round ${round + 1} of ${settings.rounds})`);
      const cpu0 = cpuSeconds(upstream.pid);
      const t0 = performance.now();
      const [via, dir] = await Promise.all([
        measure(front.pid, () => slice(viaFront, settings.sliceMs)),
        measure(undefined, () => slice(direct, settings.sliceMs)),
      ]);
      const up = { serverCpu: ((cpuSeconds(upstream.pid) - cpu0) / ((performance.now() - t0) / 1000)) * 100 };
      if (!via.ok) return { ok: false, reason: `through the front: ${via.reason}` };
      if (!dir.ok) return { ok: false, reason: `direct: ${dir.reason}` };
      viaRuns.push(via);
      directRuns.push(dir);
      upstreamCpu.push(up.serverCpu);
    }
    const rate = (run: Measured) => (run.ok ? run.result.perSecond : NaN);
    const ratios = viaRuns.map((run, i) => rate(run) / rate(directRuns[i]));
    const cpuRatios = viaRuns.map((run, i) => {
      const upstreamPerRequest = ((upstreamCpu[i] / 100) * 1e6) / (rate(run) + rate(directRuns[i]));
      return upstreamPerRequest / (upstreamPerRequest + cpuPerRequest(run));
    });

    say(`  watch delivery: ${WATCHERS} watchers through the front and ${WATCHERS} direct, at once`);
    await createNamespace(direct, 'agg-watch-front');
    await createNamespace(direct, 'agg-watch-direct');
    const watchOf = (namespace: string) => ({
      ...WATCH_SCENARIO,
      watchers: WATCHERS,
      transport: 'http1' as const,
      namespace,
      kind: {
        collection: `${GROUP_VERSION}/namespaces/${namespace}/events`,
        body: (name: string) => eventJson(namespace, name),
      },
      writeTarget: direct,
    });
    const [watchFront, watchDirect] = await Promise.all([
      runWatch(viaFront, watchOf('agg-watch-front')),
      runWatch(direct, watchOf('agg-watch-direct')),
    ]);
    return {
      ok: true,
      result: { viaFront: viaRuns, direct: directRuns, upstreamCpu, ratios, cpuRatios, watchFront, watchDirect },
    };
  } finally {
    await pair.stop();
  }
}

const pct = (r: number) => `${(r * 100).toFixed(1)}%`;
const ms = (v: number) => `${v.toFixed(2)} ms`;

export function formatAggregation(outcome: AggregationOutcome, settings = FULL_AGGREGATION_SETTINGS): string[] {
  const title =
    `aggregation proxy (front and upstream Gatehouses on the memory backend, HTTP/1.1 clients; GETs of one ` +
    `events.k8s.io/v1 Event, 16 clients a side, ${settings.rounds} rounds of ${settings.sliceMs / 1000} s, both sides at once)`;
  if (!outcome.ok) return [`${title}: not measured`, `  ${outcome.reason}`];
  const r = outcome.result;
  const rates = (runs: Measured[]) => runs.map((run) => (run.ok ? run.result.perSecond.toFixed(0) : '-')).join(', ');
  const p99s = (runs: Measured[]) => runs.map((run) => (run.ok ? run.result.p99.toFixed(1) : '-')).join(', ');
  const spread = (values: number[]) => `${pct(Math.min(...values))}-${pct(Math.max(...values))}`;
  const ratio = median(r.ratios);
  const cpuRatio = median(r.cpuRatios.filter((v) => !Number.isNaN(v)));
  const watchLine = (label: string, w: WatchResult) =>
    `  watch ${label}: p50 ${ms(w.p50)}, p99 ${ms(w.p99)}, max ${ms(w.max)}; ${w.delivered}/${w.expected} delivered` +
    `${w.duplicates ? `, ${w.duplicates} duplicates` : ''}${w.problems ? `, ${w.problems} problems (${w.problemSamples.join('; ')})` : ''}`;
  const added = r.watchFront.p99 - r.watchDirect.p99;
  return [
    `${title}:`,
    `  through the front  ${rates(r.viaFront)} /s; p99 ${p99s(r.viaFront)} ms; front CPU ${r.viaFront.map((m) => cpuPerRequest(m).toFixed(0)).join(', ')} µs/request`,
    `  direct             ${rates(r.direct)} /s; p99 ${p99s(r.direct)} ms; upstream CPU ${r.upstreamCpu.map((c) => c.toFixed(0)).join(', ')} % of a core`,
    `  per-round rate ratios ${r.ratios.map(pct).join(', ')} (spread ${spread(r.ratios)})`,
    `  GET ratio (median of rounds) ${pct(ratio)}: ${ratio >= GET_TARGET ? 'meets' : 'MISSES'} the target of ` +
      `${GET_TARGET * 100}% or more; by CPU per request ${pct(cpuRatio)} (spread ${spread(r.cpuRatios)})`,
    `  watch: ${WATCHERS} HTTP/1.1 watchers a side, writes straight to the upstream at ${WATCH_SCENARIO.eventsPerSecond} ev/s, ` +
      `${WATCH_SCENARIO.durationMs / 1000} s after ${WATCH_SCENARIO.warmupMs / 1000} s of warm-up`,
    watchLine('through the front', r.watchFront),
    watchLine('direct           ', r.watchDirect),
    `  the front adds ${ms(added)} at p99: ${added <= WATCH_P99_TARGET_MS ? 'meets' : 'MISSES'} the target of at most ${WATCH_P99_TARGET_MS} ms`,
  ];
}
