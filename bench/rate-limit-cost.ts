// What a rate limit checked in Redis costs a request: gets against two memory-backend gateways, both serving the same
// non-administrator bench user (administrators are never limited), one with a --rate-limit-config naming that user
// (a limit far above what the load reaches, so every request is admitted after its round trip to a redis-server on
// loopback) and one without, loaded at the same time in rounds (paired-cost.ts). The target: at most 0.5 ms
// more at p50 than without.
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REDIS_URL_ENV } from '../gateway/shared-state/flags.js';
import { startRedis } from '../test/helpers/redis.js';
import { trackCloser, trackDir } from './cleanup.js';
import type { Target } from './load.js';
import { FULL_COST_SETTINGS, type CostSettings } from './metrics-cost.js';
import { formatPairedCost, measurePairedCost, median, type PairedCost } from './paired-cost.js';

export const RATE_LIMIT_P50_TARGET_MS = 0.5;
const LABEL: [string, string] = ['rate-limited in Redis', 'without'];
const USER_TOKEN = 'bench-rate-limit-user-token-0123456789';

const describe = (s: CostSettings) =>
  `memory backend, gets of /api/v1/namespaces/default, 16 clients as a limited user, redis-server on loopback, ` +
  `${s.rounds} rounds of ${s.sliceMs / 1000} s, both gateways loaded at once`;

export async function measureRateLimitCost(
  say: (line: string) => void,
  settings = FULL_COST_SETTINGS,
): Promise<PairedCost> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-bench-rate-limit-'));
  const removeDir = trackDir(dir);
  let redis;
  try {
    redis = await startRedis();
  } catch (e) {
    removeDir();
    return { ok: false, reason: (e as Error).message };
  }
  const untrack = trackCloser(() => redis.stop());
  try {
    writeFileSync(path.join(dir, 'tokens.csv'), `${USER_TOKEN},bench-user,bench-user\n`);
    writeFileSync(
      path.join(dir, 'limits.yaml'),
      'apiVersion: gatehouse.platform.io/v1alpha1\nkind: RateLimitConfiguration\nlimits:\n' +
        '- {name: bench, users: [bench-user], requestsPerSecond: 1000000, burst: 1000000}\n',
    );
    const common = [
      '--storage-backend',
      'memory',
      '--authorization-mode',
      'AlwaysAllow',
      '--token-auth-file',
      path.join(dir, 'tokens.csv'),
    ];
    return await measurePairedCost({
      sides: [
        {
          flags: [...common, '--rate-limit-config', path.join(dir, 'limits.yaml')],
          env: { ...process.env, [REDIS_URL_ENV]: redis.url },
        },
        { flags: common },
      ],
      ...settings,
      concurrency: 16,
      warmMs: 3_000,
      // The load runs as the bench user, not the administrator the gateways hand the bench.
      setup: async (target: Target) => {
        target.token = USER_TOKEN;
      },
      request: () => () => ({ method: 'GET', path: '/api/v1/namespaces/default' }),
      expect: [200],
      say,
      label: LABEL,
    });
  } finally {
    untrack();
    await redis.stop();
    removeDir();
  }
}

export function formatRateLimitCost(cost: PairedCost, settings = FULL_COST_SETTINGS): string[] {
  const lines = formatPairedCost('rate limit cost', LABEL, cost, 0, describe(settings));
  if (!cost.ok) return lines;
  const p50 = (run: PairedCost & { ok: true }, i: number, side: 'with' | 'without') => {
    const measured = run[side][i];
    return measured.ok ? measured.result.p50 : NaN;
  };
  const deltas = cost.with.map((_, i) => p50(cost, i, 'with') - p50(cost, i, 'without'));
  const delta = median(deltas);
  const verdict = delta <= RATE_LIMIT_P50_TARGET_MS ? 'meets' : 'MISSES';
  // The throughput ratio has no target of its own here: the is on latency.
  lines[lines.length - 1] = lines[lines.length - 1].replace(/: (meets|MISSES) the target of 0% or more/, '');
  lines.push(
    `  p50 with the limit minus without, per round: ${deltas.map((d) => d.toFixed(3)).join(', ')} ms; median ` +
      `${delta.toFixed(3)} ms: ${verdict} the target of at most ${RATE_LIMIT_P50_TARGET_MS} ms`,
  );
  return lines;
}
