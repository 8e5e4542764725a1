// How long a watch stays open, as kube-apiserver decides it: the requested timeoutSeconds, uncapped; unset or 0
// means a random time between --min-request-timeout and twice it (spreading the reconnects of many clients), and
// with --min-request-timeout=0 as well, never. Node's timers cannot hold such durations: past 2^31-1 ms one fires
// after 1 ms, which ended a watch asking for 2147484 seconds at once. Longer waits are chained timers.
import { performance } from 'node:perf_hooks';

/** The longest delay a Node timer keeps (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds a watch stays open; Infinity for never. */
export function watchDurationMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number, random: () => number = Math.random): number {
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) return timeoutSeconds * 1000;
  if (minRequestTimeoutSeconds <= 0) return Infinity;
  return minRequestTimeoutSeconds * 1000 * (1 + random());
}

/**
 * Calls `fire` after `ms` (Infinity: never), however long that is, through a chain of timers none longer than Node
 * keeps. The timers do not keep the process alive. Returns the cancellation.
 */
export function setLongTimeout(fire: () => void, ms: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const deadline = performance.now() + ms;
  const arm = (): void => {
    const left = deadline - performance.now();
    timer = left > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(fire, Math.max(0, left));
    timer.unref();
  };
  if (Number.isFinite(ms)) arm();
  return () => clearTimeout(timer);
}
