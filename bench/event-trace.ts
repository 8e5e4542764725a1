// Loaded into a server under test with `--import` (after tsx) by aggregation-probe.ts: records, on the process's
// monotonic clock (the same CLOCK_MONOTONIC in every process of the machine), each socket write and each HTTP body
// piece received that carries a probe event's name, with the connection's ports, so that one event can be followed
// from the upstream's write through the front's read and write to the client. Written to
// `$BENCH_EVENT_TRACE_DIR/trace-<pid>.txt` when the process exits. The search for the name costs every write a scan
// of its bytes: figures of a traced run are for the breakdown, not for the scenario's verdict.
import http from 'node:http';
import net from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const dir = process.env.BENCH_EVENT_TRACE_DIR;
/** The prefix of every name the probe writes; an event line holds it once, as metadata.name. */
export const PROBE_NAME_MARK = Buffer.from('"name":"probe-');

/** The probe event name in `data`, if any. */
export function probeNameIn(data: Buffer): string | undefined {
  const at = data.indexOf(PROBE_NAME_MARK);
  if (at < 0) return undefined;
  const from = at + PROBE_NAME_MARK.length - 'probe-'.length;
  const end = data.indexOf(0x22, from);
  return end < 0 ? undefined : data.toString('latin1', from, end);
}

if (dir) {
  const lines: string[] = [];
  const record = (kind: 'w' | 'r', socket: net.Socket | null | undefined, chunk: unknown): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk, 'latin1') : chunk;
    if (!Buffer.isBuffer(data)) return;
    const name = probeNameIn(data);
    if (name === undefined) return;
    lines.push(`${kind} ${process.hrtime.bigint()} ${socket?.localPort ?? 0} ${socket?.remotePort ?? 0} ${name}`);
  };
  // Wrapped through their descriptors, so that each original runs with the socket or message as its receiver.
  const write = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(net.Socket.prototype), 'write')?.value as (
    this: net.Socket,
    ...args: unknown[]
  ) => boolean;
  Object.defineProperty(net.Socket.prototype, 'write', {
    configurable: true,
    writable: true,
    value(this: net.Socket, ...args: unknown[]): boolean {
      record('w', this, args[0]);
      return write.apply(this, args);
    },
  });
  const push = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(http.IncomingMessage.prototype), 'push')
    ?.value as (this: http.IncomingMessage, ...args: unknown[]) => boolean;
  Object.defineProperty(http.IncomingMessage.prototype, 'push', {
    configurable: true,
    writable: true,
    value(this: http.IncomingMessage, ...args: unknown[]): boolean {
      record('r', this.socket, args[0]);
      return push.apply(this, args);
    },
  });
  process.on('exit', () => writeFileSync(path.join(dir, `trace-${process.pid}.txt`), lines.join('\n')));
}
