// What aggregation-probe.ts makes of the traces bench/event-trace.ts leaves in the front and the upstream: each
// delivery through the front followed from the upstream's write through the front's read and write to the client's
// receipt, on the one monotonic clock, and the upstream's fan-out order.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from './load.js';

export type Side = 'front' | 'direct';

export interface Receipt {
  name: string;
  /** performance.now() of this process when the line was whole. */
  at: number;
  /** The client's port of the connection it came on. */
  port: number;
}

interface TraceRecord {
  kind: 'w' | 'r';
  /** Milliseconds on this process's performance.now() scale. */
  at: number;
  localPort: number;
  remotePort: number;
  name: string;
}

/** performance.now() minus the monotonic clock in ms: traces of other processes come onto this process's scale. */
const clockOffset = performance.now() - Number(process.hrtime.bigint()) / 1e6;

export async function readTrace(dir: string, pid: number): Promise<TraceRecord[]> {
  const text = await readFile(path.join(dir, `trace-${pid}.txt`), 'utf8');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [kind, ns, localPort, remotePort, name] = line.split(' ');
      return {
        kind: kind as 'w' | 'r',
        at: Number(BigInt(ns)) / 1e6 + clockOffset,
        localPort: Number(localPort),
        remotePort: Number(remotePort),
        name,
      };
    });
}

export function stats(values: number[]): string {
  const sorted = Float64Array.from(values).sort();
  const f = (p: number) => percentile(sorted, p).toFixed(2);
  const max = sorted.length ? sorted[sorted.length - 1].toFixed(2) : '-';
  return `p50 ${f(50)}, p90 ${f(90)}, p99 ${f(99)}, max ${max} ms (n=${sorted.length})`;
}

export interface Deliveries {
  receipts: Record<Side, Receipt[]>;
  /** The client ports of each side's connections. */
  ports: Record<Side, Set<number>>;
  sentAt: Map<string, number>;
  /** Whether the event counts (the warm-up's do not). */
  measured(name: string): boolean;
}

const key = (name: string, port: number) => `${name}@${port}`;

/** The upstream's writes by event and peer port, and the first write of each event. */
function upstreamWrites(upTrace: TraceRecord[]) {
  const byPeer = new Map<string, number>();
  const first = new Map<string, number>();
  for (const t of upTrace) {
    if (t.kind !== 'w') continue;
    byPeer.set(key(t.name, t.remotePort), t.at);
    if (!first.has(t.name)) first.set(t.name, t.at);
  }
  return { byPeer, first };
}

/**
 * The front's reads by event and upstream connection, and its writes by event and client connection with the read
 * they pass on: http-proxy's pipe writes a piece in the same call stack that read it, so the read just before a
 * write of the same event is its source.
 */
function frontPassage(frontTrace: TraceRecord[], clientPorts: Set<number>) {
  const reads = new Map<string, number>();
  const writes = new Map<string, { at: number; readPort: number }>();
  let lastRead: TraceRecord | undefined;
  for (const t of frontTrace) {
    if (t.kind === 'r') {
      reads.set(key(t.name, t.localPort), t.at);
      lastRead = t;
    } else if (lastRead?.name === t.name && clientPorts.has(t.remotePort)) {
      writes.set(key(t.name, t.remotePort), { at: t.at, readPort: lastRead.localPort });
      lastRead = undefined;
    }
  }
  return { reads, writes };
}

/** Where the front path's time goes, stage by stage. */
export function breakdown(frontTrace: TraceRecord[], upTrace: TraceRecord[], d: Deliveries): string[] {
  const up = upstreamWrites(upTrace);
  const front = frontPassage(frontTrace, d.ports.front);
  const stages = {
    'sent → upstream writes to the front (upstream: commit, fan-out to its place)': [] as number[],
    'upstream write → front has the body (kernel, front loop wait, decrypt, parse)': [] as number[],
    'front has the body → front writes to the client (http-proxy pipe, res.write)': [] as number[],
    'front write → client has the line (front encrypt, kernel, client loop, decrypt)': [] as number[],
    'direct: sent → upstream writes to the client': [] as number[],
    'direct: upstream write → client has the line': [] as number[],
  };
  const [toUpstream, toFront, throughFront, toClient, directToUpstream, directToClient] = Object.values(stages);
  let unmatched = 0;
  for (const r of d.receipts.front) {
    if (!d.measured(r.name)) continue;
    const written = front.writes.get(key(r.name, r.port));
    const read = written && front.reads.get(key(r.name, written.readPort));
    const upWrite = written && up.byPeer.get(key(r.name, written.readPort));
    if (!written || read === undefined || upWrite === undefined) {
      unmatched++;
      continue;
    }
    toUpstream.push(upWrite - (d.sentAt.get(r.name) ?? NaN));
    toFront.push(read - upWrite);
    throughFront.push(written.at - read);
    toClient.push(r.at - written.at);
  }
  for (const r of d.receipts.direct) {
    if (!d.measured(r.name)) continue;
    const upWrite = up.byPeer.get(key(r.name, r.port));
    if (upWrite === undefined) {
      unmatched++;
      continue;
    }
    directToUpstream.push(upWrite - (d.sentAt.get(r.name) ?? NaN));
    directToClient.push(r.at - upWrite);
  }
  // The upstream's fan-out: how far into an event's writes each side's connections come.
  const frontUpstreamPorts = new Set(frontTrace.filter((t) => t.kind === 'r').map((t) => t.localPort));
  const offsets: Record<Side, number[]> = { front: [], direct: [] };
  for (const t of upTrace) {
    if (t.kind !== 'w' || !d.measured(t.name)) continue;
    const side = frontUpstreamPorts.has(t.remotePort) ? 'front' : d.ports.direct.has(t.remotePort) ? 'direct' : '';
    if (side) offsets[side].push(t.at - (up.first.get(t.name) ?? t.at));
  }
  return [
    `trace breakdown (${unmatched} deliveries unmatched):`,
    ...Object.entries(stages).map(([label, values]) => `  ${label}: ${stats(values)}`),
    `  upstream fan-out, a write's offset from the event's first: to the front ${stats(offsets.front)}; ` +
      `to direct clients ${stats(offsets.direct)}`,
  ];
}
