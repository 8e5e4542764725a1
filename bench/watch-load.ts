// Watch delivery: W watch streams on a namespace of its own, either each on its own HTTP/1.1 connection (many
// clients, or clients without HTTP/2) or multiplexed over HTTP/2 as client-go holds them (raw-http2.ts), one writer
// creating objects at a fixed rate, and for every (watcher, event) the time from commit to receipt, bounded from
// above: the clock starts when the write is sent (the commit cannot come earlier), so the figure includes the write's
// own handling before its commit. The write's response is no bound: the gateway may fan an event out to every
// watcher before it answers the writer. Every event must reach every watcher exactly once: deliveries are counted per
// watcher, duplicates and ERROR events are reported.
import { performance } from 'node:perf_hooks';
import { createAgent, describeFailure, percentile, send, type Target } from './load.js';
import { configMapJson } from './objects.js';
import { openRawWatch } from './raw-watch.js';
import { createRawHttp2Pool } from './raw-http2.js';

export type WatchTransport = 'http1' | 'http2';

export interface WatchOptions {
  namespace: string;
  watchers: number;
  transport: WatchTransport;
  eventsPerSecond: number;
  durationMs: number;
  /**
   * Events written first at the same rate, delivered and counted like the others but timed apart: a stream's first
   * events pay one-time costs on both ends (cold code paths, TLS buffers allocated on first use), which would
   * otherwise decide the p99 of a five-second run on their own.
   */
  warmupMs: number;
  /** How long to wait for stragglers after the last write. */
  drainMs: number;
  /** Another kind than ConfigMaps (the aggregation scenario watches a proxied group): its collection and body. */
  kind?: { collection: string; body(name: string): string };
  /**
   * Where the writes go when not to the watched server: through a proxy, only the watch should take the extra hop,
   * so that the two sides' delivery differs by the proxy's share alone.
   */
  writeTarget?: Target;
}

export interface WatchResult {
  watchers: number;
  transport: WatchTransport;
  /** TLS connections the streams used. */
  connections: number;
  /** Streams that answered 200 and stayed open until the end. */
  openStreams: number;
  openMs: number;
  writes: number;
  writeErrors: number;
  expected: number;
  delivered: number;
  duplicates: number;
  p50: number;
  p99: number;
  max: number;
  warmupP99: number;
  /** How long the writes after the warm-up took to be answered, from sending to the last byte of the response. */
  writeP50: number;
  writeP99: number;
  /** ERROR events, streams that failed to open or ended early, with the first few reasons. */
  problems: number;
  problemSamples: string[];
  clientCpu: number;
}

const OPEN_PARALLELISM = 32;

/**
 * The quiet period before a watch scenario opens its streams. The scenario before (1,000 HTTP/1.1 connections
 * closing, or a list's garbage) otherwise overlaps the next one's measurement: memory backend with 50,000 objects,
 * HTTP/2 p99 right after the HTTP/1.1 run 17.0-22.1 ms, 3 s later 15.3-16.3 ms (four alternating pairs).
 */
export const SETTLE_MS = 3_000;

interface Stream {
  seen: Set<string>;
  ended: boolean;
  endedEarly: boolean;
  close(): void;
}

export async function runWatch(target: Target, opts: WatchOptions): Promise<WatchResult> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const writeTarget = opts.writeTarget ?? target;
  const writeAgent = createAgent(writeTarget, 4);
  const base = opts.kind?.collection ?? `/api/v1/namespaces/${opts.namespace}/configmaps`;
  const body = (name: string): string => (opts.kind ? opts.kind.body(name) : configMapJson(name, 1024));
  const prefix = `w${opts.watchers}-`;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const writeLatencies: number[] = [];
  const warmupLatencies: number[] = [];
  const warmupPrefix = `${prefix}warm-`;
  let delivered = 0;
  let duplicates = 0;
  let problems = 0;
  const problemSamples: string[] = [];
  const problem = (message: string): void => {
    problems++;
    if (problemSamples.length < 3 && !problemSamples.includes(message)) problemSamples.push(message);
  };
  const streams: Stream[] = [];
  const http2Pool = opts.transport === 'http2' ? createRawHttp2Pool(target) : undefined;
  const openWatch = http2Pool
    ? http2Pool.open.bind(http2Pool)
    : (path: string, handlers: Parameters<typeof openRawWatch>[2], timeoutMs: number) =>
        openRawWatch(target, path, handlers, timeoutMs);

  const ADDED = Buffer.from('{"type":"ADDED"');
  const nameMark = Buffer.from(`"name":"${prefix}`);
  const receive = (stream: Stream, line: Buffer, at: number): void => {
    const nameAt = line.subarray(0, ADDED.length).equals(ADDED) ? line.indexOf(nameMark) : -1;
    const nameEnd = nameAt < 0 ? -1 : line.indexOf(0x22, nameAt + nameMark.length);
    if (nameEnd < 0) {
      // Anything but our ADDED events is rare here; parse it properly to say what it was.
      const text = line.toString('utf8');
      let type = 'unparsable';
      let message = text.slice(0, 120);
      try {
        const event = JSON.parse(text) as { type?: string; object?: { message?: string } };
        type = event.type ?? 'untyped';
        message = event.object?.message ?? message;
      } catch {
        // The raw line is the report.
      }
      if (type !== 'BOOKMARK') problem(`${type} event: ${message}`);
      return;
    }
    const name = line.toString('latin1', nameAt + nameMark.length - prefix.length, nameEnd);
    if (stream.seen.has(name)) {
      duplicates++;
      return;
    }
    stream.seen.add(name);
    delivered++;
    const sent = sentAt.get(name);
    if (sent !== undefined) (name.startsWith(warmupPrefix) ? warmupLatencies : latencies).push(at - sent);
  };

  const open = async (startRevision: string): Promise<void> => {
    const stream: Stream = { seen: new Set(), ended: false, endedEarly: false, close: () => {} };
    const path = `${base}?watch=1&resourceVersion=${startRevision}&timeoutSeconds=600`;
    const opened = await openWatch(
      path,
      {
        onLine: (line, at) => receive(stream, line, at),
        onEnd: (reason) => {
          if (stream.ended) return;
          stream.ended = true;
          if (closing) return;
          stream.endedEarly = true;
          problem(`a watch stream ended before the scenario did: ${reason}`);
        },
      },
      15_000,
    );
    if (!opened.ok) {
      problem(`watch did not open: ${opened.status ? describeFailure(opened.status, opened.body) : opened.body}`);
      return;
    }
    stream.close = opened.close;
    streams.push(stream);
  };

  let closing = false;
  const cpuBefore = process.cpuUsage();
  const scenarioStart = performance.now();
  let writes = 0;
  let writeErrors = 0;
  let openMs = 0;
  try {
    // Every watch starts at the same revision, before the first write, so each must see every write.
    const listed = await send(writeTarget, writeAgent, { method: 'GET', path: `${base}?limit=1` }, { keepBody: true });
    if (listed.status !== 200)
      throw new Error(`list for the start revision: ${describeFailure(listed.status, listed.body)}`);
    const startRevision = (JSON.parse(listed.body) as { metadata: { resourceVersion: string } }).metadata
      .resourceVersion;
    const openStart = performance.now();
    let toOpen = 0;
    await Promise.all(
      Array.from({ length: Math.min(OPEN_PARALLELISM, opts.watchers) }, async () => {
        while (toOpen++ < opts.watchers) await open(startRevision);
      }),
    );
    openMs = performance.now() - openStart;

    const warmup = Math.round((opts.warmupMs / 1000) * opts.eventsPerSecond);
    const total = warmup + Math.max(1, Math.round((opts.durationMs / 1000) * opts.eventsPerSecond));
    const interval = 1000 / opts.eventsPerSecond;
    const writesStart = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let seq = 0; seq < total; seq++) {
      const due = writesStart + seq * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = seq < warmup ? `${warmupPrefix}${seq}` : `${prefix}${seq - warmup}`;
      sentAt.set(name, performance.now());
      inFlight.push(
        send(writeTarget, writeAgent, { method: 'POST', path: base, body: body(name) }, { expect: [201] }).then(
          (res) => {
            if (res.status !== 201) {
              writeErrors++;
              problem(`write: ${describeFailure(res.status, res.body)}`);
              return;
            }
            writes++;
            if (seq >= warmup) writeLatencies.push(res.ms);
          },
          (e: Error) => {
            writeErrors++;
            problem(`write: ${e.message}`);
          },
        ),
      );
    }
    await Promise.all(inFlight);
    const drainUntil = performance.now() + opts.drainMs;
    while (delivered < writes * streams.length && performance.now() < drainUntil && streams.some((s) => !s.ended)) {
      await new Promise((r) => setTimeout(r, 20));
    }
  } catch (e) {
    problem((e as Error).message);
  } finally {
    closing = true;
    for (const stream of streams) stream.close();
    http2Pool?.close();
    writeAgent.destroy();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Float64Array.from(latencies).sort();
  const warmupSorted = Float64Array.from(warmupLatencies).sort();
  const writesSorted = Float64Array.from(writeLatencies).sort();
  return {
    watchers: opts.watchers,
    transport: opts.transport,
    connections: http2Pool ? http2Pool.connections : streams.length,
    openStreams: streams.filter((s) => !s.endedEarly).length,
    openMs,
    writes,
    writeErrors,
    // Expected counts every watcher asked for, so a stream that never opened shows up as missing deliveries.
    expected: writes * opts.watchers,
    delivered,
    duplicates,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : NaN,
    warmupP99: percentile(warmupSorted, 99),
    writeP50: percentile(writesSorted, 50),
    writeP99: percentile(writesSorted, 99),
    problems,
    problemSamples,
    clientCpu: ((cpu.user + cpu.system) / 1000 / (performance.now() - scenarioStart)) * 100,
  };
}
