// kube-apiserver's in-flight limits (--max-requests-inflight, --max-mutating-requests-inflight) and the bound on
// reading a request body (--read-body-timeout), over real TLS connections. Requests are held in flight by events the
// test controls, never by sleeping: a mutating request by a body whose end the test has not sent yet, a read by a
// list at a resource version the server has not reached (it waits for it, up to 3 s).
import { expect } from 'chai';
import http2 from 'node:http2';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { expectFailure } from '../helpers/api.js';

const ALICE = 'alice-token-in-flight';
const SSAR = '/apis/authorization.platform.io/v1/selfsubjectaccessreviews';
const SSAR_BODY = JSON.stringify({
  apiVersion: 'authorization.platform.io/v1',
  kind: 'SelfSubjectAccessReview',
  spec: { resourceAttributes: { verb: 'get', resource: 'pods', namespace: 'default' } },
});

interface HeldRequest {
  /** Sends the rest of the body; resolves with the answer. */
  finish(): Promise<GatehouseResponse>;
  /** The answer, whenever it comes (a held request the server gives up on). */
  answer: Promise<GatehouseResponse>;
  socket: tls.TLSSocket;
}

function parseHttp1(raw: Buffer): GatehouseResponse {
  const text = raw.toString('latin1');
  const headEnd = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(Buffer.byteLength(text.slice(0, headEnd + 4), 'latin1'));
  if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    for (let at = 0; ;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  const bodyText = body.toString('utf8');
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: bodyText,
    raw: body,
    json: () => JSON.parse(bodyText),
  };
}

/**
 * A POST on a connection of its own (Connection: close, so its answer ends with the connection) that sends its
 * headers and the first byte of its body, then waits: it is in flight from the moment the server reads its body.
 */
async function holdPost(gh: TestGatehouse, urlPath: string, body: string, token: string): Promise<HeldRequest> {
  const url = new URL(gh.url);
  const socket = await new Promise<tls.TLSSocket>((resolve, reject) => {
    const s = tls.connect(
      { host: url.hostname, port: Number(url.port), ca: gh.ca, servername: 'localhost', ALPNProtocols: ['http/1.1'] },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const chunks: Buffer[] = [];
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('error', () => {});
  const answer = new Promise<GatehouseResponse>((resolve) =>
    socket.once('close', () => resolve(parseHttp1(Buffer.concat(chunks)))),
  );
  socket.write(
    `POST ${urlPath} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body.slice(0, 1)}`,
  );
  return {
    socket,
    answer,
    finish() {
      socket.write(body.slice(1));
      return answer;
    },
  };
}

/**
 * Sends `probe` until it is refused, at most `attempts` times: a held request reaches the limiter shortly after its
 * headers, and a probe that got there first was served and left, freeing its place.
 */
async function untilRefused(probe: () => Promise<GatehouseResponse>, attempts = 50): Promise<GatehouseResponse> {
  let res!: GatehouseResponse;
  for (let i = 0; i < attempts; i++) {
    res = await probe();
    if (res.status === 429) return res;
  }
  return res;
}

function expectTooManyRequests(res: GatehouseResponse): void {
  const status = expectFailure(res, 429, 'TooManyRequests');
  expect(res.headers['retry-after']).to.equal('1');
  expect(status.message).to.equal('Too many requests, please try again later.');
  expect(status.details).to.deep.equal({ retryAfterSeconds: 1 });
}

describe('requests in flight', function () {
  this.timeout(30_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-in-flight-'));
    await writeFile(path.join(dir, 'tokens.csv'), `${ALICE},alice,alice-uid,"staff"\n`);
  });
  after(async () => rm(dir, { recursive: true, force: true }));

  describe('--max-requests-inflight=1 --max-mutating-requests-inflight=1', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse([
        '--storage-backend',
        'memory',
        '--token-auth-file',
        path.join(dir, 'tokens.csv'),
        '--max-requests-inflight=1',
        '--enable-priority-and-fairness=false',
        '--max-mutating-requests-inflight=1',
      ]);
    });
    after(async () => gh?.close());

    const review = (token: string) => gh.request('POST', SSAR, { body: SSAR_BODY, token });

    it('refuses a mutating request past the limit with 429, Retry-After: 1 and a Status, and serves it again once a place is free', async () => {
      const held = await holdPost(gh, SSAR, SSAR_BODY, ALICE);
      expectTooManyRequests(await untilRefused(() => review(ALICE)));
      // Reads are counted apart.
      expect((await gh.request('GET', '/api/v1/namespaces', { token: ALICE })).status).to.equal(200);
      const done = await held.finish();
      expect(done.status, done.body).to.equal(201);
      expect((await review(ALICE)).status).to.equal(201);
    });

    it('serves system:masters past the limit', async () => {
      const held = await holdPost(gh, SSAR, SSAR_BODY, ALICE);
      expectTooManyRequests(await untilRefused(() => review(ALICE)));
      const admin = await gh.request('POST', SSAR, { body: SSAR_BODY });
      expect(admin.status, admin.body).to.equal(201);
      expect((await held.finish()).status).to.equal(201);
    });

    it('refuses a read past the limit and does not count watches', async () => {
      const current = BigInt((await gh.request('GET', '/api/v1/namespaces')).json().metadata.resourceVersion);
      // A list at a revision not reached yet waits for it: the read holds its place until a write comes.
      const future = `/api/v1/namespaces?resourceVersion=${current + 1n}&resourceVersionMatch=NotOlderThan`;
      const waiting = gh.request('GET', future, { token: ALICE });
      expectTooManyRequests(
        await untilRefused(() => gh.request('GET', '/api/v1/namespaces/default', { token: ALICE })),
      );

      const watch = await new Promise<number>((resolve, reject) => {
        const session = http2.connect(gh.url, { ca: gh.ca });
        session.on('error', reject);
        const stream = session.request({ ':path': '/api/v1/namespaces?watch=1', authorization: `Bearer ${ALICE}` });
        stream.once('response', (h) => {
          resolve(Number(h[':status']));
          session.destroy();
        });
        stream.on('error', () => {});
      });
      expect(watch).to.equal(200);

      // The write the waiting read needs; then reads are served again.
      expect(
        (await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: `in-flight-${process.pid}` } } }))
          .status,
      ).to.equal(201);
      expect((await waiting).status).to.equal(200);
      expect((await gh.request('GET', '/api/v1/namespaces/default', { token: ALICE })).status).to.equal(200);
    });
  });

  describe('0 disables a limit', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse([
        '--storage-backend',
        'memory',
        '--token-auth-file',
        path.join(dir, 'tokens.csv'),
        '--max-requests-inflight=0',
        '--enable-priority-and-fairness=false',
        '--max-mutating-requests-inflight=0',
      ]);
    });
    after(async () => gh?.close());

    it('serves every request however many are in flight', async () => {
      const held = await Promise.all([0, 1, 2].map(() => holdPost(gh, SSAR, SSAR_BODY, ALICE)));
      for (let i = 0; i < 10; i++)
        expect((await gh.request('POST', SSAR, { body: SSAR_BODY, token: ALICE })).status).to.equal(201);
      for (const request of held) expect((await request.finish()).status).to.equal(201);
    });
  });

  describe('--read-body-timeout', () => {
    const BODY_TIMEOUT_MS = 300;
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse([
        '--storage-backend',
        'memory',
        '--token-auth-file',
        path.join(dir, 'tokens.csv'),
        '--max-mutating-requests-inflight=1',
        `--read-body-timeout=${BODY_TIMEOUT_MS}ms`,
      ]);
    });
    after(async () => gh?.close());

    it('answers a body that does not arrive in time with 504 Timeout, closes the HTTP/1.1 connection and frees its place', async () => {
      const started = Date.now();
      const held = await holdPost(gh, SSAR, SSAR_BODY, ALICE);
      const res = await held.answer;
      expect(Date.now() - started).to.be.below(10_000);
      const status = expectFailure(res, 504, 'Timeout');
      expect(status.message).to.equal(
        'Timeout: request did not complete within requested timeout - the request body did not arrive whole within 0.3s',
      );
      expect(res.headers.connection).to.equal('close');
      expect((await gh.request('POST', SSAR, { body: SSAR_BODY, token: ALICE })).status).to.equal(201);
    });

    it('answers 504 on an HTTP/2 stream and ends the stream, the connection serving on', async () => {
      const session = http2.connect(gh.url, { ca: gh.ca });
      session.on('error', () => {});
      const stream = session.request(
        { ':method': 'POST', ':path': SSAR, authorization: `Bearer ${ALICE}`, 'content-type': 'application/json' },
        { endStream: false },
      );
      stream.write(SSAR_BODY.slice(0, 1));
      const chunks: Buffer[] = [];
      let code = 0;
      stream.on('response', (h) => {
        code = Number(h[':status']);
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', () => {});
      await new Promise<void>((resolve) => stream.once('close', resolve));
      expect(code).to.equal(504);
      expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).to.include({
        kind: 'Status',
        reason: 'Timeout',
        code: 504,
      });
      expect(stream.rstCode).to.equal(http2.constants.NGHTTP2_NO_ERROR);

      const next = session.request({
        ':method': 'POST',
        ':path': SSAR,
        authorization: `Bearer ${ALICE}`,
        'content-type': 'application/json',
      });
      next.end(SSAR_BODY);
      next.resume();
      const nextCode = await new Promise<number>((resolve) =>
        next.once('response', (h) => resolve(Number(h[':status']))),
      );
      expect(nextCode).to.equal(201);
      session.close();
    });
  });
});
