// The aggregator proxy's edges beside its verbs (aggregator-proxy.test.ts): Upgrade requests handed over with their
// socket, the metrics a proxied request leaves, and the ConfigMap an aggregated server reads to trust this one.
import { expect } from 'chai';
import tls from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { eventually, MERGE } from '../helpers/api.js';
import { scrape, seriesOf, labels } from '../helpers/metrics-text.js';
import { makeCA } from '../helpers/pki.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import {
  APISERVICES,
  GROUP,
  GV,
  PROXY_CLIENT_CN,
  SERVICE,
  startAggregatedGatehouse,
  VERSION,
  type AggregatedGatehouse,
} from '../helpers/aggregated-gatehouse.js';

const NS = 'edges';
const FLUNDERS = `${GV}/namespaces/${NS}/flunders`;
const CONFIG_MAP = '/api/v1/namespaces/platform-system/configmaps/extension-apiserver-authentication';
/** A certificate as the trust map holds it: one canonical PEM block. */
const pem = (text: string) => new X509Certificate(text).toString();

/** Sends `head` on a fresh HTTP/1.1 TLS connection; resolves with the connection and what came back first. */
function rawConnect(url: string, ca: string, head: string): Promise<{ socket: tls.TLSSocket; first: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = tls.connect({ host: hostname, port: Number(port), ca, ALPNProtocols: ['http/1.1'] }, () => {
      const first = new Promise<string>((res) => socket.once('data', (d: Buffer) => res(d.toString('latin1'))));
      socket.write(head);
      resolve({ socket, first });
    });
    socket.once('error', reject);
  });
}

describe('aggregator proxy: upgrades, metrics, trust ConfigMap', function () {
  this.timeout(60_000);
  let a: AggregatedGatehouse;
  const clock = new ManualClock();

  before(async () => {
    a = await startAggregatedGatehouse({ clock, extraArgs: ['--request-timeout=10s'] });
    await a.register({ group: GROUP, version: VERSION, service: SERVICE });
    await eventually('the APIService routes', async () => (await a.gh.request('GET', FLUNDERS)).status === 200);
  });
  after(async () => {
    await a?.close();
  });

  it('hands an Upgrade request over to the upstream with its headers, then passes bytes both ways', async () => {
    const exec = `${FLUNDERS}/one/exec?command=sh`;
    const review = await a.gh.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
      body: { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' },
    });
    const adminName = review.json().status.userInfo.username as string;
    const { socket, first } = await rawConnect(
      a.gh.url,
      a.gh.ca,
      `POST ${exec} HTTP/1.1\r\nHost: gatehouse\r\nAuthorization: Bearer ${a.gh.adminToken}\r\n` +
        'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n' +
        'X-Remote-User: mallory\r\n\r\n',
    );
    try {
      expect(await first).to.match(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
      const got = a.upstream.received.at(-1)!;
      expect(got.path).to.equal(exec);
      expect(got.headers.upgrade).to.deep.equal(['SPDY/3.1']);
      expect(got.headers.connection?.[0]).to.match(/upgrade/i);
      expect(got.headers['x-stream-protocol-version']).to.deep.equal(['v4.channel.k8s.io']);
      expect(got.headers['x-remote-user']).to.deep.equal([adminName]);
      expect(got.headers['x-remote-user']).to.not.deep.equal(['mallory']);
      expect(got.headers).to.not.have.property('authorization');
      expect(got.clientCN).to.equal(PROXY_CLIENT_CN);
      // The upstream echoes: what comes back went through both halves of the spliced connection.
      const echoed = new Promise<string>((res) => socket.once('data', (d: Buffer) => res(d.toString('latin1'))));
      socket.write('ping over the upgraded stream');
      expect(await echoed).to.equal('ping over the upgraded stream');
    } finally {
      socket.destroy();
    }
  });

  it('answers an Upgrade request the upstream cannot take with a 503 Status on its connection', async () => {
    const other = await makeCA('not-the-upstreams');
    const patch = (caBundle: string) =>
      a.gh.request('PATCH', `${APISERVICES}/${VERSION}.${GROUP}`, { body: { spec: { caBundle } }, headers: MERGE });
    expect((await patch(Buffer.from(other.certPem).toString('base64'))).status).to.equal(200);
    try {
      await eventually('the new caBundle is used', async () => (await a.gh.request('GET', FLUNDERS)).status === 503);
      const { socket, first } = await rawConnect(
        a.gh.url,
        a.gh.ca,
        `POST ${FLUNDERS}/one/exec HTTP/1.1\r\nHost: gatehouse\r\nAuthorization: Bearer ${a.gh.adminToken}\r\n` +
          'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n',
      );
      try {
        let answer = await first;
        // The head and the body may come in separate reads; the connection ends after them.
        await new Promise<void>((resolve) => {
          socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
          socket.once('end', resolve);
          socket.once('close', () => resolve());
        });
        expect(answer).to.match(/^HTTP\/1\.1 503 /);
        const status = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
        expect(status).to.deep.include({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
        expect(status.message).to.match(/certificate/);
      } finally {
        socket.destroy();
      }
    } finally {
      expect((await patch(a.upstream.caBundle)).status).to.equal(200);
      await eventually('verified again', async () => (await a.gh.request('GET', FLUNDERS)).status === 200);
    }
  });

  it('cuts an Upgrade the upstream leaves unanswered at the request timeout, with a 504 and its request ended', async () => {
    a.upstream.mode = 'hang';
    try {
      const arrived = a.upstream.nextRequest(`${FLUNDERS}/one`);
      const closed = a.upstream.nextClosed(`${FLUNDERS}/one`);
      // A plain get with an Upgrade header: not one of the long-running requests the timeout leaves alone.
      const { socket, first } = await rawConnect(
        a.gh.url,
        a.gh.ca,
        `GET ${FLUNDERS}/one HTTP/1.1\r\nHost: gatehouse\r\nAuthorization: Bearer ${a.gh.adminToken}\r\n` +
          'Connection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
      );
      try {
        expect(await arrived).to.equal(`${FLUNDERS}/one`);
        clock.advance(10_000);
        expect(await first).to.match(/^HTTP\/1\.1 504 /);
        expect(await closed).to.equal(`${FLUNDERS}/one`);
      } finally {
        socket.destroy();
      }
    } finally {
      a.upstream.mode = 'ok';
    }
  });

  it('refuses an Upgrade request before the upstream sees it when authentication fails', async () => {
    const before = a.upstream.received.length;
    const { socket, first } = await rawConnect(
      a.gh.url,
      a.gh.ca,
      `GET ${FLUNDERS}/one/exec HTTP/1.1\r\nHost: gatehouse\r\nAuthorization: Bearer not-a-token\r\n` +
        'Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n',
    );
    try {
      const answer = await first;
      expect(answer).to.match(/^HTTP\/1\.1 401 /);
      expect(answer).to.include('"kind":"Status"');
      expect(a.upstream.received.length).to.equal(before);
    } finally {
      socket.destroy();
    }
  });

  it('times proxied requests per APIService and counts them in apiserver_request_total', async () => {
    for (let i = 0; i < 2; i++) expect((await a.gh.request('GET', FLUNDERS)).status).to.equal(200);
    const text = await scrape(a.gh);
    const counts = seriesOf(text, 'aggregator_proxy_duration_seconds_count');
    expect(counts.get(labels({ name: `${VERSION}.${GROUP}` })) ?? 0).to.be.at.least(2);
    const requests = seriesOf(text, 'apiserver_request_total');
    const key = labels({
      code: '200',
      component: 'apiserver',
      dry_run: '',
      group: GROUP,
      resource: 'flunders',
      scope: 'namespace',
      subresource: '',
      verb: 'LIST',
      version: VERSION,
    });
    expect(requests.get(key) ?? 0, [...requests.keys()].filter((k) => k.includes(GROUP)).join('\n')).to.be.at.least(2);
  });

  it('makes the TLS context for an upstream once, not again for every connection to it', async () => {
    // tls.connect builds a context from PEM options on each call; counted here through the module object it calls,
    // and through the named export the proxy imports (synced to the patched property).
    const tlsModule = tls as { createSecureContext: typeof tls.createSecureContext };
    const original = tlsModule.createSecureContext;
    let withClientCert = 0;
    tlsModule.createSecureContext = (options) => {
      if (options?.cert !== undefined) withClientCert++;
      return original(options);
    };
    syncBuiltinESMExports();
    // Six watches open at once hold six connections to the upstream, at least four of them new.
    const watches: OpenWatch[] = [];
    try {
      const opened = await Promise.all(
        Array.from({ length: 6 }, () =>
          openWatch(a.gh.url, `${FLUNDERS}?watch=1`, { ca: a.gh.ca, token: a.gh.adminToken }),
        ),
      );
      watches.push(...opened);
      expect(opened.map((w) => w.status)).to.deep.equal([200, 200, 200, 200, 200, 200]);
    } finally {
      for (const w of watches) w.close();
      tlsModule.createSecureContext = original;
      syncBuiltinESMExports();
    }
    expect(withClientCert).to.be.at.most(1);
  });

  it('publishes what an aggregated server needs to trust it, merged with what other servers wrote there', async () => {
    const cm = await a.gh.request('GET', CONFIG_MAP);
    expect(cm.status, cm.body).to.equal(200);
    const data = cm.json().data;
    const frontProxyCa = pem(await readFile(path.join(a.dir, 'front-proxy-ca.crt'), 'utf8'));
    expect(data).to.deep.equal({
      'requestheader-client-ca-file': frontProxyCa,
      'requestheader-allowed-names': `["${PROXY_CLIENT_CN}"]`,
      'requestheader-username-headers': '["X-Remote-User"]',
      'requestheader-group-headers': '["X-Remote-Group"]',
      'requestheader-extra-headers-prefix': '["X-Remote-Extra-"]',
    });
    // Another server's CA and proxy name replace ours: theirs stay, and ours come back after them.
    const otherCa = pem((await makeCA('another-servers-front-proxy-ca')).certPem);
    const edit = await a.gh.request('PATCH', CONFIG_MAP, {
      body: {
        data: {
          'requestheader-client-ca-file': otherCa,
          'requestheader-allowed-names': '["another-front-proxy"]',
          note: 'kept',
        },
      },
      headers: MERGE,
    });
    expect(edit.status, edit.body).to.equal(200);
    const merged = await eventually('ours are merged back in', async () => {
      const now = (await a.gh.request('GET', CONFIG_MAP)).json().data;
      return now['requestheader-allowed-names'] === `["another-front-proxy","${PROXY_CLIENT_CN}"]` ? now : undefined;
    });
    expect(merged['requestheader-client-ca-file']).to.equal(otherCa + frontProxyCa);
    expect(merged.note).to.equal('kept');
    expect((await a.gh.request('DELETE', CONFIG_MAP)).status).to.equal(200);
    const created = await eventually('created again', async () => {
      const res = await a.gh.request('GET', CONFIG_MAP);
      return res.status === 200 ? res.json().data : undefined;
    });
    expect(created['requestheader-client-ca-file']).to.equal(frontProxyCa);
  });
});
