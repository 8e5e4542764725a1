// What one feature costs: the same requests against two gateways started alike but for the feature, one with it and
// one without, in the same run. On this shared 2-core machine a 3 s measurement of one and then of the other moved
// their ratio by 40 points from run to run (85, 88, 126%), and even eight alternating rounds of 2 s each spread from
// 34 to 138% within one run (load average 7 to 10 from other work): whatever slowed the machine fell on one side of
// a pair. So the two are loaded at the same time, each with its own clients, in several rounds: a slow spell then
// falls on both, and the scheduler shares the cores between two busy gateways evenly, so their rates' ratio is that
// of their CPU per request. The median of the rounds' ratios is the figure, their spread beside it, and the gateways'
// CPU per request as a cross-check.
import { measure, runLoad, type Measured, type RequestSpec, type Target } from './load.js';
import { startGateway, type Gateway } from './processes.js';

export interface PairedSide {
  flags: string[];
  env?: NodeJS.ProcessEnv;
}

export interface PairedOptions {
  /** The gateway with the feature, then the one without. */
  sides: [PairedSide, PairedSide];
  rounds: number;
  sliceMs: number;
  concurrency: number;
  warmMs: number;
  /** Before the warm-up, on each gateway (objects to read back, the feature's configuration...). */
  setup?(target: Target, side: 0 | 1): Promise<void>;
  /** The i-th request of `side`'s slice in `round` (-1: the warm-up); requests must differ where names must. */
  request(round: number, side: 0 | 1): (i: number) => RequestSpec;
  expect: number[];
  say(line: string): void;
  label: [string, string];
}

export type PairedCost =
  | {
      ok: true;
      with: Measured[];
      without: Measured[];
      /** Each round's rate with the feature over its rate without. */
      ratios: number[];
      ratio: number;
      /** Each round's CPU per request without over with (so that, like the rate's, lower means costlier). */
      cpuRatios: number[];
      cpuRatio: number;
    }
  | { ok: false; reason: string };

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Gateway CPU microseconds per completed request of a slice. */
export const cpuPerRequest = (run: Measured): number =>
  run.ok && run.serverCpu !== undefined && run.result.perSecond > 0
    ? ((run.serverCpu / 100) * 1e6) / run.result.perSecond
    : NaN;

export async function measurePairedCost(opts: PairedOptions): Promise<PairedCost> {
  const gateways: Gateway[] = [];
  try {
    for (const side of opts.sides) {
      const started = await startGateway(side.flags, side.env ?? process.env);
      if (!started.ok) return { ok: false, reason: started.reason };
      gateways.push(started.gateway);
    }
    const targets: Target[] = gateways.map((g) => ({ url: g.url, ca: g.ca, token: g.token }));
    const slice = (side: 0 | 1, round: number, ms: number) =>
      runLoad(targets[side], {
        concurrency: opts.concurrency,
        maxRequests: 10_000_000,
        maxMs: ms,
        expect: opts.expect,
        request: opts.request(round, side),
      });
    for (const side of [0, 1] as const) await opts.setup?.(targets[side], side);
    // Long enough for the JIT to settle: the first seconds of a fresh gateway are markedly slower.
    await Promise.all(([0, 1] as const).map((side) => slice(side, -1, opts.warmMs)));
    const runs: [Measured[], Measured[]] = [[], []];
    for (let round = 0; round < opts.rounds; round++) {
      opts.say(`  ${opts.label[0]} and ${opts.label[1]} at once (round ${round + 1} of ${opts.rounds})`);
      const both = await Promise.all(
        ([0, 1] as const).map((side) => measure(gateways[side].pid, () => slice(side, round, opts.sliceMs))),
      );
      runs[0].push(both[0]);
      runs[1].push(both[1]);
    }
    const failed = [...runs[0], ...runs[1]].find((run) => !run.ok);
    if (failed && !failed.ok) return { ok: false, reason: failed.reason };
    const rate = (run: Measured) => (run.ok ? run.result.perSecond : NaN);
    const ratios = runs[0].map((run, i) => rate(run) / rate(runs[1][i]));
    const cpuRatios = runs[0].map((run, i) => cpuPerRequest(runs[1][i]) / cpuPerRequest(run));
    return {
      ok: true,
      with: runs[0],
      without: runs[1],
      ratios,
      ratio: median(ratios),
      cpuRatios,
      cpuRatio: median(cpuRatios.filter((r) => !Number.isNaN(r))),
    };
  } finally {
    for (const gateway of gateways) {
      await gateway.stop();
      gateway.removeDataDir();
    }
  }
}

const pct = (r: number) => `${(r * 100).toFixed(1)}%`;

export function formatPairedCost(
  title: string,
  label: [string, string],
  cost: PairedCost,
  target: number,
  settings: string,
): string[] {
  if (!cost.ok) return [`${title}: not measured`, `  ${cost.reason}`];
  const rates = (runs: Measured[]) => runs.map((run) => (run.ok ? run.result.perSecond.toFixed(0) : '-')).join(', ');
  const cpus = (runs: Measured[]) => runs.map((run) => cpuPerRequest(run).toFixed(0)).join(', ');
  const spread = (values: number[]) => `${pct(Math.min(...values))}-${pct(Math.max(...values))}`;
  const verdict = cost.ratio >= target ? 'meets' : 'MISSES';
  const width = Math.max(...label.map((l) => l.length));
  return [
    `${title} (${settings}):`,
    `  ${label[0].padEnd(width)}  ${rates(cost.with)} /s; gateway CPU ${cpus(cost.with)} µs/request`,
    `  ${label[1].padEnd(width)}  ${rates(cost.without)} /s; gateway CPU ${cpus(cost.without)} µs/request`,
    `  per-round rate ratios ${cost.ratios.map(pct).join(', ')} (spread ${spread(cost.ratios)})`,
    `  ratio (median of rounds) ${pct(cost.ratio)}: ${verdict} the target of ${target * 100}% or more; ` +
      `by CPU per request ${pct(cost.cpuRatio)} (spread ${spread(cost.cpuRatios)})`,
  ];
}
