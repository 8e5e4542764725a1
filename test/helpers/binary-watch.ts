// A watch stream in a binary media type, split into events as bytes arrive: protobuf frames and CBOR sequences
// differ only in how a buffer is cut into events, which `split` does.
import https from 'node:https';

export interface WatchEvent {
  type: string;
  object: any;
}

export interface BinaryWatch {
  status: number;
  headers: Record<string, unknown>;
  /** The next event; rejects when none arrives within timeoutMs, the stream ended, or `split` refused its bytes. */
  next(timeoutMs?: number): Promise<WatchEvent>;
  close(): void;
}

/** Cuts the whole events off the front of `pending`; throws for bytes that can never become one. */
export type SplitEvents = (pending: Buffer) => { events: WatchEvent[]; rest: Buffer };

export function openBinaryWatch(
  baseUrl: string,
  urlPath: string,
  opts: { ca: string; token: string; accept: string; split: SplitEvents },
): Promise<BinaryWatch> {
  return new Promise((resolve, reject) => {
    const headers = { authorization: `Bearer ${opts.token}`, accept: opts.accept };
    const req = https.request(new URL(urlPath, baseUrl), { method: 'GET', ca: opts.ca, headers }, (res) => {
      const queue: WatchEvent[] = [];
      let waiter: (() => void) | undefined;
      let pending: Buffer = Buffer.alloc(0);
      let done = false;
      let failure: Error | undefined;
      res.on('data', (chunk: Buffer) => {
        try {
          const { events, rest } = opts.split(Buffer.concat([pending, chunk]));
          pending = rest;
          queue.push(...events);
        } catch (e) {
          failure = e as Error;
        }
        waiter?.();
      });
      res.on('close', () => {
        done = true;
        waiter?.();
      });
      const next = async (timeoutMs = 5000): Promise<WatchEvent> => {
        const deadline = Date.now() + timeoutMs;
        while (queue.length === 0) {
          if (failure) throw failure;
          if (done) throw new Error('watch stream ended');
          const left = deadline - Date.now();
          if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
          await new Promise<void>((r) => {
            const timer = setTimeout(r, left);
            waiter = () => {
              clearTimeout(timer);
              r();
            };
          });
          waiter = undefined;
        }
        return queue.shift()!;
      };
      resolve({ status: res.statusCode ?? 0, headers: res.headers, next, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
