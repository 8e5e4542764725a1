// A minimal HTTP/1.1 keep-alive client straight on net/tls sockets, for the throughput scenarios. node:http's client
// costs the load generator a whole core at about 10,000 requests/s, so against the bare server the figure measured
// the client, not the server. This one writes each request as one prepared buffer and parses only what it needs from
// the response (status, Content-Length or chunked framing), which leaves the server as the bottleneck.
import net from 'node:net';
import tls from 'node:tls';
import type { RequestSpec, Target } from './load.js';

export interface RawResponse {
  status: number;
  /** Only when asked for, or when the status was unexpected (for the error report). */
  body?: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

interface Pending {
  resolve(res: RawResponse): void;
  reject(e: Error): void;
  keepBody: boolean;
  expect: number[];
}

/** One keep-alive connection carrying one request at a time; it reconnects after the server closes it. */
export class RawConnection {
  private socket: net.Socket | undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private pending: Pending | undefined;
  private readonly host: string;
  private readonly port: number;
  private readonly secure: boolean;
  private readonly fixedHeaders: string;

  constructor(private readonly target: Target) {
    const url = new URL(target.url);
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.secure = url.protocol === 'https:';
    this.port = Number(url.port) || (this.secure ? 443 : 80);
    this.fixedHeaders = `Host: ${url.host}\r\nAccept: application/json\r\n${target.token ? `Authorization: Bearer ${target.token}\r\n` : ''}`;
  }

  /** The bytes of one request, built once per distinct request by the caller when it can. */
  encode(spec: RequestSpec): Buffer {
    const body = spec.body === undefined ? '' : spec.body;
    const bodyHeaders =
      spec.body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    return Buffer.from(`${spec.method} ${spec.path} HTTP/1.1\r\n${this.fixedHeaders}${bodyHeaders}\r\n${body}`);
  }

  request(bytes: Buffer, opts: { keepBody?: boolean; expect: number[]; timeoutMs: number }): Promise<RawResponse> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(new Error(`no response within ${opts.timeoutMs} ms`)), opts.timeoutMs);
      this.pending = {
        keepBody: opts.keepBody ?? false,
        expect: opts.expect,
        resolve: (res) => {
          clearTimeout(timer);
          resolve(res);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.connection().write(bytes);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private connection(): net.Socket {
    if (this.socket && !this.socket.destroyed) return this.socket;
    this.buffered = Buffer.alloc(0);
    const socket = this.secure
      ? tls.connect({ host: this.host, port: this.port, ca: this.target.ca })
      : net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    // A replaced socket's late events must not touch its successor.
    socket.on('data', (chunk: Buffer) => {
      if (socket !== this.socket) return;
      try {
        this.onData(chunk);
      } catch (e) {
        this.fail(e as Error);
      }
    });
    socket.on('error', (e) => {
      if (socket === this.socket) this.fail(e);
    });
    socket.on('close', () => {
      if (socket === this.socket) this.fail(new Error('connection closed before the response was complete'));
    });
    this.socket = socket;
    return socket;
  }

  private fail(e: Error): void {
    this.close();
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(e);
  }

  private onData(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const pending = this.pending;
    if (!pending) return;
    const headEnd = this.buffered.indexOf(HEADER_END);
    if (headEnd < 0) return;
    const head = this.buffered.toString('latin1', 0, headEnd);
    const status = Number(head.slice(9, 12));
    const start = headEnd + 4;
    const lengthMatch = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let end: number;
    let body: Buffer | undefined;
    const keep = pending.keepBody || !pending.expect.includes(status);
    if (lengthMatch) {
      end = start + Number(lengthMatch[1]);
      if (this.buffered.length < end) return;
      if (keep) body = this.buffered.subarray(start, end);
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parsed = dechunk(this.buffered, start, keep);
      if (!parsed) return;
      ({ end, body } = parsed);
    } else {
      // No framing: the body runs until the server closes, which a keep-alive API server never does for these calls.
      this.fail(new Error(`response without Content-Length or chunked framing (HTTP ${status})`));
      return;
    }
    const closeAfter = /\r\nconnection:\s*close/i.test(head);
    this.buffered = this.buffered.subarray(end);
    this.pending = undefined;
    if (closeAfter) this.close();
    pending.resolve({ status, body });
  }
}

/** Parses a chunked body starting at `from`; undefined until the terminating chunk has arrived. */
function dechunk(buf: Buffer, from: number, keep: boolean): { end: number; body?: Buffer } | undefined {
  const parts: Buffer[] = [];
  let at = from;
  for (;;) {
    const lineEnd = buf.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = parseInt(buf.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunked response');
    const dataStart = lineEnd + 2;
    if (size === 0) {
      // The last chunk, then optional trailers, then an empty line.
      const trailersEnd = buf.indexOf('\r\n', dataStart);
      if (trailersEnd < 0) return undefined;
      if (trailersEnd === dataStart) return { end: dataStart + 2, body: keep ? Buffer.concat(parts) : undefined };
      const end = buf.indexOf(HEADER_END, dataStart);
      return end < 0 ? undefined : { end: end + 4, body: keep ? Buffer.concat(parts) : undefined };
    }
    if (buf.length < dataStart + size + 2) return undefined;
    if (keep) parts.push(buf.subarray(dataStart, dataStart + size));
    at = dataStart + size + 2;
  }
}
