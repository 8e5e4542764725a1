// The authenticating proxy (--requestheader-*) over real TLS, with certificates made in the test: a client CA for
// x509 users and a separate proxy CA. The identity is read back from SelfSubjectReview, which answers the full
// UserInfo (groups, extra). What reaches the code after authentication (stripped headers) is read from the
// IncomingMessage itself, on a test server of our own that runs the same TLS options and authenticator chain.
import { expect } from 'chai';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { httpsRequest, startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import {
  caBundle,
  issueClientCert,
  makeCA,
  selfSignedClientCert,
  type CertificateAuthority,
  type IssuedCertificate,
} from '../helpers/pki.js';
import { parseOptions } from '../../gateway/server/options.js';
import { buildAuthenticator } from '../../gateway/authn/build-authenticator.js';
import { clientAuthTlsOptions } from '../../gateway/authn/tls-client-auth.js';
import { loadOrCreateCertificates } from '../../gateway/server/certs.js';
import type { Registry } from '../../gateway/registry/registry.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };

type Headers = Record<string, string | string[]>;

interface Call {
  cert?: IssuedCertificate;
  token?: string;
  headers?: Headers;
}

/** POSTs a SelfSubjectReview with repeated header lines allowed (Node sends one line per array element). */
function review(url: string, ca: string, call: Call): Promise<GatehouseResponse> {
  return httpsRequest(url, ca, 'POST', SSR, {
    body: SSR_BODY,
    token: call.token ?? null,
    headers: (call.headers ?? {}) as Record<string, string>,
    clientCert: call.cert ? { cert: call.cert.certPem, key: call.cert.keyPem } : undefined,
  });
}

function userInfo(res: GatehouseResponse): { username: string; groups: string[]; extra?: Record<string, string[]> } {
  expect(res.status, res.body).to.equal(201);
  return res.json().status.userInfo;
}

function expectUnauthorized(res: GatehouseResponse): void {
  expect(res.status, res.body).to.equal(401);
  expect(res.json()).to.include({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' });
}

const PROXY_FLAGS = (proxyCaFile: string) => [
  '--requestheader-client-ca-file',
  proxyCaFile,
  '--requestheader-allowed-names',
  'front-proxy,other-name',
  '--requestheader-username-headers',
  'X-Remote-User',
  '--requestheader-group-headers',
  'X-Remote-Group',
  '--requestheader-extra-headers-prefix',
  'X-Remote-Extra-',
];

describe('authenticating proxy (--requestheader-*)', function () {
  this.timeout(60_000);

  let dir: string;
  let clientCa: CertificateAuthority;
  let proxyCa: CertificateAuthority;
  let stranger: CertificateAuthority;
  let proxy: IssuedCertificate;
  let gh: TestGatehouse;
  let clientCaFile: string;
  let proxyCaFile: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-requestheader-'));
    [clientCa, proxyCa, stranger] = await Promise.all([
      makeCA('client-ca'),
      makeCA('front-proxy-ca'),
      makeCA('stranger-ca'),
    ]);
    proxy = await issueClientCert(proxyCa, { cn: 'front-proxy' });
    clientCaFile = path.join(dir, 'client-ca.crt');
    proxyCaFile = path.join(dir, 'proxy-ca.crt');
    await writeFile(clientCaFile, caBundle(clientCa));
    await writeFile(proxyCaFile, caBundle(proxyCa));
    gh = await startTestGatehouse(['--client-ca-file', clientCaFile, ...PROXY_FLAGS(proxyCaFile)]);
  });

  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (c: Call) => review(gh.url, gh.ca, c);

  describe('from a verified proxy with an allowed CN', () => {
    it('takes the user, every group line and the extras from the headers, and adds system:authenticated', async () => {
      const info = userInfo(
        await call({
          cert: proxy,
          headers: {
            'X-Remote-User': 'alice',
            // One value per line, as Go reads them: a comma inside a value does not split it.
            'X-Remote-Group': ['dev', 'ops,oncall'],
            'X-Remote-Extra-Scopes': ['read', 'write'],
            'X-Remote-Extra-Acme.Example%2FTeam': 'blue',
            'X-Remote-Extra-Bad%zzKey': 'kept',
          },
        }),
      );
      expect(info.username).to.equal('alice');
      expect(info.groups).to.deep.equal(['dev', 'ops,oncall', 'system:authenticated']);
      // Keys are lowercased and percent-decoded; one that does not decode is kept as sent (lowercased).
      expect(info.extra).to.deep.equal({
        scopes: ['read', 'write'],
        'acme.example/team': ['blue'],
        'bad%zzkey': ['kept'],
      });
    });

    it('works through an intermediate of the proxy CA that the proxy sends along', async () => {
      const intermediate = await makeCA('front-proxy-intermediate', { issuer: proxyCa });
      const chained = await issueClientCert(intermediate, { cn: 'front-proxy' });
      const info = userInfo(
        await call({ cert: { ...chained, certPem: chained.chainPem }, headers: { 'X-Remote-User': 'dave' } }),
      );
      expect(info.username).to.equal('dave');
    });

    it('is not an x509 user itself: without a user header (and no other credential) it is a 401', async () => {
      expectUnauthorized(await call({ cert: proxy }));
      expectUnauthorized(await call({ cert: proxy, headers: { 'X-Remote-User': '' } }));
    });

    it('without a user header lets a bearer token it forwards decide', async () => {
      expect(userInfo(await call({ cert: proxy, token: gh.adminToken })).username).to.equal('system:admin');
    });

    it('wins over a bearer token when it names a user', async () => {
      expect(
        userInfo(await call({ cert: proxy, token: gh.adminToken, headers: { 'X-Remote-User': 'alice' } })).username,
      ).to.equal('alice');
    });
  });

  describe('headers from anyone else are ignored', () => {
    it('without a client certificate (token user, and anonymous)', async () => {
      const asAdmin = userInfo(
        await call({
          token: gh.adminToken,
          headers: { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' },
        }),
      );
      expect(asAdmin.username).to.equal('system:admin');
      expect(asAdmin.groups).to.not.include('mallory');
      const anonymous = userInfo(
        await call({ headers: { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' } }),
      );
      expect(anonymous).to.deep.include({ username: 'system:anonymous', groups: ['system:unauthenticated'] });
    });

    it('with a client certificate of the client CA: the x509 user, not the header', async () => {
      const bob = await issueClientCert(clientCa, { cn: 'bob', orgs: ['qa'] });
      const info = userInfo(
        await call({ cert: bob, headers: { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' } }),
      );
      expect(info.username).to.equal('bob');
      expect(info.groups).to.deep.equal(['qa', 'system:authenticated']);
    });

    it('with a proxy-CA certificate whose CN is not allowed: 401', async () => {
      const rogue = await issueClientCert(proxyCa, { cn: 'rogue-proxy' });
      expectUnauthorized(await call({ cert: rogue, headers: { 'X-Remote-User': 'alice' } }));
    });

    it('with a certificate of another CA, or a self-signed one: 401', async () => {
      const foreign = await issueClientCert(stranger, { cn: 'front-proxy' });
      expectUnauthorized(await call({ cert: foreign, headers: { 'X-Remote-User': 'alice' } }));
      const selfSigned = await selfSignedClientCert({ cn: 'front-proxy' });
      expectUnauthorized(await call({ cert: selfSigned, headers: { 'X-Remote-User': 'alice' } }));
    });

    it('with an expired proxy certificate: 401', async () => {
      const now = Date.now();
      const expired = await issueClientCert(proxyCa, {
        cn: 'front-proxy',
        notBefore: new Date(now - 2 * 86_400_000),
        notAfter: new Date(now - 86_400_000),
      });
      expectUnauthorized(await call({ cert: expired, headers: { 'X-Remote-User': 'alice' } }));
    });
  });

  it('with --requestheader-allowed-names empty, any certificate the proxy CA signed is a proxy', async () => {
    const open = await startTestGatehouse([
      '--requestheader-client-ca-file',
      proxyCaFile,
      '--requestheader-username-headers',
      'X-Remote-User,X-Forwarded-User',
    ]);
    try {
      const anyName = await issueClientCert(proxyCa, { cn: 'whatever' });
      // The first user-name header with a value wins; no group headers are configured, so X-Remote-Group is ignored.
      const info = userInfo(
        await review(open.url, open.ca, {
          cert: anyName,
          headers: { 'X-Forwarded-User': 'carol', 'X-Remote-Group': 'ops' },
        }),
      );
      expect(info).to.deep.include({ username: 'carol', groups: ['system:authenticated'] });
      // Without --client-ca-file, a client-CA certificate is nobody here: the proxy verifier refuses it.
      const bob = await issueClientCert(clientCa, { cn: 'bob' });
      expectUnauthorized(await review(open.url, open.ca, { cert: bob }));
    } finally {
      await open.close();
    }
  });

  describe('what code after authentication sees (test server with the same TLS options and authenticator)', () => {
    let server: https.Server;
    let url: string;
    let ca: string;
    let seen: IncomingMessage | undefined;
    let adminToken: string;

    before(async () => {
      const options = parseOptions([
        '--data-dir',
        dir,
        '--client-ca-file',
        clientCaFile,
        ...PROXY_FLAGS(proxyCaFile),
        '--requestheader-extra-headers-prefix',
        'X-Acme-',
      ]);
      adminToken = 'a'.repeat(64);
      const authenticator = await buildAuthenticator({ options, adminToken, registry: {} as Registry, log: () => {} });
      const serving = await loadOrCreateCertificates({ certDir: path.join(dir, 'pki'), bindAddress: '127.0.0.1' });
      ca = serving.caPem;
      server = https.createServer(
        { cert: serving.certPem, key: serving.keyPem, ...clientAuthTlsOptions(options) },
        (req, res) => {
          authenticator.authenticate(req).then(
            (result) => {
              seen = req;
              res.end(JSON.stringify(result?.user ?? null));
            },
            () => {
              res.statusCode = 401;
              res.end();
            },
          );
        },
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    const identityHeaders = (req: IncomingMessage): string[] =>
      [
        ...Object.keys(req.headers),
        ...Object.keys(req.headersDistinct),
        ...req.rawHeaders.filter((_, i) => i % 2 === 0),
      ]
        .map((h) => h.toLowerCase())
        .filter((h) => h.startsWith('x-remote-') || h.startsWith('x-acme-'));

    const send = (c: Call) =>
      httpsRequest(url, ca, 'GET', '/', {
        token: c.token ?? null,
        headers: (c.headers ?? {}) as Record<string, string>,
        clientCert: c.cert ? { cert: c.cert.certPem, key: c.cert.keyPem } : undefined,
      });

    it('the proxy headers are gone once the proxy is believed', async () => {
      const res = await send({
        cert: proxy,
        headers: {
          'X-Remote-User': 'alice',
          'X-Remote-Group': ['a', 'b'],
          'X-Acme-Tenant': 't1',
          'X-Remote-Extra-K': 'v',
        },
      });
      expect(res.json()).to.deep.include({
        name: 'alice',
        groups: ['a', 'b', 'system:authenticated'],
        extra: { k: ['v'], tenant: ['t1'] },
      });
      expect(identityHeaders(seen!)).to.deep.equal([]);
    });

    it('forged identity headers are stripped from requests that authenticated otherwise', async () => {
      const res = await send({
        token: adminToken,
        headers: {
          'X-Remote-User': 'mallory',
          'X-Remote-Group': 'system:masters',
          'X-Acme-Role': 'root',
          'X-Other': 'kept',
        },
      });
      expect(res.json().name).to.equal('system:admin');
      expect(identityHeaders(seen!)).to.deep.equal([]);
      expect(seen!.headers['x-other']).to.equal('kept');
      // Anonymous requests too.
      await send({ headers: { 'X-Remote-User': 'mallory' } });
      expect(identityHeaders(seen!)).to.deep.equal([]);
    });
  });
});
