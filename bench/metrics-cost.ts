// What recording request metrics costs: the same gets against two memory-backend gateways, one recording as it
// always does and one started with GATEHOUSE_REQUEST_METRICS=off (no request, filter or authentication metrics),
// measured in alternation so that a slow spell of the machine falls on both. The target: gets with metrics
// at 95% or more of gets without.
import { measure, runLoad, type Measured, type Target } from './load.js';
import { configMapJson } from './objects.js';
import { startGateway, type Gateway } from './processes.js';

export const METRICS_COST_TARGET = 0.95;
const ROUNDS = 3;
const SCENARIO_MS = 3_000;
const OBJECT = '/api/v1/namespaces/default/configmaps/metrics-cost';

export type MetricsCost = { ok: true; on: Measured[]; off: Measured[]; ratio: number } | { ok: false; reason: string };

/** The median rate: one slow or lucky spell of this small machine moves neither side. */
const median = (runs: Measured[]): number => {
  const rates = runs.map((run) => (run.ok ? run.result.perSecond : 0)).sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)] ?? 0;
};

export async function measureMetricsCost(say: (line: string) => void): Promise<MetricsCost> {
  const gateways: Gateway[] = [];
  try {
    for (const env of [process.env, { ...process.env, GATEHOUSE_REQUEST_METRICS: 'off' }]) {
      const started = await startGateway(['--storage-backend', 'memory'], env);
      if (!started.ok) return { ok: false, reason: started.reason };
      gateways.push(started.gateway);
    }
    const targets: Target[] = gateways.map((g) => ({ url: g.url, ca: g.ca, token: g.token }));
    const get = () => ({ method: 'GET', path: OBJECT });
    for (const target of targets) {
      const body = configMapJson('metrics-cost', 1024);
      const create = () => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body });
      await runLoad(target, { concurrency: 1, maxRequests: 1, maxMs: 5_000, expect: [201], request: create });
      // Long enough for the JIT to settle: the first seconds of a fresh gateway are markedly slower.
      await runLoad(target, { concurrency: 16, maxRequests: 100_000, maxMs: 3_000, request: get });
    }
    const on: Measured[] = [];
    const off: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Each side goes first in turn, so that neither always follows the other's garbage.
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) {
        const runs = i === 0 ? on : off;
        say(`  gets, 16 clients, request metrics ${i === 0 ? 'on' : 'off'} (round ${round + 1})`);
        runs.push(
          await measure(gateways[i].pid, () =>
            runLoad(targets[i], { concurrency: 16, maxRequests: 100_000, maxMs: SCENARIO_MS, request: get }),
          ),
        );
      }
    }
    const failed = [...on, ...off].find((run) => !run.ok);
    if (failed && !failed.ok) return { ok: false, reason: failed.reason };
    return { ok: true, on, off, ratio: median(on) / median(off) };
  } finally {
    for (const gateway of gateways) {
      await gateway.stop();
      gateway.removeDataDir();
    }
  }
}

export function formatMetricsCost(cost: MetricsCost): string[] {
  if (!cost.ok) return ['request metrics cost: not measured', `  ${cost.reason}`];
  const rates = (runs: Measured[]) => runs.map((run) => (run.ok ? run.result.perSecond.toFixed(0) : '-')).join(', ');
  const verdict = cost.ratio >= METRICS_COST_TARGET ? 'meets' : 'MISSES';
  return [
    'request metrics cost (memory backend, gets of one 1 KiB ConfigMap, 16 clients, median of each):',
    `  with metrics    ${rates(cost.on)} /s`,
    `  without         ${rates(cost.off)} /s`,
    `  ratio ${(cost.ratio * 100).toFixed(1)}%: ${verdict} the target of ${METRICS_COST_TARGET * 100}% or more`,
  ];
}
