// Batch mode (upstream's plugin/pkg/audit/buffered): events wait in a bounded buffer and leave in batches of at most
// maxSize, as soon as a batch is full or maxWait after its first event. A full buffer drops the event (counted and
// logged by onError) rather than make a request wait: in batch mode auditing never blocks request handling.
import type { AuditBackend } from './audit.js';

const CLOSE_WAIT_MS = 10_000;

export interface BatchSettings {
  bufferSize: number;
  maxSize: number;
  maxWaitMs: number;
}

export interface BatchSender {
  readonly name: string;
  /** Delivers one batch; rejects when it could not (after whatever retries it does). */
  send(lines: string[]): Promise<void>;
  close(): Promise<void>;
}

export function createBufferedBackend(
  sender: BatchSender,
  settings: BatchSettings,
  onError: (err: Error, events: number) => void,
): AuditBackend {
  const queue: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  let sending: Promise<void> | undefined;
  let closed = false;

  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const batch = queue.splice(0, settings.maxSize);
      await sender.send(batch).catch((e: Error) => onError(e, batch.length));
    }
  };
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    sending ??= drain().finally(() => {
      sending = undefined;
      // Events that came while the last batch was out start their own wait.
      if (queue.length > 0) schedule();
    });
  };
  const schedule = (): void => {
    if (queue.length >= settings.maxSize || settings.maxWaitMs === 0) return flush();
    timer ??= setTimeout(flush, settings.maxWaitMs);
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
      if (timer) clearTimeout(timer);
      timer = undefined;
      closed = true;
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
      let bound: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => (bound = setTimeout(resolve, CLOSE_WAIT_MS)))]);
      clearTimeout(bound);
      await sender.close();
      await drained;
    },
  };
}
