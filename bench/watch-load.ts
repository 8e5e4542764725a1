// Watch delivery: W watch streams (each its own keep-alive HTTPS connection, as kubectl and informers hold them) on a
// namespace of its own, one writer creating objects at a fixed rate, and for every (watcher, event) the time from
// commit to receipt, bounded from above: the clock starts when the write is sent (the commit cannot come earlier),
// so the figure includes the write's own handling before its commit. The write's response is no bound: the gateway
// may fan an event out to every watcher before it answers the writer. Every event must reach every watcher exactly
// once: deliveries are counted per watcher, duplicates and ERROR events are reported.
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { createAgent, describeFailure, percentile, send, type Target } from './load.js';
import { configMapJson } from './objects.js';

export interface WatchOptions {
  namespace: string;
  watchers: number;
  eventsPerSecond: number;
  durationMs: number;
  /** How long to wait for stragglers after the last write. */
  drainMs: number;
}

export interface WatchResult {
  watchers: number;
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
  /** ERROR events, streams that failed to open or ended early, with the first few reasons. */
  problems: number;
  problemSamples: string[];
  clientCpu: number;
}

const OPEN_PARALLELISM = 32;

interface Stream {
  seen: Set<string>;
  ended: boolean;
  endedEarly: boolean;
  close(): void;
}

export async function runWatch(target: Target, opts: WatchOptions): Promise<WatchResult> {
  const writeAgent = createAgent(target, 4);
  const watchAgent = createAgent(target, Infinity) as https.Agent;
  const base = `/api/v1/namespaces/${opts.namespace}/configmaps`;
  const prefix = `w${opts.watchers}-`;
  const namePattern = new RegExp(`"name":"(${prefix}\\d+)"`);
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let delivered = 0;
  let duplicates = 0;
  let problems = 0;
  const problemSamples: string[] = [];
  const problem = (message: string): void => {
    problems++;
    if (problemSamples.length < 3 && !problemSamples.includes(message)) problemSamples.push(message);
  };
  const streams: Stream[] = [];

  const receive = (stream: Stream, line: string, at: number): void => {
    const match = line.startsWith('{"type":"ADDED"') ? namePattern.exec(line) : null;
    if (!match) {
      // Anything but our ADDED events is rare here; parse it properly to say what it was.
      let type = 'unparsable';
      let message = line.slice(0, 120);
      try {
        const event = JSON.parse(line) as { type?: string; object?: { message?: string } };
        type = event.type ?? 'untyped';
        message = event.object?.message ?? message;
      } catch {
        // The raw line is the report.
      }
      if (type !== 'BOOKMARK') problem(`${type} event: ${message}`);
      return;
    }
    const name = match[1];
    if (stream.seen.has(name)) {
      duplicates++;
      return;
    }
    stream.seen.add(name);
    delivered++;
    const sent = sentAt.get(name);
    if (sent !== undefined) latencies.push(at - sent);
  };

  const open = (startRevision: string): Promise<void> => new Promise((resolve) => {
    const stream: Stream = { seen: new Set(), ended: false, endedEarly: false, close: () => {} };
    const path = `${base}?watch=1&resourceVersion=${startRevision}&timeoutSeconds=600`;
    const req = https.request(new URL(path, target.url), {
      agent: watchAgent,
      headers: { authorization: `Bearer ${target.token}`, accept: 'application/json' },
    }, (res) => {
      if (res.statusCode !== 200) {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          problem(`watch did not open: ${describeFailure(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))}`);
          resolve();
        });
        return;
      }
      streams.push(stream);
      let buffered = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const at = performance.now();
        buffered += chunk;
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) receive(stream, line, at);
        }
      });
      const ended = (): void => {
        if (stream.ended) return;
        stream.ended = true;
        if (closing) return;
        stream.endedEarly = true;
        problem('a watch stream ended before the scenario did');
      };
      res.on('end', ended);
      res.on('close', ended);
      res.on('error', ended);
      resolve();
    });
    stream.close = () => req.destroy();
    req.setTimeout(15_000, () => {
      if (!streams.includes(stream)) req.destroy(new Error('watch headers took longer than 15 s'));
    });
    req.on('error', (e) => {
      if (!streams.includes(stream)) {
        problem(`watch did not open: ${e.message}`);
        resolve();
      }
    });
    req.end();
  });

  let closing = false;
  const cpuBefore = process.cpuUsage();
  const scenarioStart = performance.now();
  let writes = 0;
  let writeErrors = 0;
  let openMs = 0;
  try {
    // Every watch starts at the same revision, before the first write, so each must see every write.
    const listed = await send(target, writeAgent, { method: 'GET', path: `${base}?limit=1` }, { keepBody: true });
    if (listed.status !== 200) throw new Error(`list for the start revision: ${describeFailure(listed.status, listed.body)}`);
    const startRevision = (JSON.parse(listed.body) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
    const openStart = performance.now();
    let toOpen = 0;
    await Promise.all(Array.from({ length: Math.min(OPEN_PARALLELISM, opts.watchers) }, async () => {
      while (toOpen++ < opts.watchers) await open(startRevision);
    }));
    openMs = performance.now() - openStart;

    const total = Math.max(1, Math.round((opts.durationMs / 1000) * opts.eventsPerSecond));
    const interval = 1000 / opts.eventsPerSecond;
    const writesStart = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let seq = 0; seq < total; seq++) {
      const due = writesStart + seq * interval;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const name = `${prefix}${seq}`;
      sentAt.set(name, performance.now());
      inFlight.push(send(target, writeAgent, { method: 'POST', path: base, body: configMapJson(name, 1024) }, { expect: [201] }).then((res) => {
        if (res.status !== 201) {
          writeErrors++;
          problem(`write: ${describeFailure(res.status, res.body)}`);
          return;
        }
        writes++;
      }, (e: Error) => {
        writeErrors++;
        problem(`write: ${e.message}`);
      }));
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
    watchAgent.destroy();
    writeAgent.destroy();
  }
  const cpu = process.cpuUsage(cpuBefore);
  const sorted = Float64Array.from(latencies).sort();
  return {
    watchers: opts.watchers,
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
    problems,
    problemSamples,
    clientCpu: ((cpu.user + cpu.system) / 1000 / (performance.now() - scenarioStart)) * 100,
  };
}
