// What the state shared through Redis does: whether Redis answers, its failures by operation, the requests served
// from the replica's own state instead (fallbacks), and the rate limits' admissions and refusals. Gatehouse's own
// names: kube-apiserver has no shared state of this kind.
import type { MetricsRegistry } from './registration.js';

/** The operations the shared-state modules run against Redis (the `operation` label). */
export type RedisOperation = 'ping' | 'decision-get' | 'decision-set' | 'rate-limit';

export interface SharedStateMetrics {
  redisUp(up: boolean): void;
  redisError(operation: RedisOperation): void;
  fallback(operation: RedisOperation): void;
  rateLimited(limit: string, admitted: boolean): void;
}

/** The Redis series exist only with `redis` (--redis-url): a replica without Redis reports no Redis down. */
export function createSharedStateMetrics(registry: MetricsRegistry, opts: { redis: boolean }): SharedStateMetrics {
  const redis = opts.redis ? registerRedisMetrics(registry) : undefined;
  const requests = registry.counter({
    name: 'gatehouse_rate_limit_requests_total',
    help: 'Requests checked against a rate limit of --rate-limit-config, by limit and result (admitted, rejected).',
    stability: 'ALPHA',
    labelNames: ['limit', 'result'],
  });
  const rejected = registry.counter({
    name: 'gatehouse_rate_limit_rejected_requests_total',
    help: 'Requests answered 429 by a rate limit of --rate-limit-config, by limit.',
    stability: 'ALPHA',
    labelNames: ['limit'],
  });
  return {
    redisUp: (value) => redis?.up.set(value ? 1 : 0),
    redisError: (operation) => redis?.errors.inc({ operation }),
    fallback: (operation) => redis?.fallbacks.inc({ operation }),
    rateLimited(limit, admitted) {
      requests.inc({ limit, result: admitted ? 'admitted' : 'rejected' });
      if (!admitted) rejected.inc({ limit });
    },
  };
}

function registerRedisMetrics(registry: MetricsRegistry) {
  return {
    up: registry.gauge({
      name: 'gatehouse_redis_up',
      help: '1 while Redis (--redis-url) answers within --redis-timeout, 0 while the replica runs on its own state.',
      stability: 'ALPHA',
    }),
    errors: registry.counter({
      name: 'gatehouse_redis_errors_total',
      help: 'Redis commands that failed, timed out or answered something unexpected, by operation.',
      stability: 'ALPHA',
      labelNames: ['operation'],
    }),
    fallbacks: registry.counter({
      name: 'gatehouse_redis_fallbacks_total',
      help: "Operations answered from the replica's own state because Redis was down, slow or answered garbage.",
      stability: 'ALPHA',
      labelNames: ['operation'],
    }),
  };
}
