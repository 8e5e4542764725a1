// How webhook clients wait between attempts, as upstream's webhook client backs off: each wait longer by a factor,
// stretched by a little jitter so that many servers that lost the same receiver do not retry in step, and cut short
// when the caller gives up.

export interface RetryBackoff {
  initialMs: number;
  factor: number;
  /** Each wait is stretched by up to this fraction. */
  jitter: number;
  /** Attempts in all (1 = no retry). */
  steps: number;
}

/** Upstream's default webhook retry backoff. */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

/** The wait before retry number `retry` (1 for the first retry), jitter included. */
export function backoffDelay(backoff: RetryBackoff, retry: number): number {
  return backoff.initialMs * backoff.factor ** (retry - 1) * (1 + Math.random() * backoff.jitter);
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
