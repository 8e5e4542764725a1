// What priority and fairness costs a request when nothing queues: gets against two memory-backend gateways serving
// the same non-administrator bench user (an administrator would be classified exempt and skip the queues), one with
// priority and fairness on (the default: classified by the bootstrap FlowSchemas into global-default, whose 49 seats
// the 16 clients never fill) and one with --enable-priority-and-fairness=false (the simple in-flight limiter), loaded
// at the same time in rounds (paired-cost.ts). The target: gets with it at 95% or more of gets without.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trackDir } from './cleanup.js';
import { configMapGets, FULL_COST_SETTINGS, type CostSettings } from './metrics-cost.js';
import { formatPairedCost, measurePairedCost, type PairedCost } from './paired-cost.js';

export const APF_COST_TARGET = 0.95;
const LABEL: [string, string] = ['priority and fairness', 'in-flight limiter'];
const USER_TOKEN = 'bench-apf-user-token-0123456789';

const describe = (s: CostSettings) =>
  `memory backend, gets of one 1 KiB ConfigMap, 16 clients as an authenticated non-administrator, ${s.rounds} ` +
  `rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

export async function measureApfCost(say: (line: string) => void, settings = FULL_COST_SETTINGS): Promise<PairedCost> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-apf-'));
  const removeDir = trackDir(dir);
  try {
    writeFileSync(path.join(dir, 'tokens.csv'), `${USER_TOKEN},bench-user,bench-user\n`);
    const common = [
      '--storage-backend',
      'memory',
      '--authorization-mode',
      'AlwaysAllow',
      '--token-auth-file',
      path.join(dir, 'tokens.csv'),
    ];
    const gets = configMapGets('apf-cost');
    return await measurePairedCost({
      sides: [{ flags: common }, { flags: [...common, '--enable-priority-and-fairness=false'] }],
      ...settings,
      concurrency: 16,
      warmMs: 3_000,
      ...gets,
      // The load runs as the bench user, not the administrator the gateways hand the bench.
      setup: async (target, side) => {
        target.token = USER_TOKEN;
        await gets.setup?.(target, side);
      },
      say,
      label: LABEL,
    });
  } finally {
    removeDir();
  }
}

export function formatApfCost(cost: PairedCost, settings = FULL_COST_SETTINGS): string[] {
  return formatPairedCost('priority and fairness cost', LABEL, cost, APF_COST_TARGET, describe(settings));
}
