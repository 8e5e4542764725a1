// Pins the Node behaviour gateway/handlers/watch-frame-writer.ts relies on, on real sockets: if a Node upgrade changes
// how a chunked response is framed, what writableLength counts, or how HTTP/2 answers, these fail rather than watch
// streams going quietly corrupt or quietly slow.
import { expect } from 'chai';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import {
  chunkDataLength,
  chunkOf,
  directChunkWriter,
  type DirectChunkWriter,
} from '../../gateway/handlers/watch-frame-writer.js';
import { selfSignedClientCert } from '../helpers/pki.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The raw bytes a request to a server running `handler` gets back, through a client of its own. */
async function rawExchange(server: http.Server | https.Server, connect: (port: number) => net.Socket): Promise<Buffer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const socket = connect((server.address() as AddressInfo).port);
    socket.write('GET /watch HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    await new Promise<void>((resolve, reject) => {
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    return Buffer.concat(chunks);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const body = (raw: Buffer): string => raw.toString('latin1').slice(raw.indexOf('\r\n\r\n') + 4);

/** Starts a chunked response, mixing res.write with direct chunks, and reports whether a direct writer was given. */
function mixedWrites(seen: { writer?: DirectChunkWriter }): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders();
    const writer = directChunkWriter(res);
    seen.writer = writer;
    if (!writer) {
      res.end();
      return;
    }
    res.write('{"a":1}\n');
    void writer(chunkOf(Buffer.from('{"b":22}\n')));
    res.write('{"c":333}\n');
    void writer(chunkOf(Buffer.from('{"d":4444}\n')));
    res.end();
  };
}

// Exactly what res.write alone puts on the wire for the four frames, then the last chunk of res.end.
const EXPECTED_BODY = '8\r\n{"a":1}\n\r\n9\r\n{"b":22}\n\r\na\r\n{"c":333}\n\r\nb\r\n{"d":4444}\n\r\n0\r\n\r\n';

describe('watch frames written straight to the connection', () => {
  it('makes the chunk res.write makes: the same bytes on the wire, byte for byte', async () => {
    const frame = Buffer.from('{"type":"ADDED","object":{}}\n');
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Transfer-Encoding': 'chunked' });
      res.write(frame);
      res.end();
    });
    const viaWrite = Buffer.from(body(await rawExchange(server, (port) => net.connect(port, '127.0.0.1'))), 'latin1');
    expect(viaWrite.toString('latin1')).to.equal(`${chunkOf(frame).toString('latin1')}0\r\n\r\n`);
  });

  it('tells the length of the frame inside a chunk (what the watch metrics count), at every size-line width', () => {
    for (const length of [0, 1, 15, 16, 255, 256, 4095, 4096, 65535, 65536, 1 << 20])
      expect(chunkDataLength(chunkOf(Buffer.alloc(length, 'x'))), `a frame of ${length} bytes`).to.equal(length);
  });

  it('over HTTP/1.1 keeps direct chunks and res.write in the order they were made, framed as one body', async () => {
    const seen: { writer?: DirectChunkWriter } = {};
    const raw = await rawExchange(http.createServer(mixedWrites(seen)), (port) => net.connect(port, '127.0.0.1'));
    expect(seen.writer, 'a direct writer for a plain HTTP/1.1 chunked response').to.be.a('function');
    expect(raw.toString('latin1')).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(raw.toString('latin1')).to.match(/\r\nTransfer-Encoding: chunked\r\n/i);
    expect(body(raw)).to.equal(EXPECTED_BODY);
  });

  it('over HTTPS gives a direct writer although the TLS socket may still hold the headers, and the bytes stay in order', async () => {
    const { certPem, keyPem } = await selfSignedClientCert();
    const seen: { writer?: DirectChunkWriter } = {};
    const server = https.createServer({ cert: certPem, key: keyPem }, mixedWrites(seen));
    const raw = await rawExchange(server, (port) =>
      tls.connect({ port, host: '127.0.0.1', rejectUnauthorized: false }),
    );
    // Requiring the whole writableLength to be 0 turned the direct path off for every HTTPS watch.
    expect(seen.writer, 'a direct writer for an HTTPS chunked response').to.be.a('function');
    expect(body(raw)).to.equal(EXPECTED_BODY);
  });

  it('hands the headers to the connection first: Node counts them sent at writeHead, before they reach the socket', async () => {
    let sentBeforeFlush: boolean | undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Transfer-Encoding': 'chunked' });
      sentBeforeFlush = res.headersSent;
      const writer = directChunkWriter(res);
      void writer!(chunkOf(Buffer.from('first\n')));
      res.end();
    });
    const raw = (await rawExchange(server, (port) => net.connect(port, '127.0.0.1'))).toString('latin1');
    expect(sentBeforeFlush).to.equal(true);
    expect(raw).to.match(/^HTTP\/1\.1 200 OK\r\n[^]*\r\n\r\n6\r\nfirst\n\r\n0\r\n\r\n$/);
  });

  it('refuses a response pipelined behind another, whose output the HTTP layer holds until the first ends', async () => {
    let givenBehind: DirectChunkWriter | undefined | 'not asked' = 'not asked';
    let first: ServerResponse | undefined;
    const server = http.createServer((req, res) => {
      res.writeHead(200, { 'Transfer-Encoding': 'chunked' });
      if (req.url === '/first') {
        first = res;
        res.write('one\n');
        return;
      }
      givenBehind = directChunkWriter(res);
      res.write('two\n');
      res.end();
      first!.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      client.write(
        'GET /first HTTP/1.1\r\nHost: test\r\n\r\nGET /second HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n',
      );
      const chunks: Buffer[] = [];
      client.on('data', (c: Buffer) => chunks.push(c));
      await new Promise<void>((resolve) => client.on('close', () => resolve()));
      const raw = Buffer.concat(chunks).toString('latin1');
      expect(givenBehind).to.equal(undefined);
      expect(raw.indexOf('one\n')).to.be.above(0).and.below(raw.lastIndexOf('HTTP/1.1 200'));
      expect(raw.endsWith('4\r\ntwo\n\r\n0\r\n\r\n')).to.equal(true);
    } finally {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses a response that is not chunked (a Content-Length body has no chunk framing)', async () => {
    let given: DirectChunkWriter | undefined;
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Length': '3' });
      res.flushHeaders();
      given = directChunkWriter(res);
      res.end('abc');
    });
    await rawExchange(server, (port) => net.connect(port, '127.0.0.1'));
    expect(given).to.equal(undefined);
  });

  it('waits for a client that falls behind, and writes nothing and throws nothing once it is gone', async () => {
    let answered!: (res: ServerResponse) => void;
    const responded = new Promise<ServerResponse>((resolve) => {
      answered = resolve;
    });
    const server = http.createServer((_req, res) => {
      res.writeHead(200, { 'Transfer-Encoding': 'chunked' });
      res.flushHeaders();
      answered(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = net.connect((server.address() as AddressInfo).port, '127.0.0.1');
    try {
      client.write('GET /watch HTTP/1.1\r\nHost: test\r\n\r\n');
      // The client reads nothing, so the server's socket buffer fills.
      client.pause();
      const res = await responded;
      const socket = res.socket!;
      const writer = directChunkWriter(res);
      expect(writer).to.be.a('function');
      const big = chunkOf(Buffer.alloc(1 << 20, 0x61));
      let pending: Promise<void> | undefined;
      for (let i = 0; i < 64 && !pending; i++) pending = writer!(big);
      expect(pending, 'a promise once the socket is full').to.be.instanceOf(Promise);
      // The client goes away: the pending write resolves on close rather than hanging the watch.
      client.destroy();
      await pending;
      const errors: Error[] = [];
      socket.on('error', (e) => errors.push(e));
      expect(socket.destroyed).to.equal(true);
      expect(writer!(chunkOf(Buffer.from('late\n')))).to.equal(undefined);
      // Node reports a write to a destroyed socket on a later tick; there must be none to report.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(errors).to.deep.equal([]);
    } finally {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('refuses HTTP/2, which frames the body itself', async () => {
    let given: DirectChunkWriter | undefined | 'not asked' = 'not asked';
    const server = http2.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      given = directChunkWriter(res as unknown as ServerResponse);
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const stream = client.request({ ':path': '/watch' });
      stream.resume();
      await new Promise<void>((resolve, reject) => {
        stream.on('end', () => resolve());
        stream.on('error', reject);
      });
    } finally {
      client.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    expect(given).to.equal(undefined);
  });
});
