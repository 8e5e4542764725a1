// The authorization webhooks' decision cache shared by the replicas, in Redis: with N replicas behind a load
// balancer a decision is asked of the webhook once, not N times. Keys are a prefix and the hash the authorizer makes
// of the review (no user data in the clear); values are the decision; each entry expires with its TTL (PX), set by
// the replica that asked the webhook. A read waits at most --redis-timeout; a write is not waited for.
import type { SharedDecisions } from '../../policies/webhook/decision-cache.js';
import type { SarStatus } from '../../policies/webhook/subject-access-review.js';
import { UnexpectedRedisReply, type SharedRedis } from './redis-client.js';

export const DECISION_KEY_PREFIX = 'gatehouse:authz-decision:';

function decodeStatus(text: string): SarStatus {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UnexpectedRedisReply('a shared decision that is not JSON');
  }
  const v = value as Partial<Record<keyof SarStatus, unknown>>;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof v.allowed !== 'boolean' ||
    typeof v.denied !== 'boolean' ||
    typeof v.reason !== 'string' ||
    typeof v.evaluationError !== 'string'
  )
    throw new UnexpectedRedisReply('a shared decision of an unknown shape');
  return { allowed: v.allowed, denied: v.denied, reason: v.reason, evaluationError: v.evaluationError };
}

export function createSharedDecisions(redis: SharedRedis): SharedDecisions {
  return {
    get: (key) =>
      redis.run('decision-get', async (client) => {
        const [[getError, text], [ttlError, ttl]] = ((await client
          .multi()
          .get(DECISION_KEY_PREFIX + key)
          .pttl(DECISION_KEY_PREFIX + key)
          .exec()) ?? []) as [Error | null, unknown][];
        const failed = getError ?? ttlError;
        if (failed) throw failed;
        if (text === null) return undefined;
        if (typeof text !== 'string' || typeof ttl !== 'number')
          throw new UnexpectedRedisReply('an unexpected reply to GET and PTTL');
        // -1 (no expiry) is not something this cache writes: the entry is not ours to trust forever.
        if (ttl <= 0) return undefined;
        return { status: decodeStatus(text), ttlMs: ttl };
      }),
    set(key, status, ttlMs) {
      void redis.run('decision-set', (client) =>
        client.set(DECISION_KEY_PREFIX + key, JSON.stringify(status), 'PX', Math.ceil(ttlMs)),
      );
    },
  };
}
