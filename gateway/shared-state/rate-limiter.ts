// The request-rate limits of --rate-limit-config: which limits a request counts against (its user, groups, service
// account and namespace against each limit's selectors) and whether each has a token for it. With Redis up, the
// buckets are shared by every replica; with Redis absent, down or slow, each replica enforces its share of every
// limit (rate and burst divided by --rate-limit-replicas) on its own buckets, so that the replicas together still
// admit about the configured rate.
import { createHash } from 'node:crypto';
import type { UserInfo } from '../../api/meta/user.js';
import type { SharedStateMetrics } from '../metrics/shared-state-metrics.js';
import type { Clock } from '../server/clock.js';
import type { SharedRedis } from './redis-client.js';
import type { RateLimit, RateLimitConfiguration } from './rate-limit-config.js';
import { createLocalBuckets, takeSharedTokens, type BucketSpec } from './token-bucket.js';

export const RATE_LIMIT_KEY_PREFIX = 'gatehouse:rate-limit:';

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

export type RateLimitVerdict = { admitted: true } | { admitted: false; limit: RateLimit; retryAfterSeconds: number };

export interface RateLimiter {
  admit(user: UserInfo, namespace: string): Promise<RateLimitVerdict>;
}

export function limitMatches(limit: RateLimit, user: UserInfo, namespace: string): boolean {
  if (limit.users.includes(user.name)) return true;
  if (namespace !== '' && limit.namespaces.includes(namespace)) return true;
  if (user.groups?.some((g) => limit.groups.includes(g))) return true;
  if (limit.serviceAccounts.length > 0 && user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) {
    const [ns, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
    return limit.serviceAccounts.some((sa) => sa.namespace === ns && (sa.name === undefined || sa.name === name));
  }
  return false;
}

/** One bucket per limit and distinguished value; the value is hashed, so no user name is readable in Redis. */
function bucketKey(limit: RateLimit, user: UserInfo, namespace: string): string {
  const by = limit.distinguisher === 'ByUser' ? user.name : limit.distinguisher === 'ByNamespace' ? namespace : '';
  return `${RATE_LIMIT_KEY_PREFIX}${limit.name}:${createHash('sha256').update(by).digest('hex')}`;
}

export function createRateLimiter(opts: {
  config: RateLimitConfiguration;
  replicas: number;
  redis?: SharedRedis;
  clock: Clock;
  metrics: SharedStateMetrics;
}): RateLimiter {
  const { config, replicas, redis, metrics } = opts;
  const local = createLocalBuckets(() => opts.clock.monotonic());
  const share = (b: BucketSpec): BucketSpec => ({
    key: b.key,
    rate: b.rate / replicas,
    // A share of less than one token would refuse every request.
    burst: Math.max(1, Math.floor(b.burst / replicas)),
  });
  return {
    async admit(user, namespace) {
      const matched = config.limits.filter((limit) => limitMatches(limit, user, namespace));
      if (matched.length === 0) return { admitted: true };
      const buckets = matched.map((limit) => ({
        key: bucketKey(limit, user, namespace),
        rate: limit.requestsPerSecond,
        burst: limit.burst,
      }));
      const verdict =
        (redis && (await redis.run('rate-limit', (client) => takeSharedTokens(client, buckets)))) ??
        local(buckets.map(share));
      if (verdict.admitted) {
        for (const limit of matched) metrics.rateLimited(limit.name, true);
        return verdict;
      }
      const limit = matched[verdict.index];
      metrics.rateLimited(limit.name, false);
      return { admitted: false, limit, retryAfterSeconds: verdict.retryAfterSeconds };
    },
  };
}
