// HTTP/2 on the secure port, as kube-apiserver serves it and as client-go (kubectl) speaks it: ALPN picks the
// protocol per connection, requests and watches multiplex over one connection, identity headers keep one value per
// header line, bodies come without a declared length, and shutdown ends the sessions.
import { expect } from 'chai';
import http2 from 'node:http2';
import tls from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

interface H2Response {
  status: number;
  headers: http2.IncomingHttpHeaders;
  body: string;
  raw: Buffer;
  json(): any;
}

function connect(gh: TestGatehouse): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(gh.url, { ca: gh.ca });
    session.once('error', reject);
    session.once('remoteSettings', () => {
      session.off('error', reject);
      resolve(session);
    });
  });
}

/** One request on `session`; a body goes without content-length, as HTTP/2 allows. */
function request(
  session: http2.ClientHttp2Session,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  headers: http2.OutgoingHttpHeaders = {},
): Promise<H2Response> {
  return new Promise((resolve, reject) => {
    const stream = session.request(
      {
        ':method': method,
        ':path': path,
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      { endStream: body === undefined },
    );
    let status = 0;
    let responseHeaders: http2.IncomingHttpHeaders = {};
    const chunks: Buffer[] = [];
    stream.on('response', (h) => {
      status = Number(h[':status']);
      responseHeaders = h;
    });
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      const raw = Buffer.concat(chunks);
      const text = raw.toString('utf8');
      resolve({ status, headers: responseHeaders, body: text, raw, json: () => JSON.parse(text) });
    });
    stream.on('error', reject);
    if (body !== undefined) stream.end(Buffer.isBuffer(body) ? body : JSON.stringify(body));
  });
}

interface H2Watch {
  names: string[];
  /** Resolves once `count` events arrived; rejects if the stream ends first or none come within `ms`. */
  named(count: number, ms?: number): Promise<void>;
  ended: Promise<void>;
  cancel(): void;
}

function watch(session: http2.ClientHttp2Session, token: string, path: string): Promise<H2Watch> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, authorization: `Bearer ${token}` });
    const names: string[] = [];
    const waiters = new Set<() => void>();
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (text: string) => {
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      for (const line of lines) if (line) names.push(JSON.parse(line).object.metadata.name);
      for (const check of [...waiters]) check();
    });
    let closed = false;
    const ended = new Promise<void>((done) =>
      stream.once('close', () => {
        closed = true;
        for (const check of [...waiters]) check();
        done();
      }),
    );
    const named = (count: number, ms = 5_000) =>
      new Promise<void>((resolveNamed, rejectNamed) => {
        const settle = (error?: Error): void => {
          waiters.delete(check);
          clearTimeout(timer);
          if (error) rejectNamed(error);
          else resolveNamed();
        };
        const check = (): void => {
          if (names.length >= count) settle();
          else if (closed) settle(new Error(`watch ended after ${names.length} of ${count} events`));
        };
        const timer = setTimeout(() => settle(new Error(`${names.length} of ${count} events within ${ms} ms`)), ms);
        waiters.add(check);
        check();
      });
    stream.once('error', () => {});
    stream.once('response', (h) => {
      if (h[':status'] !== 200) reject(new Error(`watch answered ${h[':status']}`));
      else resolve({ names, named, ended, cancel: () => stream.close(http2.constants.NGHTTP2_CANCEL) });
    });
  });
}

function negotiated(gh: TestGatehouse, protocols: string[]): Promise<string | false | null> {
  const url = new URL(gh.url);
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: url.hostname, port: Number(url.port), ca: gh.ca, ALPNProtocols: protocols },
      () => {
        resolve(socket.alpnProtocol);
        socket.destroy();
      },
    );
    socket.once('error', reject);
  });
}

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

describe('HTTP/2 on the secure port', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  let session: http2.ClientHttp2Session;

  before(async () => {
    gh = await startTestGatehouse(['--storage-backend=memory']);
    session = await connect(gh);
  });
  after(async () => {
    session?.destroy();
    await gh?.close();
  });

  it('is chosen by ALPN, beside HTTP/1.1 on the same port', async () => {
    expect(await negotiated(gh, ['h2', 'http/1.1'])).to.equal('h2');
    expect(await negotiated(gh, ['http/1.1'])).to.equal('http/1.1');
    const res = await gh.request('GET', '/version');
    expect(res.status).to.equal(200);
  });

  it('offers 1000 concurrent streams per connection by default, as kube-apiserver does', () => {
    expect(session.remoteSettings.maxConcurrentStreams).to.equal(1000);
  });

  it('serves create, get and errors as Status objects', async () => {
    const created = await request(session, gh.adminToken, 'POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'h2-a' },
      data: { k: 'v' },
    });
    expect(created.status, created.body).to.equal(201);
    const got = await request(session, gh.adminToken, 'GET', `${CONFIGMAPS}/h2-a`);
    expect(got.status).to.equal(200);
    expect(got.json().data).to.deep.equal({ k: 'v' });
    const missing = await request(session, gh.adminToken, 'GET', `${CONFIGMAPS}/h2-none`);
    expect(missing.status).to.equal(404);
    expect(missing.json()).to.include({
      kind: 'Status',
      reason: 'NotFound',
      message: 'configmaps "h2-none" not found',
    });
    const anonymous = await request(session, 'not-a-token', 'GET', CONFIGMAPS);
    expect(anonymous.status).to.equal(401);
  });

  it('answers HEAD of an object and of a list with the length of its GET and no body (the stream ends)', async () => {
    const created = await request(session, gh.adminToken, 'POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'h2-head' },
      data: { k: 'v' },
    });
    expect(created.status, created.body).to.equal(201);
    for (const path of [`${CONFIGMAPS}/h2-head`, CONFIGMAPS]) {
      const got = await request(session, gh.adminToken, 'GET', path);
      const head = await request(session, gh.adminToken, 'HEAD', path);
      expect(head.status, path).to.equal(200);
      expect(head.headers['content-length'], path).to.equal(String(got.raw.length));
      expect(head.raw.length, path).to.equal(0);
    }
  });

  it('answers a list of more than a hundred items whole and alike over HTTP/1.1, HTTP/2 and gzip', async () => {
    // Past 100 items a list is encoded from its items' kept encodings and written as pieces (request-scope.ts).
    const ns = await gh.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'h2-pages' } },
    });
    expect(ns.status, ns.body).to.equal(201);
    const path = '/api/v1/namespaces/h2-pages/configmaps';
    const names = Array.from({ length: 150 }, (_, i) => `p-${String(i).padStart(3, '0')}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(
        names.slice(i, i + 50).map(async (name) => {
          const res = await gh.request('POST', path, {
            body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: name.repeat(20) } },
          });
          expect(res.status, res.body).to.equal(201);
        }),
      );
    }
    const overHttp1 = await gh.request('GET', `${path}?limit=500`);
    expect(overHttp1.status).to.equal(200);
    expect(overHttp1.headers['content-length']).to.equal(String(overHttp1.raw.length));
    const list = overHttp1.json();
    expect(list.kind).to.equal('ConfigMapList');
    expect(list.items.map((i: { metadata: { name: string } }) => i.metadata.name)).to.deep.equal(names);
    expect(list.items[149].data).to.deep.equal({ v: names[149].repeat(20) });

    const overHttp2 = await request(session, gh.adminToken, 'GET', `${path}?limit=500`);
    expect(overHttp2.status).to.equal(200);
    expect(overHttp2.headers['content-length']).to.equal(String(overHttp2.raw.length));
    expect(overHttp2.raw.equals(overHttp1.raw)).to.equal(true);

    const gzipped = await gh.request('GET', `${path}?limit=500`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).to.equal('gzip');
    expect(gunzipSync(gzipped.raw).equals(overHttp1.raw)).to.equal(true);
  });

  it('reads a delete body that comes without content-length', async () => {
    await request(session, gh.adminToken, 'POST', CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'h2-del' },
    });
    // A precondition that cannot hold: only a body that was read makes this a 409.
    const refused = await request(session, gh.adminToken, 'DELETE', `${CONFIGMAPS}/h2-del`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      preconditions: { uid: 'not-the-uid' },
    });
    expect(refused.status, refused.body).to.equal(409);
    expect(refused.json().message).to.contain('not-the-uid');
    const deleted = await request(session, gh.adminToken, 'DELETE', `${CONFIGMAPS}/h2-del`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
    });
    expect(deleted.status, deleted.body).to.equal(200);
  });

  it('compresses a get for a client that accepts gzip', async () => {
    const res = await request(session, gh.adminToken, 'GET', CONFIGMAPS, undefined, { 'accept-encoding': 'gzip' });
    expect(res.status).to.equal(200);
    expect(res.headers['content-encoding']).to.equal('gzip');
    expect(JSON.parse(gunzipSync(res.raw).toString('utf8'))).to.include({ kind: 'ConfigMapList' });
  });

  it('refuses a body past --max-request-body-bytes with 413 though it declares no length', async () => {
    const big = Buffer.alloc((3 << 20) + 1024, 0x20);
    const res = await request(session, gh.adminToken, 'POST', CONFIGMAPS, big);
    expect(res.status).to.equal(413);
    expect(res.json()).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge' });
    // The connection outlives the refused stream.
    expect((await request(session, gh.adminToken, 'GET', '/version')).status).to.equal(200);
  });

  it('keeps one value per header line for identity headers (a group name with a comma stays whole)', async () => {
    const review = await request(
      session,
      gh.adminToken,
      'POST',
      '/apis/authentication.platform.io/v1/selfsubjectreviews',
      { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
      { 'impersonate-user': 'jane', 'impersonate-group': ['dev,ops', 'qa'] },
    );
    expect(review.status, review.body).to.equal(201);
    expect(review.json().status.userInfo).to.deep.include({ username: 'jane' });
    expect(review.json().status.userInfo.groups).to.include.members(['dev,ops', 'qa']);
  });

  it('multiplexes many watches on one connection; cancelling one leaves the others and the connection working', async () => {
    const listed = await request(session, gh.adminToken, 'GET', `${CONFIGMAPS}?limit=1`);
    const rv = listed.json().metadata.resourceVersion;
    const watches = await Promise.all(
      Array.from({ length: 50 }, () =>
        watch(session, gh.adminToken, `${CONFIGMAPS}?watch=1&resourceVersion=${rv}&labelSelector=h2%3Dwatch`),
      ),
    );
    const create = (name: string) =>
      request(session, gh.adminToken, 'POST', CONFIGMAPS, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, labels: { h2: 'watch' } },
      });
    await create('h2-w1');
    await Promise.all(watches.map((w) => w.named(1)));
    watches[0].cancel();
    await watches[0].ended;
    await create('h2-w2');
    await Promise.all(watches.slice(1).map((w) => w.named(2)));
    expect(watches[0].names).to.deep.equal(['h2-w1']);
    for (const w of watches.slice(1)) expect(w.names).to.deep.equal(['h2-w1', 'h2-w2']);
    expect((await request(session, gh.adminToken, 'GET', `${CONFIGMAPS}/h2-w2`)).status).to.equal(200);
    for (const w of watches.slice(1)) w.cancel();
  });
});

describe('HTTP/2 settings and shutdown', function () {
  this.timeout(30_000);

  it('--http2-max-streams-per-connection sets the streams offered per connection', async () => {
    const gh = await startTestGatehouse(['--storage-backend=memory', '--http2-max-streams-per-connection=7']);
    try {
      const session = await connect(gh);
      expect(session.remoteSettings.maxConcurrentStreams).to.equal(7);
      session.destroy();
    } finally {
      await gh.close();
    }
  });

  it('--goaway-chance sends clients to new connections now and then, losing no request', async () => {
    const gh = await startTestGatehouse(['--storage-backend=memory', '--goaway-chance=0.02']);
    let session: http2.ClientHttp2Session | undefined;
    const sentAway = new WeakSet<http2.ClientHttp2Session>();
    let connections = 0;
    try {
      // At 1 in 50, 600 requests on one connection all escape the draw with a chance of about 5 in a million.
      for (let i = 0; i < 600; i++) {
        if (!session || session.closed || session.destroyed || sentAway.has(session)) {
          session?.close();
          const fresh = await connect(gh);
          fresh.once('goaway', () => sentAway.add(fresh));
          session = fresh;
          connections++;
        }
        const res = await request(session, gh.adminToken, 'GET', '/version');
        expect(res.status).to.equal(200);
      }
      expect(connections).to.be.greaterThan(1);
    } finally {
      session?.destroy();
      await gh.close();
    }
  });

  it('refuses a negative --http2-max-streams-per-connection, naming the flag', async () => {
    let failure: Error | undefined;
    try {
      const gh = await startTestGatehouse(['--storage-backend=memory', '--http2-max-streams-per-connection=-1']);
      await gh.close();
    } catch (e) {
      failure = e as Error;
    }
    expect(failure?.message).to.contain('--http2-max-streams-per-connection');
  });

  it('ends open HTTP/2 watches and their sessions on shutdown', async () => {
    const gh = await startTestGatehouse(['--storage-backend=memory']);
    const session = await connect(gh);
    const sessionClosed = new Promise<void>((resolve) => session.once('close', resolve));
    const open = await watch(session, gh.adminToken, `${CONFIGMAPS}?watch=1`);
    const started = Date.now();
    await gh.close();
    await open.ended;
    await sessionClosed;
    // Well inside the drain period, which would cut a session that did not end on its own.
    expect(Date.now() - started).to.be.below(4_000);
  });
});
