// The priority-and-fairness scenario (test/helpers/apf-flood.ts, as the integration test runs it): over PostgreSQL,
// one user floods lists (pages of 250 of 500 ConfigMaps) 24 at a time while another does gets one after another;
// the getter's latencies idle and under the flood, sampled in alternating rounds, with APF on (the flooder's FlowSchema on a
// level of nominalConcurrencyShares 1) and off (the simple in-flight limits). In this process, as the test does:
// the flood runs in a worker thread, the getter and the gateway share this event loop.
import { percentile } from './load.js';
import { startBenchPostgres } from './baselines.js';
import { floodAndSample, startFloodGatehouse, type FloodSamples } from '../test/helpers/apf-flood.js';

export interface ApfSettings {
  rounds: number;
  perRound: number;
  concurrency: number;
  objects: number;
}

export const FULL_APF_SETTINGS: ApfSettings = { rounds: 10, perRound: 50, concurrency: 24, objects: 500 };
export const QUICK_APF_SETTINGS: ApfSettings = { rounds: 4, perRound: 40, concurrency: 24, objects: 500 };

type Side = FloodSamples;

export type ApfResult = { skipped: string } | { on: Side; off: Side };

export async function measureApf(say: (line: string) => void, settings: ApfSettings): Promise<ApfResult> {
  const started = await startBenchPostgres();
  if (!started.ok) return { skipped: `no PostgreSQL server: ${started.reason}` };
  const storage = ['--storage-backend', 'postgres', '--storage-url', started.server.url];
  try {
    const side = async (apf: boolean): Promise<Side> => {
      say(`apf: gateway with --enable-priority-and-fairness=${apf}`);
      const gh = await startFloodGatehouse({ apf, storage, seed: apf, objects: settings.objects });
      try {
        return await floodAndSample(gh, settings);
      } finally {
        await gh.close();
      }
    };
    // On first: it seeds the database the second gateway lists.
    const on = await side(true);
    const off = await side(false);
    return { on, off };
  } finally {
    await started.server.stop();
  }
}

const ms = (sorted: number[], p: number): string => `${percentile(sorted, p).toFixed(1)} ms`;

export function formatApf(result: ApfResult, settings: ApfSettings): string[] {
  const title = `API Priority and Fairness: gets by one user while another floods lists (postgres, pages of 250 of ${settings.objects} objects, ${settings.concurrency} lists at once; ${settings.rounds} x ${settings.perRound} gets idle and flooded, alternating)`;
  if ('skipped' in result) return [title, `  skipped: ${result.skipped}`];
  const row = (name: string, side: Side): string =>
    `  ${name.padEnd(8)} idle p50 ${ms(side.idle, 50)}, p99 ${ms(side.idle, 99)}; flooded p50 ${ms(side.flooded, 50)}, p99 ${ms(side.flooded, 99)}; ` +
    `flooder: ${side.counts.ok} lists served, ${side.counts.tooMany} refused (429), ${side.counts.other} failed`;
  const onP99 = percentile(result.on.flooded, 99);
  const idleP99 = percentile(result.on.idle, 99);
  const offP99 = percentile(result.off.flooded, 99);
  return [
    title,
    row('APF on', result.on),
    row('APF off', result.off),
    `  flooded p99 with APF: ${(onP99 / idleP99).toFixed(2)}x its idle p99 (target at most 3x: ${onP99 <= 3 * idleP99 ? 'met' : 'NOT met'}), ` +
      `${(onP99 / offP99).toFixed(2)}x the flooded p99 without APF`,
  ];
}
