// The webhook's decision cache: allow answers kept for authorizedTTL, deny/no-opinion answers for unauthorizedTTL
// (a TTL of 0 turns that side off), keyed by the whole review as sent. Bounded: the oldest entry goes first when full,
// so a stream of distinct requests cannot grow it without limit.
import { setBounded } from '../../api/meta/bounded-map.js';
import type { SarStatus } from './subject-access-review.js';

export interface DecisionCache {
  get(key: string): SarStatus | undefined;
  set(key: string, status: SarStatus): void;
}

export function createDecisionCache(
  authorizedTtlMs: number,
  unauthorizedTtlMs: number,
  maxEntries = 8192,
  now = Date.now,
): DecisionCache {
  const entries = new Map<string, { status: SarStatus; expires: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      if (entry.expires <= now()) {
        entries.delete(key);
        return undefined;
      }
      return entry.status;
    },
    set(key, status) {
      const ttl = status.allowed ? authorizedTtlMs : unauthorizedTtlMs;
      if (ttl <= 0) return;
      setBounded(entries, key, { status, expires: now() + ttl }, maxEntries);
    },
  };
}
