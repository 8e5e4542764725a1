// What a client can hold on the secure port without sending requests: a connection that has not finished its TLS
// handshake and its first request head within --read-header-timeout (counted from the TCP accept, for HTTP/1.1 and
// HTTP/2 alike) is closed, and --max-connections caps the connections open at once, logging when it bites. Short
// limits are configured, so no test waits kube-apiserver's 32 s.
import { expect } from 'chai';
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { performance } from 'node:perf_hooks';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { messagesOf, parseEntry } from '../helpers/klog.js';

const HEADER_TIMEOUT_MS = 400;

function addressOf(gh: TestGatehouse): { host: string; port: number } {
  const url = new URL(gh.url);
  return { host: url.hostname, port: Number(url.port) };
}

function tlsConnect(gh: TestGatehouse, protocol: 'http/1.1' | 'h2'): Promise<tls.TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { ...addressOf(gh), ca: gh.ca, servername: 'localhost', ALPNProtocols: [protocol] },
      () => {
        socket.off('error', reject);
        resolve(socket);
      },
    );
    socket.once('error', reject);
  });
}

/** Resolves with the milliseconds from `since` to the socket's close, and what the server sent on it. */
function closedAfter(socket: net.Socket, since: number): Promise<{ ms: number; received: string }> {
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  return new Promise((resolve) => {
    socket.once('close', () =>
      resolve({ ms: performance.now() - since, received: Buffer.concat(chunks).toString('latin1') }),
    );
  });
}

/** One HTTP/1.1 request on a connection of its own; resolves with the status line's code. */
async function http1Status(gh: TestGatehouse, path: string): Promise<number> {
  const socket = await tlsConnect(gh, 'http/1.1');
  const closed = closedAfter(socket, performance.now());
  socket.end(`GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
  const { received } = await closed;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1] ?? 0);
}

/** A health check over `session`, settled once its stream closes. */
async function healthz(session: http2.ClientHttp2Session): Promise<void> {
  const stream = session.request({ ':path': '/healthz' });
  stream.resume();
  await new Promise<void>((resolve) => stream.once('close', resolve));
}

/** `count` creates whose bodies are under way, never finished: streams the client can then give up on. */
function halfSentPosts(gh: TestGatehouse, session: http2.ClientHttp2Session, count: number): http2.ClientHttp2Stream[] {
  return Array.from({ length: count }, () => {
    const stream = session.request(
      {
        ':method': 'POST',
        ':path': '/api/v1/namespaces',
        authorization: `Bearer ${gh.adminToken}`,
        'content-type': 'application/json',
      },
      { endStream: false },
    );
    stream.on('error', () => {});
    stream.write('{"apiVersion":"v1",');
    return stream;
  });
}

describe('connection limits on the secure port', function () {
  this.timeout(30_000);

  describe('--read-header-timeout', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory', `--read-header-timeout=${HEADER_TIMEOUT_MS}ms`]);
    });
    after(async () => gh?.close());

    it('closes a TLS connection that sends no request (HTTP/1.1)', async () => {
      const started = performance.now();
      const socket = await tlsConnect(gh, 'http/1.1');
      const { ms, received } = await closedAfter(socket, started);
      expect(ms).to.be.within(HEADER_TIMEOUT_MS * 0.8, HEADER_TIMEOUT_MS + 5_000);
      expect(received).to.equal('');
    });

    it('closes an HTTP/2 connection whose client sent its preface and settings but no HEADERS frame', async () => {
      const started = performance.now();
      const session = http2.connect(gh.url, { ca: gh.ca });
      session.on('error', () => {});
      await new Promise<void>((resolve) => session.once('close', resolve));
      expect(performance.now() - started).to.be.within(HEADER_TIMEOUT_MS * 0.8, HEADER_TIMEOUT_MS + 5_000);
    });

    it('closes a connection that trickles its request head, without answering it', async () => {
      const started = performance.now();
      const socket = await tlsConnect(gh, 'http/1.1');
      const closed = closedAfter(socket, started);
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
      // A header line every 50 ms: every byte is progress, none completes the head.
      let n = 0;
      const trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(`X-Trickle-${n++}: 1\r\n`);
      }, 50);
      const { ms, received } = await closed;
      clearInterval(trickle);
      expect(ms).to.be.within(HEADER_TIMEOUT_MS * 0.8, HEADER_TIMEOUT_MS + 5_000);
      expect(n, 'the trickle went on until the close').to.be.greaterThan(2);
      expect(received).to.equal('');
    });

    it('counts from the TCP accept: a connection that never completes the TLS handshake is closed', async () => {
      const started = performance.now();
      const socket = net.connect(addressOf(gh));
      await new Promise<void>((resolve) => socket.once('connect', resolve));
      // The first bytes of a TLS record, and nothing more.
      socket.write(Buffer.from([0x16, 0x03, 0x01]));
      const { ms } = await closedAfter(socket, started);
      expect(ms).to.be.within(HEADER_TIMEOUT_MS * 0.8, HEADER_TIMEOUT_MS + 5_000);
    });

    it('keeps connections whose requests come in time, and their keep-alive past the header timeout', async () => {
      const socket = await tlsConnect(gh, 'http/1.1');
      const closed = closedAfter(socket, performance.now());
      socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
      const first = await new Promise<string>((resolve) =>
        socket.once('data', (c: Buffer) => resolve(c.toString('latin1'))),
      );
      expect(first).to.match(/^HTTP\/1\.1 200/);
      // Idle for twice the header timeout (the keep-alive idle timeout is 90 s): still open, and serving.
      const idle = new Promise<string>((resolve) => setTimeout(() => resolve('open'), HEADER_TIMEOUT_MS * 2));
      expect(await Promise.race([idle, closed.then(() => 'closed')])).to.equal('open');
      socket.end('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
      expect((await closed).received).to.match(/^HTTP\/1\.1 200/);
    });

    it('keeps an HTTP/2 connection whose first stream came in time', async () => {
      const session = http2.connect(gh.url, { ca: gh.ca });
      session.on('error', () => {});
      const closed = new Promise<string>((resolve) => session.once('close', () => resolve('closed')));
      const healthz = (): Promise<number> =>
        new Promise((resolve, reject) => {
          const stream = session.request({ ':path': '/healthz' });
          stream.once('response', (h) => resolve(Number(h[':status'])));
          stream.once('error', reject);
          stream.resume();
        });
      expect(await healthz()).to.equal(200);
      const idle = new Promise<string>((resolve) => setTimeout(() => resolve('open'), HEADER_TIMEOUT_MS * 2));
      expect(await Promise.race([idle, closed])).to.equal('open');
      expect(await healthz()).to.equal(200);
      session.close();
    });

    it('sums the closed connections up in one log line, not one each', () => {
      const lines = messagesOf(gh.logs).filter((line) => line.includes('--read-header-timeout'));
      expect(lines).to.have.length(1);
      expect(lines[0]).to.match(/^closed 1 connection that sent no complete request head within 0\.4s/);
    });
  });

  describe('--max-connections', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory', '--max-connections=3']);
    });
    after(async () => gh?.close());

    it('closes connections beyond the cap at once, logs that once, and serves new clients when others have gone', async () => {
      const held = await Promise.all([0, 1, 2].map(() => tlsConnect(gh, 'http/1.1')));
      // Past the cap, the server closes the TCP connection before any TLS: the handshake fails.
      for (let i = 0; i < 3; i++) {
        const refused = await tlsConnect(gh, 'http/1.1').then(
          (s) => {
            s.destroy();
            return false;
          },
          () => true,
        );
        expect(refused, `connection ${4 + i} was refused`).to.equal(true);
      }
      const lines = messagesOf(gh.logs).filter((line) => line.includes('--max-connections'));
      expect(lines).to.deep.equal([
        'refusing new connections: 3 are open, the limit set by --max-connections (further refusals are summed up once a minute)',
      ]);

      // One client leaves; once the server has seen it go, a new client is served.
      const gone = new Promise<void>((resolve) => held[0].once('close', resolve));
      held[0].end();
      await gone;
      let status = 0;
      for (let attempt = 0; attempt < 50 && status === 0; attempt++)
        status = await http1Status(gh, '/healthz').catch(() => 0);
      expect(status).to.equal(200);
      for (const socket of held) socket.destroy();
    });
  });

  describe('HTTP/2 streams the client resets', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory']);
    });
    after(async () => gh?.close());

    it('are counted and summed up in one log line, not a stack trace each', async () => {
      const session = http2.connect(gh.url, { ca: gh.ca });
      session.on('error', () => {});
      await new Promise((resolve) => session.once('remoteSettings', resolve));
      const codes = [
        http2.constants.NGHTTP2_REFUSED_STREAM,
        http2.constants.NGHTTP2_CANCEL,
        http2.constants.NGHTTP2_INTERNAL_ERROR,
      ];
      // Requests whose bodies are under way when the client gives up on them.
      const streams = halfSentPosts(gh, session, 60);
      // Frames are handled in order: once a later request is answered, the server has the streams before it.
      await healthz(session);
      // Nor does any of it reach the console, bypassing the server's log.
      const printed: unknown[][] = [];
      const consoleError = console.error;
      console.error = (...args: unknown[]) => {
        printed.push(args);
      };
      try {
        await Promise.all(
          streams.map((stream, i) => {
            const closed = new Promise<void>((resolve) => stream.once('close', resolve));
            stream.close(codes[i % codes.length]);
            return closed;
          }),
        );
        // And once another is answered, it has seen their resets.
        await healthz(session);
        // A client that drops its whole connection with bodies under way ends them all at once.
        const dropped = http2.connect(gh.url, { ca: gh.ca });
        dropped.on('error', () => {});
        halfSentPosts(gh, dropped, 20);
        const ping = dropped.request({ ':path': '/healthz' });
        ping.resume();
        await new Promise<void>((resolve) => ping.once('close', resolve));
        dropped.destroy();
        // The drop reaches the server before a new connection's handshake is done.
        const after = await http1Status(gh, '/healthz');
        expect(after).to.equal(200);
      } finally {
        console.error = consoleError;
      }
      expect(printed, 'printed to the console').to.deep.equal([]);
      session.close();

      expect(
        gh.logs.filter((line) => /\n\s+at /.test(line)),
        'stack traces',
      ).to.deep.equal([]);
      expect(messagesOf(gh.logs).filter((line) => /stream/i.test(line))).to.deep.equal([
        'a client reset its stream or closed its connection before its answer was sent (such endings are counted and summed up once a minute)',
      ]);
    });
  });
  describe('HTTP/2 streams the client resets, at -v 2', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory', '-v', '2']);
    });
    after(async () => gh?.close());

    it('are a debug entry each, besides the summary at info', async () => {
      const session = http2.connect(gh.url, { ca: gh.ca });
      session.on('error', () => {});
      await new Promise((resolve) => session.once('remoteSettings', resolve));
      const streams = halfSentPosts(gh, session, 5);
      await healthz(session);
      await Promise.all(
        streams.map((stream) => {
          const closed = new Promise<void>((resolve) => stream.once('close', resolve));
          stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
          return closed;
        }),
      );
      // Frames are handled in order: once a later request is answered, the server has seen the resets.
      await healthz(session);
      session.close();
      const endings = gh.logs
        .map(parseEntry)
        .filter((entry) => entry?.message === 'the client ended its request before the answer was sent');
      expect(endings).to.have.length(5);
      expect(endings.every((entry) => entry?.severity === 'I')).to.equal(true);
      expect(messagesOf(gh.logs).filter((message) => /summed up once a minute/.test(message))).to.have.length(1);
    });
  });
});
