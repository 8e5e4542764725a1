// One watch stream straight on a TLS socket, for the watch-delivery scenario. With a thousand streams in this one
// process, node:https's client (HTTP parser, IncomingMessage, string decoding per chunk) cost the load generator more
// CPU per delivered event than the gateway spent sending it, so the latency figure measured this process catching up
// with its own reading. This reads the response head once and then only undoes the chunked framing and splits lines,
// handing each line on as bytes.
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { Target } from './load.js';

const HEADER_END = Buffer.from('\r\n\r\n');
const NEWLINE = 0x0a;

export interface RawWatchHandlers {
  /** One event line (without its newline), with the time its last bytes arrived. */
  onLine: (line: Buffer, at: number) => void;
  /** The stream ended: by the server, an error, or close(). */
  onEnd(reason: string): void;
}

export type RawWatchOpen =
  | {
      ok: true;
      close: () => void;
      /** The client's port, which names the connection in a server's trace. */ localPort?: number;
    }
  | { ok: false; status: number; body: string };

/** Cuts a byte stream into lines, whatever the read boundaries; each line goes on with the time its last bytes came. */
export function lineSplitter(onLine: (line: Buffer, at: number) => void): (piece: Buffer, at: number) => void {
  // The start of a line cut by a chunk or read boundary.
  let partialLine: Buffer[] = [];
  return (piece, at) => {
    let from = 0;
    for (let nl = piece.indexOf(NEWLINE, from); nl >= 0; nl = piece.indexOf(NEWLINE, from)) {
      const tail = piece.subarray(from, nl);
      const line = partialLine.length ? Buffer.concat([...partialLine, tail]) : tail;
      partialLine = [];
      if (line.length) onLine(line, at);
      from = nl + 1;
    }
    if (from < piece.length) partialLine.push(piece.subarray(from));
  };
}

/** Opens `path` as a watch; resolves once the response head arrived (ok only for a chunked 200). */
export function openRawWatch(
  target: Target,
  path: string,
  handlers: RawWatchHandlers,
  timeoutMs: number,
): Promise<RawWatchOpen> {
  const url = new URL(target.url);
  const socket = tls.connect({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || 443,
    ca: target.ca,
  });
  socket.setNoDelay(true);
  const request =
    `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n` +
    `${target.token ? `Authorization: Bearer ${target.token}\r\n` : ''}\r\n`;
  socket.write(request);

  return new Promise((resolve) => {
    let opened = false;
    let ended = false;
    let head: Buffer | undefined = Buffer.alloc(0);
    // Chunked framing state: bytes of the current chunk still to come, whether its trailing CRLF is still due, and
    // unparsed bytes of a size line cut by a read.
    let remaining = 0;
    let crlfDue = false;
    let carry: Buffer | undefined;
    const lineData = lineSplitter(handlers.onLine);

    const end = (reason: string): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      socket.destroy();
      if (!opened) resolve({ ok: false, status: 0, body: reason });
      else handlers.onEnd(reason);
    };
    const timer = setTimeout(() => end(`no response head within ${timeoutMs} ms`), timeoutMs);

    const body = (data: Buffer, at: number): void => {
      const buf = carry ? Buffer.concat([carry, data]) : data;
      carry = undefined;
      let pos = 0;
      while (pos < buf.length) {
        if (remaining > 0) {
          const take = Math.min(remaining, buf.length - pos);
          lineData(buf.subarray(pos, pos + take), at);
          pos += take;
          remaining -= take;
          crlfDue = remaining === 0;
          continue;
        }
        if (crlfDue) {
          if (buf.length - pos < 2) break;
          pos += 2;
          crlfDue = false;
          continue;
        }
        const lineEnd = buf.indexOf('\r\n', pos);
        if (lineEnd < 0) break;
        const size = parseInt(buf.toString('latin1', pos, lineEnd), 16);
        if (Number.isNaN(size)) return end('malformed chunked framing');
        pos = lineEnd + 2;
        if (size === 0) return end('the server ended the stream');
        remaining = size;
      }
      if (pos < buf.length) carry = buf.subarray(pos);
    };

    socket.on('data', (data: Buffer) => {
      const at = performance.now();
      if (opened) return body(data, at);
      head = Buffer.concat([head!, data]);
      const headEnd = head.indexOf(HEADER_END);
      if (headEnd < 0) return;
      clearTimeout(timer);
      const text = head.toString('latin1', 0, headEnd);
      const status = Number(text.slice(9, 12));
      const rest = head.subarray(headEnd + 4);
      head = undefined;
      if (status !== 200 || !/\r\ntransfer-encoding:\s*chunked/i.test(text)) {
        // A refusal is a Status with a Content-Length: give it a moment to arrive whole, then report it.
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(text)?.[1] ?? 0);
        let got = rest;
        const report = (): void => {
          ended = true;
          socket.destroy();
          resolve({ ok: false, status, body: got.toString('utf8') });
        };
        if (got.length >= length) return report();
        socket.removeAllListeners('data');
        socket.on('data', (more: Buffer) => {
          got = Buffer.concat([got, more]);
          if (got.length >= length) report();
        });
        setTimeout(report, 1_000).unref();
        return;
      }
      opened = true;
      resolve({ ok: true, close: () => end('closed by the scenario'), localPort: socket.localPort });
      if (rest.length) body(rest, at);
    });
    socket.on('error', (e) => end(e.message));
    socket.on('close', () => end('connection closed'));
  });
}
