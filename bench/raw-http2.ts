// Streams over HTTP/2 as client-go opens them: watches and requests multiplexed on one TLS connection, a new
// connection only once the server's SETTINGS_MAX_CONCURRENT_STREAMS is reached, and receive windows so large (as Go's
// transport grants) that flow control never holds a response back. Read straight from the TLS socket, for the reason
// raw-watch.ts gives for HTTP/1.1: node:http2's client emits every DATA frame through a stream object of its own, and
// with a thousand streams it spent more CPU per delivered event (~12 µs) than the gateway spent sending it, so the
// figure measured this process; for GETs it held the bare server's rate to what one client thread could issue. This
// reads frames, and of each response head only the first HPACK byte (":status: 200" is the static entry 8, which
// servers send fully indexed); a refused stream reports its Status body instead.
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import type { Target } from './load.js';
import { lineSplitter, type RawWatchHandlers, type RawWatchOpen } from './raw-watch.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const FRAME = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8 } as const;
const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;
const SETTING = { ENABLE_PUSH: 0x2, MAX_CONCURRENT_STREAMS: 0x3, INITIAL_WINDOW_SIZE: 0x4 } as const;
const MAX_WINDOW = 2 ** 31 - 1;
const DEFAULT_WINDOW = 65_535;
/** The connection window is topped up after this much data; each stream's own window (2 GiB) outlasts a run. */
const WINDOW_TOP_UP = 2 ** 28;
const STATUS_200 = 0x88;
const CANCEL = 0x8;
/** Why a stream finished when the server ended it normally (END_STREAM). */
const END_OF_STREAM = 'the server ended the stream';

function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** HPACK integer with a 7-bit prefix (RFC 7541, 5.1), for string lengths. */
function hpackLength(n: number): number[] {
  if (n < 127) return [n];
  const bytes = [127];
  for (n -= 127; n >= 128; n >>= 7) bytes.push((n & 0x7f) | 0x80);
  bytes.push(n);
  return bytes;
}

/** Every field as a literal without indexing and with a literal name: no table state to keep. */
function hpackBlock(fields: Array<[string, string]>): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    parts.push(Buffer.from([0x00, ...hpackLength(name.length)]), Buffer.from(name, 'latin1'));
    parts.push(Buffer.from(hpackLength(Buffer.byteLength(value))), Buffer.from(value));
  }
  return Buffer.concat(parts);
}

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

interface StreamState {
  opened: boolean;
  /** A refused watch's Status body. */
  refusal?: { status: string; chunks: Buffer[] };
  lines: (piece: Buffer, at: number) => void;
  /** The head said 200. */
  onOpen(): void;
  finish(reason: string): void;
}

interface Connection {
  socket: tls.TLSSocket;
  streams: Map<number, StreamState>;
  nextStreamId: number;
  limit: number;
  closed: boolean;
}

function connect(target: Target): Promise<Connection> {
  const url = new URL(target.url);
  const socket = tls.connect({
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || 443,
    ca: target.ca,
    ALPNProtocols: ['h2'],
  });
  socket.setNoDelay(true);
  // Go's transport assumes 100 streams until the server's SETTINGS, and 1000 when they name no limit.
  const conn: Connection = { socket, streams: new Map(), nextStreamId: 1, limit: 100, closed: false };
  return new Promise((resolve, reject) => {
    let settled = false;
    socket.once('secureConnect', () => {
      if (socket.alpnProtocol !== 'h2') {
        settled = true;
        socket.destroy();
        reject(new Error(`the server did not agree to HTTP/2 (ALPN: ${socket.alpnProtocol || 'none'})`));
        return;
      }
      const settings = Buffer.concat([
        Buffer.from([0, SETTING.ENABLE_PUSH]),
        uint32(0),
        Buffer.from([0, SETTING.INITIAL_WINDOW_SIZE]),
        uint32(MAX_WINDOW),
      ]);
      socket.write(
        Buffer.concat([
          PREFACE,
          frame(FRAME.SETTINGS, 0, 0, settings),
          frame(FRAME.WINDOW_UPDATE, 0, 0, uint32(MAX_WINDOW - DEFAULT_WINDOW)),
        ]),
      );
    });
    const endAll = (reason: string): void => {
      conn.closed = true;
      for (const s of [...conn.streams.values()]) s.finish(reason);
      conn.streams.clear();
      if (!settled) {
        settled = true;
        reject(new Error(reason));
      }
    };
    let consumed = 0;
    const onFrame = (type: number, flags: number, streamId: number, payload: Buffer, at: number): void => {
      if (type === FRAME.SETTINGS && !(flags & FLAG.ACK)) {
        if (!settled) conn.limit = 1000;
        for (let i = 0; i + 6 <= payload.length; i += 6) {
          if (payload.readUInt16BE(i) === SETTING.MAX_CONCURRENT_STREAMS) conn.limit = payload.readUInt32BE(i + 2);
        }
        socket.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        if (!settled) {
          settled = true;
          resolve(conn);
        }
        return;
      }
      if (type === FRAME.PING && !(flags & FLAG.ACK)) {
        socket.write(frame(FRAME.PING, FLAG.ACK, 0, Buffer.from(payload)));
        return;
      }
      if (type === FRAME.GOAWAY) {
        endAll('the server sent GOAWAY');
        return;
      }
      const stream = conn.streams.get(streamId);
      if (!stream) return;
      if (type === FRAME.RST_STREAM) {
        stream.finish(`the server reset the stream (code ${payload.readUInt32BE(0)})`);
        return;
      }
      const length = payload.length;
      if (flags & FLAG.PADDED) payload = payload.subarray(1, payload.length - payload[0]);
      if (type === FRAME.HEADERS) {
        const block = flags & FLAG.PRIORITY ? payload.subarray(5) : payload;
        if (!stream.opened && !stream.refusal) {
          if (block[0] === STATUS_200) {
            stream.opened = true;
            stream.onOpen();
          } else stream.refusal = { status: `not 200 (first HPACK byte 0x${block[0]?.toString(16)})`, chunks: [] };
        }
      } else if (type === FRAME.DATA) {
        consumed += length;
        if (consumed >= WINDOW_TOP_UP) {
          socket.write(frame(FRAME.WINDOW_UPDATE, 0, 0, uint32(consumed)));
          consumed = 0;
        }
        if (stream.refusal) stream.refusal.chunks.push(Buffer.from(payload));
        else stream.lines(payload, at);
      }
      if (flags & FLAG.END_STREAM) stream.finish(END_OF_STREAM);
    };
    /** Hands on every whole frame of `buf` from `pos`; returns where the first incomplete one starts. */
    const frames = (buf: Buffer, pos: number, at: number): number => {
      while (buf.length - pos >= 9) {
        const length = buf.readUIntBE(pos, 3);
        if (buf.length - pos < 9 + length) break;
        onFrame(
          buf[pos + 3],
          buf[pos + 4],
          buf.readUInt32BE(pos + 5) & 0x7fffffff,
          buf.subarray(pos + 9, pos + 9 + length),
          at,
        );
        pos += 9 + length;
      }
      return pos;
    };
    // A frame cut by a read: completed with just the bytes it lacks, rather than copying each whole read behind it.
    let cut: Buffer | undefined;
    socket.on('data', (data: Buffer) => {
      const at = performance.now();
      let pos = 0;
      if (cut) {
        const headerLack = Math.max(0, 9 - cut.length);
        const withHeader = headerLack > 0 ? Buffer.concat([cut, data.subarray(0, headerLack)]) : cut;
        if (withHeader.length < 9) {
          cut = withHeader;
          return;
        }
        const whole = 9 + withHeader.readUIntBE(0, 3);
        const take = Math.min(whole - cut.length, data.length);
        const joined = Buffer.concat([cut, data.subarray(0, take)]);
        pos = take;
        if (joined.length < whole) {
          cut = joined;
          return;
        }
        cut = undefined;
        frames(joined, 0, at);
      }
      pos = frames(data, pos, at);
      if (pos < data.length) cut = data.subarray(pos);
    });
    socket.on('error', (e) => endAll(e.message));
    socket.on('close', () => endAll('connection closed'));
  });
}

export interface RawHttp2Pool {
  /** A watch: resolves once the response head arrived (ok only for a 200), then hands on its lines. */
  open(path: string, handlers: RawWatchHandlers, timeoutMs: number): Promise<RawWatchOpen>;
  /** A GET whose body is not kept: resolves once a 200 answer arrived whole, rejects with the reason otherwise. */
  get(path: string, timeoutMs: number): Promise<void>;
  /** Connections opened so far. */
  readonly connections: number;
  close(): void;
}

export function createRawHttp2Pool(target: Target): RawHttp2Pool {
  const url = new URL(target.url);
  const pool: Connection[] = [];
  let connecting: Promise<Connection> | undefined;

  const connectionWithRoom = async (): Promise<Connection> => {
    for (;;) {
      const free = pool.find((c) => !c.closed && c.streams.size < c.limit);
      if (free) return free;
      // Concurrent openers wait for the one connection being made instead of each making their own.
      connecting ??= connect(target)
        .then((c) => {
          pool.push(c);
          return c;
        })
        .finally(() => {
          connecting = undefined;
        });
      await connecting;
    }
  };

  const self: RawHttp2Pool = {
    get connections() {
      return pool.length;
    },
    async get(path, timeoutMs) {
      const started = performance.now();
      let ended!: (reason: string) => void;
      const end = new Promise<string>((resolve) => {
        ended = resolve;
      });
      const opened = await self.open(path, { onLine: () => {}, onEnd: ended }, timeoutMs);
      if (!opened.ok) throw new Error(opened.body);
      // The head's timeout ends with the head: a body that never ends is bounded here, so no run waits on it.
      let late = false;
      const timer = setTimeout(
        () => {
          late = true;
          opened.close();
        },
        Math.max(0, timeoutMs - (performance.now() - started)),
      );
      const reason = await end;
      clearTimeout(timer);
      if (late) throw new Error(`no whole response within ${timeoutMs} ms`);
      if (reason !== END_OF_STREAM) throw new Error(reason);
    },
    async open(path, handlers, timeoutMs) {
      const conn = await connectionWithRoom();
      const streamId = conn.nextStreamId;
      conn.nextStreamId += 2;
      const fields: Array<[string, string]> = [
        [':method', 'GET'],
        [':scheme', 'https'],
        [':authority', url.host],
        [':path', path],
        ['accept', 'application/json'],
      ];
      if (target.token) fields.push(['authorization', `Bearer ${target.token}`]);
      return new Promise<RawWatchOpen>((resolve) => {
        let ended = false;
        const timer = setTimeout(() => state.finish(`no response head within ${timeoutMs} ms`), timeoutMs);
        const state: StreamState = {
          opened: false,
          lines: lineSplitter(handlers.onLine),
          onOpen() {
            clearTimeout(timer);
            resolve({
              ok: true,
              close: () => {
                if (ended) return;
                if (!conn.closed) conn.socket.write(frame(FRAME.RST_STREAM, 0, streamId, uint32(CANCEL)));
                state.finish('closed by the scenario');
              },
            });
          },
          finish(reason) {
            if (ended) return;
            ended = true;
            clearTimeout(timer);
            conn.streams.delete(streamId);
            if (state.opened) handlers.onEnd(reason);
            else if (state.refusal)
              resolve({
                ok: false,
                status: 0,
                body: `${state.refusal.status}: ${Buffer.concat(state.refusal.chunks).toString('utf8')}`,
              });
            else resolve({ ok: false, status: 0, body: reason });
          },
        };
        conn.streams.set(streamId, state);
        conn.socket.write(frame(FRAME.HEADERS, FLAG.END_STREAM | FLAG.END_HEADERS, streamId, hpackBlock(fields)));
      });
    },
    close() {
      for (const c of pool) c.socket.destroy();
    },
  };
  return self;
}
