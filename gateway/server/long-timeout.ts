// Timers for waits longer than Node keeps: past 2^31-1 ms a timer fires after 1 ms. A watch may ask for more
// (timeoutSeconds uncapped, as upstream), and event and token expiries can lie further out.
import { performance } from 'node:perf_hooks';

/** The longest delay a Node timer keeps (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

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
