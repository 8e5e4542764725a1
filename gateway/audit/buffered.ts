// Batch mode (upstream's plugin/pkg/audit/buffered): events wait in a bounded buffer and leave in batches of at most
// maxSize, as soon as a batch is full or maxWait after its first event. A full buffer drops the event (counted and
// logged by onError) rather than make a request wait: in batch mode auditing never blocks request handling. With a
// throttle, batches leave at most qps a second on average (burst at once after a quiet spell), as upstream's token
// bucket lets them; what comes meanwhile waits in the buffer.
import type { AuditBackend } from './audit.js';
import { realClock, type Clock } from '../server/clock.js';

const CLOSE_WAIT_MS = 10_000;

export interface BatchSettings {
  bufferSize: number;
  maxSize: number;
  maxWaitMs: number;
  throttle?: { qps: number; burst: number };
  /** Bytes of lines in one batch (truncation's batch bound); a single longer line still goes alone. */
  maxBatchBytes?: number;
}

export interface BatchSender {
  readonly name: string;
  /** Delivers one batch; rejects when it could not (after whatever retries it does). */
  send(lines: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * golang.org/x/time/rate's reservation, which upstream's throttle waits on: full at the start, refilled at `qps`,
 * and a batch that finds it empty reserves the next token and waits for it.
 */
function tokenBucket(qps: number, burst: number, clock: Clock): () => number {
  let tokens = burst;
  let last = clock.monotonic();
  return () => {
    const now = clock.monotonic();
    tokens = Math.min(burst, tokens + ((now - last) * qps) / 1000);
    last = now;
    tokens -= 1;
    return tokens >= 0 ? 0 : (-tokens * 1000) / qps;
  };
}

function takeBatch(queue: string[], settings: BatchSettings): string[] {
  const limit = settings.maxBatchBytes;
  if (limit === undefined) return queue.splice(0, settings.maxSize);
  let bytes = Buffer.byteLength(queue[0]);
  let n = 1;
  while (n < queue.length && n < settings.maxSize) {
    const next = Buffer.byteLength(queue[n]);
    if (bytes + next > limit) break;
    bytes += next;
    n++;
  }
  return queue.splice(0, n);
}

export function createBufferedBackend(
  sender: BatchSender,
  settings: BatchSettings,
  onError: (err: Error, events: number) => void,
  clock: Clock = realClock,
): AuditBackend {
  const queue: string[] = [];
  let cancelTimer: (() => void) | undefined;
  let sending: Promise<void> | undefined;
  let closed = false;
  const reserve = settings.throttle && tokenBucket(settings.throttle.qps, settings.throttle.burst, clock);

  // A throttled batch's wait, which closing cuts short: the shutdown has its own bound.
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const cancel = clock.setTimeout(() => wake?.(), ms);
      wake = () => {
        cancel();
        wake = undefined;
        resolve();
      };
    });
  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      // A shutdown sends what is left without waiting its turn.
      const wait = reserve && !closed ? reserve() : 0;
      if (wait > 0) await pause(wait);
      const batch = takeBatch(queue, settings);
      await sender.send(batch).catch((e: Error) => onError(e, batch.length));
    }
  };
  const flush = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
    sending ??= drain().finally(() => {
      sending = undefined;
      // Events that came while the last batch was out start their own wait.
      if (queue.length > 0) schedule();
    });
  };
  const schedule = (): void => {
    if (queue.length >= settings.maxSize || settings.maxWaitMs === 0) return flush();
    cancelTimer ??= clock.setTimeout(flush, settings.maxWaitMs);
  };

  return {
    name: sender.name,
    write(line) {
      if (closed || queue.length >= settings.bufferSize) {
        onError(new Error(closed ? 'the audit backend is closed' : 'audit buffer queue blocked'), 1);
        return;
      }
      queue.push(line);
      if (!sending) schedule();
    },
    async close() {
      cancelTimer?.();
      cancelTimer = undefined;
      closed = true;
      wake?.();
      const drained = (async () => {
        for (;;) {
          if (!sending) {
            if (queue.length === 0) return;
            flush();
          }
          await sending;
        }
      })();
      // What is buffered still goes out, for a while: a receiver that is down must not hold the shutdown, so then
      // the sender closes (ending its retries) and what is left fails at once, counted.
      let cancelBound: (() => void) | undefined;
      await Promise.race([
        drained,
        new Promise<void>((resolve) => (cancelBound = clock.setTimeout(resolve, CLOSE_WAIT_MS))),
      ]);
      cancelBound?.();
      await sender.close();
      await drained;
    },
  };
}
