// Proxying to a remote APIService (gateway/aggregator/proxy.ts) against a real HTTPS upstream
// (test/helpers/upstream-apiserver.ts): every verb of its one kind, watches streaming while open, the identity the
// upstream receives, RBAC before anything is proxied, and the failure answers (404, 503, 504). The manual clock
// drives the request timeout.
import { expect } from 'chai';
import https from 'node:https';
import { ManualClock } from '../helpers/manual-clock.js';
import { openWatch } from '../helpers/watch-client.js';
import { eventually, MERGE } from '../helpers/api.js';
import { makeCA } from '../helpers/pki.js';
import { bindingBody, roleBody, RBAC_V1, tokenOf } from '../helpers/rbac.js';
import {
  APISERVICES,
  closedPort,
  GROUP,
  GV,
  PROXY_CLIENT_CN,
  SERVICE,
  startAggregatedGatehouse,
  VERSION,
  type AggregatedGatehouse,
} from '../helpers/aggregated-gatehouse.js';

const NS = 'wardle-ns';
const FLUNDERS = `${GV}/namespaces/${NS}/flunders`;
const NAME = `${VERSION}.${GROUP}`;
const flunder = (name: string, extra: object = {}) => ({
  apiVersion: `${GROUP}/${VERSION}`,
  kind: 'Flunder',
  metadata: { name, namespace: NS },
  spec: { reference: 'x' },
  ...extra,
});

describe('aggregator proxy', function () {
  this.timeout(60_000);
  const clock = new ManualClock();
  let a: AggregatedGatehouse;
  const last = () => a.upstream.received.at(-1)!;

  before(async () => {
    a = await startAggregatedGatehouse({
      clock,
      extraArgs: ['--request-timeout=10s'],
      extraEndpoints: [
        { namespace: 'wardle', name: 'refused', port: 443, url: `https://127.0.0.1:${await closedPort()}` },
      ],
    });
    await a.register({ group: GROUP, version: VERSION, service: SERVICE });
    // alice may work with flunders in NS; bob may do nothing there.
    const role = await a.gh.request('POST', `${RBAC_V1}/namespaces/${NS}/roles`, {
      body: roleBody('flunder-editor', [{ verbs: ['*'], apiGroups: [GROUP], resources: ['flunders'] }]),
    });
    expect([201, 404]).to.include(role.status);
    if (role.status === 404) {
      await a.gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } });
      const again = await a.gh.request('POST', `${RBAC_V1}/namespaces/${NS}/roles`, {
        body: roleBody('flunder-editor', [{ verbs: ['*'], apiGroups: [GROUP], resources: ['flunders'] }]),
      });
      expect(again.status, again.body).to.equal(201);
    }
    const binding = await a.gh.request('POST', `${RBAC_V1}/namespaces/${NS}/rolebindings`, {
      body: bindingBody('alice-flunders', 'Role', 'flunder-editor', ['alice']),
    });
    expect(binding.status, binding.body).to.equal(201);
    // The APIService reaches the informer a moment after its write.
    await eventually('the APIService routes', async () => (await a.gh.request('GET', FLUNDERS)).status === 200);
  });
  after(async () => {
    await a?.close();
  });
  beforeEach(() => {
    a.upstream.mode = 'ok';
  });

  it('proxies create, get, list, update, patch and delete with bodies and media types unchanged', async () => {
    const created = await a.gh.request('POST', FLUNDERS, {
      body: flunder('one'),
      headers: { accept: 'application/json' },
    });
    expect(created.status, created.body).to.equal(201);
    expect(created.headers['content-type']).to.equal('application/json');
    expect(created.json()).to.deep.equal(a.upstream.flunders.objects.get(`${NS}/one`));
    expect(last()).to.include({ method: 'POST', path: FLUNDERS });
    expect(last().headers['content-type']).to.deep.equal(['application/json']);
    expect(last().headers.accept).to.deep.equal(['application/json']);

    const got = await a.gh.request('GET', `${FLUNDERS}/one`);
    expect(got.status).to.equal(200);
    expect(got.body).to.equal(JSON.stringify(a.upstream.flunders.objects.get(`${NS}/one`)));

    const gotOn = last().remotePort;
    const listed = await a.gh.request('GET', `${FLUNDERS}?limit=5`);
    expect(listed.status).to.equal(200);
    // One kept connection to the upstream, not a TLS handshake per request.
    expect(last().remotePort).to.be.a('number').and.equal(gotOn);
    expect(listed.json().items.map((o: any) => o.metadata.name)).to.deep.equal(['one']);
    expect(last().path).to.equal(`${FLUNDERS}?limit=5`);

    const updated = await a.gh.request('PUT', `${FLUNDERS}/one`, {
      body: flunder('one', { spec: { reference: 'y' } }),
    });
    expect(updated.status, updated.body).to.equal(200);
    expect(updated.json().spec.reference).to.equal('y');

    const patched = await a.gh.request('PATCH', `${FLUNDERS}/one`, { body: { spec: { extra: 1 } }, headers: MERGE });
    expect(patched.status, patched.body).to.equal(200);
    expect(patched.json().spec).to.deep.equal({ reference: 'y', extra: 1 });
    expect(last().headers['content-type']).to.deep.equal([MERGE['content-type']]);

    const deleted = await a.gh.request('DELETE', `${FLUNDERS}/one`);
    expect(deleted.status).to.equal(200);
    expect(a.upstream.flunders.objects.has(`${NS}/one`)).to.equal(false);
    // The upstream's own errors come back as it wrote them.
    const gone = await a.gh.request('GET', `${FLUNDERS}/one`);
    expect(gone.status).to.equal(404);
    expect(gone.json().message).to.equal(`flunders.${GROUP} "one" not found`);
  });

  it('streams watch events while the request stays open', async () => {
    await a.gh.request('POST', FLUNDERS, { body: flunder('before') });
    const w = await openWatch(a.gh.url, `${FLUNDERS}?watch=1`, { ca: a.gh.ca, token: a.gh.adminToken });
    try {
      expect(w.status).to.equal(200);
      const first = await w.next();
      expect(first).to.deep.include({ type: 'ADDED' });
      expect(first.object.metadata?.name).to.equal('before');
      // Created after the watch opened: it can only arrive through a stream still being forwarded.
      await a.gh.request('POST', FLUNDERS, { body: flunder('during') });
      const added = await w.next();
      expect(added.type).to.equal('ADDED');
      expect(added.object.metadata?.name).to.equal('during');
      await a.gh.request('DELETE', `${FLUNDERS}/during`);
      expect((await w.next()).type).to.equal('DELETED');
    } finally {
      w.close();
      await a.gh.request('DELETE', `${FLUNDERS}/before`);
    }
  });

  it('answers a watch with its headers before any event, as the upstream does', async () => {
    // A namespace with no flunders: nothing to send but the headers, which the client waits for to call it open.
    const quiet = `${GV}/namespaces/quiet/flunders`;
    const w = await openWatch(a.gh.url, `${quiet}?watch=1`, { ca: a.gh.ca, token: a.gh.adminToken });
    try {
      expect(w.status).to.equal(200);
      await a.gh.request('POST', quiet, {
        body: { ...flunder('first'), metadata: { name: 'first', namespace: 'quiet' } },
      });
      const added = await w.next();
      expect(added.object.metadata?.name).to.equal('first');
    } finally {
      w.close();
      await a.gh.request('DELETE', `${quiet}/first`);
    }
  });

  it('streams an answer as the upstream writes it, not once it is whole', async () => {
    a.upstream.mode = 'held-mid-stream';
    const body = await new Promise<string>((resolve, reject) => {
      const req = https.request(new URL(FLUNDERS, a.gh.url), {
        ca: a.gh.ca,
        headers: { authorization: `Bearer ${a.gh.adminToken}` },
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          // The first bytes arrive while the upstream still holds the rest: only then is it let go.
          if (text === '') {
            expect(chunk).to.equal('{"kind":"FlunderList","items":[');
            a.upstream.release();
          }
          text += chunk;
        });
        res.on('end', () => resolve(text));
      });
      req.end();
    });
    expect(JSON.parse(body).items).to.deep.equal([{ metadata: { name: 'late' } }]);
  });

  it('sends the caller as X-Remote-* headers over the proxy client certificate, never what the client claimed', async () => {
    const res = await a.gh.request('GET', FLUNDERS, {
      token: tokenOf('alice'),
      headers: {
        'X-Remote-User': 'mallory',
        'X-Remote-Group': 'system:masters',
        'X-Remote-Extra-Scopes': 'all',
        'X-Remote-Uid': 'forged',
      },
    });
    expect(res.status, res.body).to.equal(200);
    const got = last();
    expect(got.headers['x-remote-user']).to.deep.equal(['alice']);
    expect(got.headers['x-remote-group']).to.deep.equal(['dev', 'system:authenticated']);
    expect(Object.keys(got.headers).filter((h) => h.startsWith('x-remote-extra-'))).to.deep.equal([]);
    expect(got.headers).to.not.have.property('x-remote-uid');
    expect(got.headers).to.not.have.property('authorization');
    expect(got.clientCN).to.equal(PROXY_CLIENT_CN);
    expect(got.clientAuthorized).to.equal(true);
    expect(got.headers['x-forwarded-for']).to.deep.equal(['127.0.0.1']);
  });

  it('sends the impersonated identity, extra keys percent-encoded', async () => {
    const res = await a.gh.request('GET', FLUNDERS, {
      headers: {
        'Impersonate-User': 'alice',
        'Impersonate-Group': 'dev',
        'Impersonate-Extra-reason%2Fwhy': 'on call',
      },
    });
    expect(res.status, res.body).to.equal(200);
    const got = last();
    expect(got.headers['x-remote-user']).to.deep.equal(['alice']);
    expect(got.headers['x-remote-group']).to.deep.equal(['dev', 'system:authenticated']);
    expect(got.headers['x-remote-extra-reason%2fwhy']).to.deep.equal(['on call']);
    expect(Object.keys(got.headers).filter((h) => h.startsWith('impersonate-'))).to.deep.equal([]);
  });

  it('refuses a user RBAC denies before anything is proxied', async () => {
    const before = a.upstream.received.length;
    const res = await a.gh.request('GET', FLUNDERS, { token: tokenOf('bob') });
    expect(res.status).to.equal(403);
    expect(res.json().message).to.equal(
      `flunders.${GROUP} is forbidden: User "bob" cannot list resource "flunders" in API group "${GROUP}" in the namespace "${NS}"`,
    );
    const write = await a.gh.request('POST', FLUNDERS, { token: tokenOf('bob'), body: flunder('nope') });
    expect(write.status).to.equal(403);
    expect(a.upstream.received.length).to.equal(before);
  });

  it('drops hop-by-hop headers both ways and forwards the rest', async () => {
    const res = await a.gh.request('GET', FLUNDERS, {
      headers: {
        'Accept-Encoding': 'gzip',
        'Keep-Alive': 'timeout=5',
        TE: 'trailers',
        Connection: 'x-private',
        'X-Private': 'no',
        'X-Custom': 'yes',
      },
    });
    expect(res.status).to.equal(200);
    const got = last();
    expect(got.headers['x-custom']).to.deep.equal(['yes']);
    // Compression is the upstream's business: its uncompressed answer comes back as it was, not gzipped here.
    expect(got.headers['accept-encoding']).to.deep.equal(['gzip']);
    expect(res.headers['content-encoding']).to.equal(undefined);
    expect(res.json().kind).to.equal('FlunderList');
    for (const h of ['keep-alive', 'te', 'x-private', 'proxy-connection']) expect(got.headers).to.not.have.property(h);
    // The upstream said `Connection: close`; that was its connection to us, not ours to the client.
    expect(res.headers.connection).to.not.equal('close');
  });

  it('leaves a group-version with a Local APIService to this server', async () => {
    const before = a.upstream.received.length;
    const local = await a.gh.request('GET', `${APISERVICES}/v1.rbac.authorization.platform.io`);
    expect(local.status, local.body).to.equal(200);
    expect(local.json().spec.service).to.equal(undefined);
    const res = await a.gh.request('GET', `${RBAC_V1}/namespaces/${NS}/roles`);
    expect(res.status, res.body).to.equal(200);
    expect(res.json().kind).to.equal('RoleList');
    expect(a.upstream.received.length).to.equal(before);
  });

  it('answers 404 for a group-version nobody serves, as before', async () => {
    const res = await a.gh.request('GET', `/apis/${GROUP}/v9/namespaces/${NS}/flunders`);
    expect(res.status).to.equal(404);
    expect(res.json()).to.deep.include({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('answers 503 "service unavailable" while the APIService is not Available, without calling the upstream', async () => {
    await a.setAvailable(NAME, false);
    try {
      const before = a.upstream.received.length;
      const res = await eventually('the condition reaches the proxy', async () => {
        const r = await a.gh.request('GET', FLUNDERS);
        return r.status === 503 ? r : undefined;
      });
      expect(res.json()).to.deep.include({
        kind: 'Status',
        reason: 'ServiceUnavailable',
        code: 503,
        message: 'service unavailable',
      });
      expect(a.upstream.received.length).to.equal(before);
    } finally {
      await a.setAvailable(NAME, true);
      await eventually('available again', async () => (await a.gh.request('GET', FLUNDERS)).status === 200);
    }
  });

  it('answers 503 when the upstream certificate does not verify against the caBundle', async () => {
    const other = await makeCA('not-the-upstreams');
    const patch = (caBundle: string) =>
      a.gh.request('PATCH', `${APISERVICES}/${NAME}`, { body: { spec: { caBundle } }, headers: MERGE });
    expect((await patch(Buffer.from(other.certPem).toString('base64'))).status).to.equal(200);
    try {
      const res = await eventually('the new caBundle is used', async () => {
        const r = await a.gh.request('GET', FLUNDERS);
        return r.status === 503 ? r : undefined;
      });
      expect(res.json()).to.deep.include({ reason: 'ServiceUnavailable', code: 503 });
      expect(res.json().message).to.match(/certificate/);
    } finally {
      expect((await patch(a.upstream.caBundle)).status).to.equal(200);
      await eventually('verified again', async () => (await a.gh.request('GET', FLUNDERS)).status === 200);
    }
  });

  it('answers 503 when the upstream refuses the connection or answers garbage', async () => {
    a.upstream.mode = 'garbage';
    const garbage = await a.gh.request('GET', FLUNDERS);
    expect(garbage.status).to.equal(503);
    expect(garbage.json()).to.deep.include({ kind: 'Status', reason: 'ServiceUnavailable' });

    await a.register({ group: 'refused.example.io', version: 'v1', service: { namespace: 'wardle', name: 'refused' } });
    const res = await eventually('the refused APIService routes', async () => {
      const r = await a.gh.request('GET', '/apis/refused.example.io/v1/things');
      return r.status === 503 ? r : undefined;
    });
    expect(res.json()).to.deep.include({ reason: 'ServiceUnavailable', code: 503 });
    expect(res.json().message).to.match(/ECONNREFUSED/);
  });

  it('cuts an upstream that hangs at the request timeout with a 504, ending the upstream request', async () => {
    a.upstream.mode = 'hang';
    const arrived = a.upstream.nextRequest();
    const closed = a.upstream.nextClosed();
    const pending = a.gh.request('GET', `${FLUNDERS}/slow`);
    await arrived;
    clock.advance(10_000);
    const res = await pending;
    expect(res.status).to.equal(504);
    expect(res.json()).to.deep.include({ kind: 'Status', reason: 'Timeout', code: 504 });
    expect(await closed).to.equal(`${FLUNDERS}/slow`);
  });

  it('aborts the upstream request when the client goes away', async () => {
    a.upstream.mode = 'hang';
    const arrived = a.upstream.nextRequest();
    const closed = a.upstream.nextClosed();
    const req = https.request(new URL(`${FLUNDERS}/abandoned`, a.gh.url), {
      ca: a.gh.ca,
      headers: { authorization: `Bearer ${a.gh.adminToken}` },
    });
    req.on('error', () => {});
    req.end();
    await arrived;
    req.destroy();
    expect(await closed).to.equal(`${FLUNDERS}/abandoned`);
  });

  it('ends the client stream when the upstream closes mid-answer', async () => {
    a.upstream.mode = 'close-mid-stream';
    const outcome = await a.gh.request('GET', FLUNDERS).then(
      (r) => `answered ${r.status}: ${r.body}`,
      (e: Error) => `failed: ${e.message}`,
    );
    // Headers were already on their way: the client sees the body cut off, never a complete answer.
    expect(outcome).to.match(/^failed: |^answered 200: \{"kind":"FlunderList","items":\[$/);
  });
});
