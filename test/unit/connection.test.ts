// What a request tells about its connection (gateway/server/connection.ts), over a real TLS server speaking both
// protocols: HTTP/2 streams of one session share their connection but not their client-gone signal.
import { expect } from 'chai';
import http2 from 'node:http2';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadOrCreateCertificates } from '../../gateway/server/certs.js';
import { clientGoneSignal, connectionOf } from '../../gateway/server/connection.js';
import { createSecureServer, type SecureServer, type SecureServerOptions } from '../../gateway/server/secure-server.js';
import { ManualClock } from '../helpers/manual-clock.js';

interface Seen {
  connection: object;
  signal: AbortSignal;
  http2: boolean;
  /** The server side of the stream (HTTP/2) or connection (HTTP/1.1) closed, after clientGoneSignal saw it close. */
  closed: Promise<void>;
}

/** Resolves when `signal` aborts. */
const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** A condition re-checked whenever `notify` is called: state that changes in callbacks, awaited without polling. */
function condition() {
  const waiters = new Set<() => void>();
  return {
    notify: () => {
      for (const check of [...waiters]) check();
    },
    until: (ready: () => boolean) =>
      new Promise<void>((resolve) => {
        if (ready()) return resolve();
        const check = () => {
          if (!ready()) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
      }),
  };
}

interface Served {
  url: string;
  ca: string;
  secure: SecureServer;
  /** Answers of the requests to /hold, which stay open until the test calls them. */
  held: Array<() => void>;
  /** Resolves once `count` requests to /hold are held. */
  holding(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** A real TLS listener of both protocols on a free port, telling `onRequest` of every request. */
async function serve(
  onRequest: (req: http2.Http2ServerRequest | IncomingMessage) => void,
  opts: Partial<SecureServerOptions> = {},
): Promise<Served> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-connection-'));
  const certs = await loadOrCreateCertificates({ certDir: dir, bindAddress: '127.0.0.1' });
  const held: Array<() => void> = [];
  const heldChanged = condition();
  const secure = createSecureServer(
    { tls: { cert: certs.certPem, key: certs.keyPem }, maxStreamsPerConnection: 100, ...opts },
    (req, res) => {
      onRequest(req);
      const answer = () => res.end('ok');
      if (req.url === '/hold') {
        held.push(answer);
        heldChanged.notify();
      } else answer();
    },
  );
  await new Promise<void>((resolve) => secure.server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(secure.server.address() as AddressInfo).port}`,
    ca: certs.caPem,
    secure,
    held,
    holding: (count) => heldChanged.until(() => held.length >= count),
    async stop() {
      secure.closeAllConnections();
      await new Promise<void>((resolve) => secure.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe('request connections over HTTP/1.1 and HTTP/2', function () {
  this.timeout(20_000);
  let served: Served;
  let url: string;
  let ca: string;
  let held: Array<() => void>;
  const seen: Seen[] = [];
  const arrivals = condition();

  before(async () => {
    served = await serve((req) => {
      const signal = clientGoneSignal(req);
      // Listening after clientGoneSignal did, this hears the close after any abort it caused.
      const channel = req.httpVersionMajor === 2 ? (req as http2.Http2ServerRequest).stream : req.socket;
      const closed = new Promise<void>((resolve) => channel.once('close', () => resolve()));
      seen.push({ connection: connectionOf(req), signal, http2: req.httpVersionMajor === 2, closed });
      arrivals.notify();
    });
    ({ url, ca, held } = served);
  });
  after(() => served?.stop());
  beforeEach(() => {
    seen.length = 0;
  });

  const h2get = (session: http2.ClientHttp2Session, p: string) => {
    const stream = session.request({ ':path': p });
    stream.resume();
    stream.once('error', () => {});
    return stream;
  };
  const waitFor = (n: number) => arrivals.until(() => seen.length >= n);

  it('HTTP/2: one connection object for every stream of a session, another for another session', async () => {
    const a = http2.connect(url, { ca });
    const b = http2.connect(url, { ca });
    try {
      h2get(a, '/one');
      h2get(a, '/two');
      await waitFor(2);
      h2get(b, '/three');
      await waitFor(3);
      expect(seen.every((s) => s.http2)).to.equal(true);
      expect(seen[0].connection).to.equal(seen[1].connection);
      expect(seen[2].connection).to.not.equal(seen[0].connection);
      // The TLS socket's methods reach through (client-certificate authentication reads the peer this way).
      expect(typeof (seen[0].connection as unknown as { getPeerCertificate: unknown }).getPeerCertificate).to.equal(
        'function',
      );
    } finally {
      a.destroy();
      b.destroy();
    }
  });

  it('HTTP/2: a cancelled stream aborts its own signal only', async () => {
    const session = http2.connect(url, { ca });
    try {
      const first = h2get(session, '/hold');
      h2get(session, '/hold');
      await waitFor(2);
      first.close(http2.constants.NGHTTP2_CANCEL);
      await aborted(seen[0].signal);
      expect(seen[1].signal.aborted).to.equal(false);
    } finally {
      session.destroy();
      for (const answer of held.splice(0)) answer();
    }
  });

  it('HTTP/2: a stream answered in full closes without aborting its signal', async () => {
    const session = http2.connect(url, { ca });
    try {
      const stream = h2get(session, '/answered');
      await new Promise((resolve) => stream.once('close', resolve));
      await waitFor(1);
      // An abort would happen as the server side's stream closes.
      await seen[0].closed;
      expect(seen[0].signal.aborted).to.equal(false);
    } finally {
      session.destroy();
    }
  });

  it('HTTP/1.1: requests of one keep-alive connection share it and its signal, which aborts when it closes', async () => {
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca });
    const get = () =>
      new Promise<void>((resolve, reject) => {
        https
          .get(`${url}/x`, { agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
    await get();
    await get();
    expect(seen[0].http2).to.equal(false);
    expect(seen[0].connection).to.equal(seen[1].connection);
    expect(seen[0].signal).to.equal(seen[1].signal);
    expect(seen[0].signal.aborted).to.equal(false);
    agent.destroy();
    await aborted(seen[0].signal);
  });
});

describe('idle HTTP/2 sessions', function () {
  this.timeout(20_000);
  let served: Served;
  let url: string;
  let ca: string;
  let held: Array<() => void>;
  const IDLE_MS = 150;
  // The idle timeout runs on this clock: the tests step past it instead of waiting it out.
  const clock = new ManualClock();

  before(async () => {
    served = await serve(() => {}, { idleTimeoutMs: IDLE_MS, clock });
    ({ url, ca, held } = served);
  });
  after(() => served?.stop());

  it('are told to go away once no stream was open for the idle timeout', async () => {
    const session = http2.connect(url, { ca });
    const closed = new Promise<void>((resolve) => session.once('close', resolve));
    const goaway = new Promise<void>((resolve) => session.once('goaway', () => resolve()));
    await new Promise<void>((resolve) => {
      const stream = session.request({ ':path': '/x' });
      stream.resume();
      stream.once('end', resolve);
    });
    // Armed when the server side of the stream closes, which may come after the client saw the end.
    const idle = await clock.timer();
    expect(idle.ms).to.equal(IDLE_MS);
    clock.advance(IDLE_MS - 1);
    expect(clock.pending()).to.include(idle);
    clock.advance(1);
    await goaway;
    await closed;
  });

  it('stay open while a stream is open, however quiet, and go away an idle timeout after it ends', async () => {
    const session = http2.connect(url, { ca });
    const closed = new Promise<void>((resolve) => session.once('close', resolve));
    const stream = session.request({ ':path': '/hold' });
    stream.resume();
    await served.holding(1);
    // An open stream leaves no idle timer running, however far time moves.
    expect(clock.pending()).to.deep.equal([]);
    clock.advance(60 * IDLE_MS);
    expect(session.closed).to.equal(false);
    held.splice(0).forEach((answer) => answer());
    await new Promise<void>((resolve) => stream.once('end', resolve));
    const idle = await clock.timer();
    expect(idle.ms).to.equal(IDLE_MS);
    clock.advance(IDLE_MS);
    await closed;
  });
});

describe('GOAWAY by chance (--goaway-chance)', function () {
  this.timeout(20_000);
  let served: Served;
  // The draws the listener makes, in order; a request whose draw is below the chance sends its connection away.
  const draws: number[] = [];

  before(async () => {
    served = await serve(() => {}, { goawayChance: 0.02, random: () => draws.shift() ?? 0.5 });
  });
  after(() => served?.stop());

  const h2 = (session: http2.ClientHttp2Session, p: string) =>
    new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':path': p });
      let status = 0;
      stream.on('response', (h) => {
        status = Number(h[':status']);
      });
      stream.resume();
      stream.once('end', () => resolve(status));
      stream.once('error', reject);
    });

  it('answers the drawn request and the ones in flight, then the client must reconnect', async () => {
    const session = http2.connect(served.url, { ca: served.ca });
    let goaway = false;
    const sentAway = new Promise<void>((resolve) =>
      session.once('goaway', () => {
        goaway = true;
        resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => session.once('close', resolve));
    try {
      draws.push(0.5);
      expect(await h2(session, '/first')).to.equal(200);
      expect(goaway).to.equal(false);
      // A request in flight when the connection is sent away still gets its answer.
      const heldStream = session.request({ ':path': '/hold' });
      heldStream.resume();
      const heldEnded = new Promise<void>((resolve) => heldStream.once('end', resolve));
      await served.holding(1);
      draws.push(0.01);
      expect(await h2(session, '/drawn')).to.equal(200);
      await sentAway;
      served.held.splice(0).forEach((answer) => answer());
      await heldEnded;
      await closed;
      expect(() => session.request({ ':path': '/late' })).to.throw();
    } finally {
      session.destroy();
    }
  });

  it('never sends an HTTP/1.1 connection away', async () => {
    draws.push(0, 0, 0);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: served.ca });
    const sockets = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      await new Promise<void>((resolve, reject) => {
        https
          .get(`${served.url}/x`, { agent }, (res) => {
            sockets.add(res.socket);
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      });
    }
    agent.destroy();
    expect(sockets.size).to.equal(1);
    draws.length = 0;
  });
});
