// Starts what the replicas share through Redis (--redis-url) and the rate limits (--rate-limit-config), for main.ts:
// the webhook decisions the authorization chain shares, the rate-limit filter app.ts places in the chain, and the
// `redis` readiness check, which reports a degraded Redis without failing: a replica on its own state still serves.
import type Koa from 'koa';
import type { SharedDecisions } from '../../policies/webhook/decision-cache.js';
import { createRateLimitFilter } from '../filters/rate-limit.js';
import type { HealthChecks } from '../handlers/health.js';
import type { MetricsRegistry } from '../metrics/registration.js';
import { createSharedStateMetrics } from '../metrics/shared-state-metrics.js';
import type { Clock } from '../server/clock.js';
import type { SharedStateOptions } from './flags.js';
import { createRateLimiter } from './rate-limiter.js';
import { connectSharedRedis, type SharedRedis } from './redis-client.js';
import { createSharedDecisions } from './shared-decisions.js';

export interface SharedState {
  /** With --redis-url. */
  sharedDecisions?: SharedDecisions;
  /** With --rate-limit-config. */
  rateLimit?: Koa.Middleware;
  close(): Promise<void>;
}

export async function startSharedState(
  options: SharedStateOptions,
  deps: { health: HealthChecks; metrics: MetricsRegistry; clock: Clock; log: (line: string) => void },
): Promise<SharedState> {
  const metrics = createSharedStateMetrics(deps.metrics, { redis: options.redisUrl !== undefined });
  let redis: SharedRedis | undefined;
  if (options.redisUrl !== undefined) {
    redis = await connectSharedRedis({
      url: options.redisUrl,
      timeoutMs: options.redisTimeoutMs,
      metrics,
      clock: deps.clock,
      log: deps.log,
    });
    const shared = redis;
    deps.health.addReadyz({ name: 'redis', check: async () => (shared.state === 'up' ? undefined : 'degraded') });
  }
  const limiter =
    options.rateLimits &&
    createRateLimiter({
      config: options.rateLimits,
      replicas: options.rateLimitReplicas,
      redis,
      clock: deps.clock,
      metrics,
    });
  return {
    sharedDecisions: redis && createSharedDecisions(redis),
    rateLimit: limiter && createRateLimitFilter(limiter),
    close: async () => redis?.close(),
  };
}
