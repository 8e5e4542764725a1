// Reads a watch stream over real HTTPS as a client does: one JSON document per line, awaited event by event.
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';

export interface WatchEventJSON {
  type: string;
  object: {
    kind?: string;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string> };
    [k: string]: unknown;
  };
}

export interface OpenWatch {
  status: number;
  headers: IncomingHttpHeaders;
  /** Resolves with the next event; rejects when none arrives within timeoutMs or the stream ended. */
  next(timeoutMs?: number): Promise<WatchEventJSON>;
  /** Collects events until `count` arrived. */
  take(count: number, timeoutMs?: number): Promise<WatchEventJSON[]>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export function openWatch(
  baseUrl: string,
  path: string,
  opts: { ca: string | Buffer; token: string; headers?: Record<string, string> },
): Promise<OpenWatch> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, baseUrl);
    const req = https.request(
      url,
      { method: 'GET', ca: opts.ca, headers: { Authorization: `Bearer ${opts.token}`, ...opts.headers } },
      (res) => {
        const queue: WatchEventJSON[] = [];
        const waiters: { resolve: (e: WatchEventJSON) => void; reject: (e: Error) => void }[] = [];
        let buffered = '';
        let done = false;
        let endResolve: () => void = () => {};
        const ended = new Promise<void>((r) => {
          endResolve = r;
        });
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl).trim();
            buffered = buffered.slice(nl + 1);
            if (!line) continue;
            const event = JSON.parse(line) as WatchEventJSON;
            const waiter = waiters.shift();
            if (waiter) waiter.resolve(event);
            else queue.push(event);
          }
        });
        const finish = (): void => {
          if (buffered.trim()) {
            // A non-watch body (an error Status) arrives without a trailing newline.
            const event = { type: 'BODY', object: JSON.parse(buffered) };
            buffered = '';
            const waiter = waiters.shift();
            if (waiter) waiter.resolve(event);
            else queue.push(event);
          }
          done = true;
          for (const w of waiters.splice(0)) w.reject(new Error('watch stream ended'));
          endResolve();
        };
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
        const next = (timeoutMs = 5000): Promise<WatchEventJSON> => {
          const queued = queue.shift();
          if (queued) return Promise.resolve(queued);
          if (done) return Promise.reject(new Error('watch stream ended'));
          return new Promise((res2, rej2) => {
            const timer = setTimeout(() => {
              const i = waiters.findIndex((w) => w.resolve === wrapped.resolve);
              if (i >= 0) waiters.splice(i, 1);
              rej2(new Error(`no watch event within ${timeoutMs} ms`));
            }, timeoutMs);
            const wrapped = {
              resolve: (e: WatchEventJSON) => {
                clearTimeout(timer);
                res2(e);
              },
              reject: (e: Error) => {
                clearTimeout(timer);
                rej2(e);
              },
            };
            waiters.push(wrapped);
          });
        };
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          next,
          async take(count, timeoutMs = 5000) {
            const out: WatchEventJSON[] = [];
            while (out.length < count) out.push(await next(timeoutMs));
            return out;
          },
          ended,
          close: () => req.destroy(),
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
