// One log line per interval for events that come in floods (refused connections, streams the client reset): the
// first one is told at once, the rest are counted and told as one line when the interval is over. A line per event
// would let any client fill the log.
import { performance } from 'node:perf_hooks';

export interface SummaryLog {
  /** One more event. */
  note(): void;
  /** Drops what is still counted and the pending line's timer (the server is closing). */
  close(): void;
}

/** `describe(count, first)`: the line for the first event (count 1, first true) or for `count` later ones. */
export function createSummaryLog(
  log: (line: string) => void,
  describe: (count: number, first: boolean) => string,
  intervalMs = 60_000,
): SummaryLog {
  let counted = 0;
  let quietUntil = -Infinity;
  let timer: NodeJS.Timeout | undefined;

  function flush(): void {
    timer = undefined;
    if (counted === 0) return;
    log(describe(counted, false));
    counted = 0;
    quietUntil = performance.now() + intervalMs;
  }

  return {
    note() {
      const now = performance.now();
      if (timer === undefined && now >= quietUntil) {
        log(describe(1, true));
        quietUntil = now + intervalMs;
        return;
      }
      counted++;
      if (timer === undefined) {
        timer = setTimeout(flush, Math.max(0, quietUntil - now));
        // A pending summary must not keep an otherwise finished process alive.
        timer.unref();
      }
    },
    close() {
      clearTimeout(timer);
      timer = undefined;
      counted = 0;
    },
  };
}
