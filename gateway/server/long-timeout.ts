// Timers for waits longer than Node keeps: past 2^31-1 ms a timer fires after 1 ms. A watch may ask for more
// (timeoutSeconds uncapped, as upstream), and event and token expiries can lie further out.
import { performance } from 'node:perf_hooks';

/** The longest delay a Node timer keeps (about 24.8 days). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** What setLongTimeout arms its timers with: Node's, unless a test watches what is asked of them. */
export interface TimerHost {
  setTimeout(fire: () => void, ms: number): { unref(): unknown };
  clearTimeout(timer: { unref(): unknown } | undefined): void;
  /** Monotonic milliseconds. */
  now(): number;
}

const nodeTimers: TimerHost = {
  setTimeout: (fire, ms) => setTimeout(fire, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
  now: () => performance.now(),
};

/**
 * Calls `fire` after `ms` (Infinity: never), however long that is, through a chain of timers none longer than Node
 * keeps. The timers do not keep the process alive. Returns the cancellation.
 */
export function setLongTimeout(fire: () => void, ms: number, timers: TimerHost = nodeTimers): () => void {
  let timer: { unref(): unknown } | undefined;
  const deadline = timers.now() + ms;
  const arm = (): void => {
    const left = deadline - timers.now();
    timer = left > MAX_TIMER_MS ? timers.setTimeout(arm, MAX_TIMER_MS) : timers.setTimeout(fire, Math.max(0, left));
    timer.unref();
  };
  if (Number.isFinite(ms)) arm();
  return () => timers.clearTimeout(timer);
}
