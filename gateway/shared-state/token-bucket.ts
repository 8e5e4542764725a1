// Token buckets: one request takes one token from every bucket it is counted in, or from none. A bucket holds at most
// `burst` tokens and gains `rate` a second. The shared buckets live in Redis and are checked and taken by one Lua
// script, atomically (no other client runs between its read and its write), on the time of Redis itself (TIME), so
// the replicas' clocks need not agree. The local buckets are the same arithmetic in the process, for a replica
// without Redis.
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { UnexpectedRedisReply } from './redis-client.js';

export interface BucketSpec {
  key: string;
  rate: number;
  burst: number;
}

/** Admitted, or refused by the bucket at `index` (of those asked) with the seconds until it has a token again. */
export type BucketVerdict = { admitted: true } | { admitted: false; index: number; retryAfterSeconds: number };

// KEYS: the buckets; ARGV: rate and burst of each, in the order of KEYS. Answers {0, 0} when a token was taken from
// every bucket, else {i, µs}: the bucket that waits longest (1-based) and how long until it holds a whole token.
// Nothing is written on a refusal: a refused request costs no tokens.
export const TOKEN_BUCKET_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local levels = {}
local refused, wait = 0, 0
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens, at = tonumber(state[1]), tonumber(state[2])
  if tokens == nil or at == nil then tokens, at = burst, now end
  local elapsed = math.max(0, now - at)
  tokens = math.min(burst, tokens + elapsed * rate / 1000000)
  levels[i] = tokens
  if tokens < 1 then
    local needed = math.ceil((1 - tokens) * 1000000 / rate)
    if needed > wait then refused, wait = i, needed end
  end
end
if refused > 0 then return {refused, wait} end
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  redis.call('HSET', KEYS[i], 'tokens', levels[i] - 1, 'at', now)
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
end
return {0, 0}
`;

const SCRIPT_SHA = createHash('sha1').update(TOKEN_BUCKET_SCRIPT).digest('hex');

const secondsFromMicros = (micros: number): number => Math.max(1, Math.ceil(micros / 1_000_000));

/** Runs the script by its hash, loading it first when this Redis does not know it yet (a restart flushes scripts). */
export async function takeSharedTokens(client: Redis, buckets: readonly BucketSpec[]): Promise<BucketVerdict> {
  const keys = buckets.map((b) => b.key);
  const args = buckets.flatMap((b) => [String(b.rate), String(b.burst)]);
  let reply: unknown;
  try {
    reply = await client.evalsha(SCRIPT_SHA, keys.length, ...keys, ...args);
  } catch (e) {
    if (!/NOSCRIPT/.test((e as Error).message)) throw e;
    await client.script('LOAD', TOKEN_BUCKET_SCRIPT);
    reply = await client.evalsha(SCRIPT_SHA, keys.length, ...keys, ...args);
  }
  if (
    !Array.isArray(reply) ||
    reply.length !== 2 ||
    !reply.every((n) => typeof n === 'number' && Number.isInteger(n) && n >= 0) ||
    (reply[0] as number) > buckets.length
  )
    throw new UnexpectedRedisReply('an unexpected reply from the token bucket script');
  const [refused, micros] = reply as [number, number];
  if (refused === 0) return { admitted: true };
  return { admitted: false, index: refused - 1, retryAfterSeconds: secondsFromMicros(micros) };
}

/** The same buckets in the process, on `now` (monotonic milliseconds); entries go once full again. */
export function createLocalBuckets(now: () => number): (buckets: readonly BucketSpec[]) => BucketVerdict {
  const state = new Map<string, { tokens: number; at: number; fullAt: number }>();
  let lastSweep = now();
  return (buckets) => {
    const t = now();
    // A bucket left alone long enough is full again, the same as one never seen: dropped so that the map holds only
    // the buckets in use (one per user or namespace seen recently, not every one ever seen).
    if (t - lastSweep > 60_000) {
      lastSweep = t;
      for (const [key, entry] of state) if (entry.fullAt <= t) state.delete(key);
    }
    const levels = buckets.map((b) => {
      const entry = state.get(b.key);
      if (!entry) return b.burst;
      return Math.min(b.burst, entry.tokens + ((t - entry.at) * b.rate) / 1000);
    });
    let refused = -1;
    let wait = 0;
    levels.forEach((tokens, i) => {
      if (tokens >= 1) return;
      const needed = ((1 - tokens) * 1_000_000) / buckets[i].rate;
      if (needed > wait) [refused, wait] = [i, needed];
    });
    if (refused >= 0) return { admitted: false, index: refused, retryAfterSeconds: secondsFromMicros(wait) };
    buckets.forEach((b, i) => {
      const tokens = levels[i] - 1;
      state.set(b.key, { tokens, at: t, fullAt: t + ((b.burst - tokens) * 1000) / b.rate });
    });
    return { admitted: true };
  };
}
