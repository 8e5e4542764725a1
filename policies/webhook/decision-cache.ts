// The webhook's decision cache: allow answers kept for authorizedTTL, deny/no-opinion answers for unauthorizedTTL
// (a TTL of 0 turns that side off), keyed by the whole review as sent. Bounded: the oldest entry goes first when full,
// so a stream of distinct requests cannot grow it without limit.
//
// With several replicas a second cache may sit behind this one, shared by all of them (SharedDecisions, which the
// gateway backs with Redis): this one is asked first, then the shared one, then the webhook.
import { createHash } from 'node:crypto';
import { setBounded } from '../../api/meta/bounded-map.js';
import type { SarStatus } from './subject-access-review.js';

export interface DecisionCache {
  get(key: string): SarStatus | undefined;
  /** Kept for the TTL of its kind of answer, or for `ttlMs` when given (what a shared entry has left). */
  set(key: string, status: SarStatus, ttlMs?: number): void;
  ttlFor(status: SarStatus): number;
}

/** A cache every replica reads and writes. Implementations bound their own waiting and never reject. */
export interface SharedDecisions {
  /** The decision stored under `key` and the milliseconds it has left; undefined when none, or unreachable. */
  get(key: string): Promise<{ status: SarStatus; ttlMs: number } | undefined>;
  /** Stores the decision for `ttlMs`; the caller does not wait for it. */
  set(key: string, status: SarStatus, ttlMs: number): void;
}

/**
 * The shared key of a review: a hash of the webhook it goes to and the review as sent, so that no user name, group or
 * resource is readable in the shared store, and two webhooks asked the same question keep their own answers.
 */
export function sharedDecisionKey(webhookName: string, server: string, review: unknown): string {
  return createHash('sha256')
    .update(`${webhookName}\n${server}\n${JSON.stringify(review)}`)
    .digest('hex');
}

export function createDecisionCache(
  authorizedTtlMs: number,
  unauthorizedTtlMs: number,
  maxEntries = 8192,
  now = Date.now,
): DecisionCache {
  const entries = new Map<string, { status: SarStatus; expires: number }>();
  const ttlFor = (status: SarStatus): number => (status.allowed ? authorizedTtlMs : unauthorizedTtlMs);
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
    set(key, status, ttlMs) {
      const ttl = Math.min(ttlFor(status), ttlMs ?? Infinity);
      if (ttl <= 0) return;
      setBounded(entries, key, { status, expires: now() + ttl }, maxEntries);
    },
    ttlFor,
  };
}
