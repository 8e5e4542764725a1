// How long a watch stays open, as kube-apiserver decides it: the requested timeoutSeconds, uncapped; unset or 0
// means a random time between --min-request-timeout and twice it (spreading the reconnects of many clients), and
// with --min-request-timeout=0 as well, never. Node's timers cannot hold such durations: past 2^31-1 ms one fires
// after 1 ms, which ended a watch asking for 2147484 seconds at once. Longer waits are chained timers
// (gateway/server/long-timeout.ts).

/** Milliseconds a watch stays open; Infinity for never. */
export function watchDurationMs(
  timeoutSeconds: number | undefined,
  minRequestTimeoutSeconds: number,
  random: () => number = Math.random,
): number {
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) return timeoutSeconds * 1000;
  if (minRequestTimeoutSeconds <= 0) return Infinity;
  return minRequestTimeoutSeconds * 1000 * (1 + random());
}
