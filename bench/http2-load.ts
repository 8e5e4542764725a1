// GET throughput over HTTP/2 as kubectl and client-go produce it: every request a stream on one TLS connection, N
// of them in flight. The streams go through the raw frame client of the watch scenarios (raw-http2.ts): node:http2's
// own client spent more CPU per request than the bare server, so it would have measured itself.
import { isLoopback, runOps, type LoadOptions, type LoadResult, type Target } from './load.js';
import { createRawHttp2Pool } from './raw-http2.js';

/** `concurrency` GETs in flight on one HTTP/2 connection, each starting when one before it finished. */
export async function runHttp2Gets(target: Target, opts: LoadOptions): Promise<LoadResult> {
  if (!isLoopback(target.url)) throw new Error(`refusing a non-loopback target: ${target.url}`);
  if (opts.expect && (opts.expect.length !== 1 || opts.expect[0] !== 200))
    throw new Error('HTTP/2 load expects 200 answers only');
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const pool = createRawHttp2Pool(target);
  try {
    return await runOps({
      concurrency: opts.concurrency,
      maxOps: opts.maxRequests,
      maxMs: opts.maxMs,
      op: (i) => {
        const spec = opts.request(i);
        if (spec.method !== 'GET' || spec.body !== undefined)
          throw new Error(`HTTP/2 load sends GETs only, not ${spec.method}`);
        return pool.get(spec.path, timeoutMs);
      },
    });
  } finally {
    pool.close();
  }
}
