// What recording request metrics costs: the same gets against two memory-backend gateways, one recording as it
// always does and one started with GATEHOUSE_REQUEST_METRICS=off (no request, filter or authentication metrics),
// loaded at the same time in rounds (paired-cost.ts). The target: gets with metrics at 95% or more of gets
// without.
import { configMapJson } from './objects.js';
import { runLoad } from './load.js';
import { formatPairedCost, measurePairedCost, type PairedCost, type PairedOptions } from './paired-cost.js';

export const METRICS_COST_TARGET = 0.95;
const LABEL: [string, string] = ['with metrics', 'without'];

export interface CostSettings {
  rounds: number;
  sliceMs: number;
}

/** Eight rounds of 3 s: 24 s of requests a side, both sides of a round under the same conditions. */
export const FULL_COST_SETTINGS: CostSettings = { rounds: 8, sliceMs: 3_000 };

/** Gets of one 1 KiB ConfigMap `name` in `default`, created on each side before the rounds. */
export function configMapGets(name: string): Pick<PairedOptions, 'setup' | 'request' | 'expect'> {
  return {
    setup: async (target) => {
      const body = configMapJson(name, 1024);
      const create = () => ({ method: 'POST', path: '/api/v1/namespaces/default/configmaps', body });
      await runLoad(target, { concurrency: 1, maxRequests: 1, maxMs: 5_000, expect: [201], request: create });
    },
    request: () => () => ({ method: 'GET', path: `/api/v1/namespaces/default/configmaps/${name}` }),
    expect: [200],
  };
}

const describe = (s: CostSettings) =>
  `memory backend, gets of one 1 KiB ConfigMap, 16 clients, ${s.rounds} rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

export function measureMetricsCost(say: (line: string) => void, settings = FULL_COST_SETTINGS): Promise<PairedCost> {
  return measurePairedCost({
    sides: [
      { flags: ['--storage-backend', 'memory'] },
      { flags: ['--storage-backend', 'memory'], env: { ...process.env, GATEHOUSE_REQUEST_METRICS: 'off' } },
    ],
    ...settings,
    concurrency: 16,
    warmMs: 3_000,
    ...configMapGets('metrics-cost'),
    say,
    label: LABEL,
  });
}

export function formatMetricsCost(cost: PairedCost, settings = FULL_COST_SETTINGS): string[] {
  return formatPairedCost('request metrics cost', LABEL, cost, METRICS_COST_TARGET, describe(settings));
}
