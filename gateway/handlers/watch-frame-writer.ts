// Watch frames written straight to the connection as ready-made HTTP/1.1 chunks, bypassing ServerResponse.write.
// The HTTP layer's per-write work (cork, four buffered writes, a tick, a gathering copy) is most of what a write
// costs besides the TLS record itself, and a frame shared by a thousand watchers pays it a thousand times; a chunk
// encoded once and handed to each socket does not.
//
// This leans on Node behaviour that is not API, which test/unit/watch-frame-writer.test.ts pins down:
// - after writeHead with `Transfer-Encoding: chunked`, res.write(data) puts exactly `<hex length>\r\n<data>\r\n` on
//   the socket and res.end() `0\r\n\r\n`: a chunk made here is indistinguishable from one res.write made;
// - res.headersSent turns true at writeHead, while the headers still wait in the response: only flushHeaders hands
//   them to the socket, so the writer flushes them itself before anything may pass the HTTP layer;
// - res.writableLength is what waits in the HTTP layer (its outputSize) plus the socket's writableLength, so the two
//   being equal means nothing of the response waits in front of a direct write, and socket order is wire order. The
//   socket's own queue may still hold the headers (a TLS write completes later); requiring it to be empty turned the
//   direct path off for every HTTPS watch. A response pipelined behind another on its connection has no socket yet;
// - res.chunkedEncoding is true only for an HTTP/1.1 chunked response: HTTP/2's compatibility response has none, and
//   frames its body itself.
import type { ServerResponse } from 'node:http';

const CRLF = Buffer.from('\r\n', 'latin1');

/** The frame as one HTTP/1.1 chunk (size line, data, CRLF), the bytes res.write would put on the wire for it. */
export function chunkOf(frame: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`, 'latin1'), frame, CRLF]);
}

/** The length of the frame inside a chunk chunkOf made: what the event weighs without the HTTP framing. */
export function chunkDataLength(chunk: Buffer): number {
  // chunk = <hex digits of n> CRLF <n bytes> CRLF: the n whose digit count makes the total add up.
  for (let digits = 1; ; digits++) {
    const n = chunk.length - 4 - digits;
    let needed = 1;
    for (let v = n >>> 4; v > 0; v >>>= 4) needed++;
    if (needed === digits) return n;
  }
}

/** Resolves once `stream` drained or `res` closed, for a write that returned false. */
export function drained(stream: NodeJS.WritableStream, res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      stream.removeListener('drain', done);
      res.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    res.on('close', done);
  });
}

/** Writes one chunk (chunkOf) to the connection; a promise only when the client is behind and the caller must wait. */
export type DirectChunkWriter = (chunk: Buffer) => Promise<void> | undefined;

/**
 * A writer of ready-made chunks straight to `res`'s socket, or undefined when bytes written there could land out of
 * order or unframed: output of the response still held by the HTTP layer (a response pipelined behind another), or
 * no HTTP/1.1 chunked framing. Call it once, after writeHead: it hands the headers to the connection. From then on
 * res.write and direct writes both queue on the one socket, in the order they are made.
 */
export function directChunkWriter(res: ServerResponse): DirectChunkWriter | undefined {
  if (!res.headersSent) return undefined;
  res.flushHeaders();
  const socket = res.socket;
  if (!socket || !res.chunkedEncoding || !res.headersSent || res.writableLength !== socket.writableLength)
    return undefined;
  return (chunk) => {
    // A socket the client closed is not writable: Node would report the write as an error on a later tick.
    if (socket.destroyed) return undefined;
    return socket.write(chunk) ? undefined : drained(socket, res);
  };
}
