// --client-ca-file over real TLS: certificates made in the test (two client CAs in the bundle, an intermediate, an
// unrelated CA, expired, not yet valid, self-signed, server-auth only) against a Gatehouse run with AlwaysDeny.
// AlwaysDeny makes the identity observable without any debug endpoint: a 403 names the authenticated user (a 401
// would mean the credential was refused), and only members of system:masters get through, which shows the O
// groups reached the authorizer. The complete UserInfo (every group, system:authenticated) is read from a small
// HTTPS server of the test's own that runs the same TLS options and authenticator union.
import { expect } from 'chai';
import https from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { httpsRequest, startTestGatehouse, type TestGatehouse, type GatehouseResponse } from '../helpers/gatehouse.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import {
  caBundle,
  issueClientCert,
  makeCA,
  selfSignedClientCert,
  type CertificateAuthority,
  type IssuedCertificate,
} from '../helpers/pki.js';
import { clientCertTlsOptions, createClientCertAuthenticator, parseCaBundle } from '../../gateway/authn/client-cert.js';
import { createAuthenticatorUnion } from '../../gateway/authn/authenticator.js';

const DAY_MS = 86_400_000;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';

interface ClientRequest {
  client?: IssuedCertificate;
  /** Send the issuer's intermediates after the leaf. */
  withChain?: boolean;
  token?: string;
}

/** A GET with a client certificate (and optionally a bearer token), on a fresh connection each time. */
function get(url: string, ca: string, urlPath: string, opts: ClientRequest = {}): Promise<GatehouseResponse> {
  const clientCert = opts.client
    ? { cert: opts.withChain ? opts.client.chainPem : opts.client.certPem, key: opts.client.keyPem }
    : undefined;
  return httpsRequest(url, ca, 'GET', urlPath, { token: opts.token ?? null, clientCert });
}

function kubeconfig(server: string, caPem: string, client: IssuedCertificate): string {
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: gatehouse',
    '  cluster:',
    `    server: ${server}`,
    `    certificate-authority-data: ${b64(caPem)}`,
    'users:',
    '- name: cert-user',
    '  user:',
    `    client-certificate-data: ${b64(client.certPem)}`,
    `    client-key-data: ${b64(client.keyPem)}`,
    'contexts:',
    '- name: cert',
    '  context:',
    '    cluster: gatehouse',
    '    user: cert-user',
    'current-context: cert',
    '',
  ].join('\n');
}

describe('client certificate authentication (--client-ca-file)', function () {
  this.timeout(60_000);

  let dir: string;
  let caA: CertificateAuthority;
  let caB: CertificateAuthority;
  let intermediate: CertificateAuthority;
  let stranger: CertificateAuthority;
  let gh: TestGatehouse;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-client-cert-'));
    [caA, caB, stranger] = await Promise.all([makeCA('client-ca-a'), makeCA('client-ca-b'), makeCA('stranger-ca')]);
    intermediate = await makeCA('client-ca-a-intermediate', { issuer: caA });
    const bundle = path.join(dir, 'client-ca.crt');
    await writeFile(bundle, caBundle(caA, caB));
    gh = await startTestGatehouse(['--client-ca-file', bundle, '--authorization-mode=AlwaysDeny']);
  });

  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const list = (opts: ClientRequest) => get(gh.url, gh.ca, '/api/v1/namespaces', opts);

  function expectUnauthorized(res: GatehouseResponse): void {
    expect(res.status, res.body).to.equal(401);
    expect(res.json()).to.include({ kind: 'Status', reason: 'Unauthorized', message: 'Unauthorized' });
  }

  function expectForbiddenFor(res: GatehouseResponse, user: string): void {
    expect(res.status, res.body).to.equal(403);
    expect(res.json().message).to.equal(
      `namespaces is forbidden: User "${user}" cannot list resource "namespaces" in API group "" at the cluster scope: Everything is forbidden.`,
    );
  }

  describe('a certificate signed by a CA of the bundle', () => {
    it('authenticates as its CN', async () => {
      const alice = await issueClientCert(caA, { cn: 'alice', orgs: ['dev', 'ops'] });
      expectForbiddenFor(await list({ client: alice }), 'alice');
    });

    it('puts each O in the groups (system:masters passes AlwaysDeny)', async () => {
      const root = await issueClientCert(caA, { cn: 'root', orgs: ['dev', 'system:masters'] });
      const res = await list({ client: root });
      expect(res.status, res.body).to.equal(200);
      expect(res.json().kind).to.equal('NamespaceList');
    });

    it('works for the second CA of the bundle too', async () => {
      const bob = await issueClientCert(caB, { cn: 'bob' });
      expectForbiddenFor(await list({ client: bob }), 'bob');
      const admin = await issueClientCert(caB, { cn: 'b-admin', orgs: ['system:masters'] });
      expect((await list({ client: admin })).status).to.equal(200);
    });

    it('works through an intermediate the client sends along', async () => {
      const carol = await issueClientCert(intermediate, { cn: 'carol' });
      expectForbiddenFor(await list({ client: carol, withChain: true }), 'carol');
    });

    it('wins over a bearer token sent alongside', async () => {
      const alice = await issueClientCert(caA, { cn: 'alice' });
      expectForbiddenFor(await list({ client: alice, token: gh.adminToken }), 'alice');
    });

    it('without a CN is no identity: the request goes on as anonymous', async () => {
      const nameless = await issueClientCert(caA, { orgs: ['system:masters'] });
      expectForbiddenFor(await list({ client: nameless }), 'system:anonymous');
    });
  });

  describe('a certificate that does not verify is a 401 unless another credential succeeds', () => {
    it('signed by a CA outside the bundle', async () => {
      const mallory = await issueClientCert(stranger, { cn: 'mallory', orgs: ['system:masters'] });
      expectUnauthorized(await list({ client: mallory }));
      // As upstream's union: the first success decides, so a valid token still authenticates the request.
      const withToken = await list({ client: mallory, token: gh.adminToken });
      expect(withToken.status, withToken.body).to.equal(200);
    });

    it('expired', async () => {
      const expired = await issueClientCert(caA, {
        cn: 'old',
        orgs: ['system:masters'],
        notBefore: new Date(Date.now() - 10 * DAY_MS),
        notAfter: new Date(Date.now() - DAY_MS),
      });
      expectUnauthorized(await list({ client: expired }));
    });

    it('not yet valid', async () => {
      const early = await issueClientCert(caA, {
        cn: 'early',
        orgs: ['system:masters'],
        notBefore: new Date(Date.now() + DAY_MS),
        notAfter: new Date(Date.now() + 10 * DAY_MS),
      });
      expectUnauthorized(await list({ client: early }));
    });

    it('self-signed', async () => {
      const self = await selfSignedClientCert({ cn: 'self', orgs: ['system:masters'] });
      expectUnauthorized(await list({ client: self }));
    });

    it('not allowed for client authentication (server-auth usage only)', async () => {
      const server = await issueClientCert(caA, {
        cn: 'server',
        orgs: ['system:masters'],
        extendedKeyUsages: [SERVER_AUTH],
      });
      expectUnauthorized(await list({ client: server }));
    });

    it('issued by an intermediate the client does not send', async () => {
      const carol = await issueClientCert(intermediate, { cn: 'carol' });
      expectUnauthorized(await list({ client: carol }));
    });
  });

  describe('without a client certificate the other authenticators decide', () => {
    it('a bearer token authenticates', async () => {
      const res = await list({ token: gh.adminToken });
      expect(res.status, res.body).to.equal(200);
    });

    it('an unknown bearer token is a 401', async () => {
      expectUnauthorized(await list({ token: 'not-a-token' }));
    });

    it('no credential at all is anonymous', async () => {
      expectForbiddenFor(await list({}), 'system:anonymous');
    });
  });

  describe('the real kubectl with a client-certificate kubeconfig', () => {
    let kubectl: Kubectl | undefined;
    afterEach(async () => {
      await kubectl?.cleanup();
      kubectl = undefined;
    });

    async function kubectlAs(client: IssuedCertificate): Promise<Kubectl> {
      const file = path.join(dir, `kubeconfig-${client.cert.serialNumber}`);
      await writeFile(file, kubeconfig(gh.url, gh.ca, client), { mode: 0o600 });
      return createKubectl(file);
    }

    it('runs get ns as a system:masters certificate', async () => {
      kubectl = await kubectlAs(await issueClientCert(caA, { cn: 'kube-admin', orgs: ['system:masters'] }));
      const out = await kubectl.ok(['get', 'ns']);
      expect(out).to.match(/^NAME\s+STATUS\s+AGE/);
      expect(out).to.match(/^default\s+Active/m);
    });

    it('is named in the 403 for a certificate without privileges', async () => {
      kubectl = await kubectlAs(await issueClientCert(caB, { cn: 'dave', orgs: ['dev'] }));
      // --raw skips discovery, which AlwaysDeny refuses as well, so the answer is the list's own 403.
      const r = await kubectl.run(['get', '--raw', '/api/v1/namespaces']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(`User "dave" cannot list resource "namespaces"`);
    });

    it('is refused (401) with a certificate from another CA', async () => {
      kubectl = await kubectlAs(await issueClientCert(stranger, { cn: 'mallory', orgs: ['system:masters'] }));
      const r = await kubectl.run(['get', 'ns']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/Unauthorized|must be logged in/);
    });
  });
});

interface IdentityServer {
  url: string;
  close(): Promise<void>;
}

/** Answers each request with the identity the union found (JSON), or 401 and the refusal reason. */
async function startIdentityServer(serving: IssuedCertificate, bundlePem: string): Promise<IdentityServer> {
  const union = createAuthenticatorUnion([createClientCertAuthenticator()]);
  const server = https.createServer(
    { cert: serving.certPem, key: serving.keyPem, ...clientCertTlsOptions(parseCaBundle(bundlePem)) },
    (req, res) => {
      union.authenticate(req).then(
        (result) => res.end(JSON.stringify(result?.user ?? null)),
        (e: Error) => {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: e.message }));
        },
      );
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('client certificate identity over TLS (test server with the same TLS options and union)', function () {
  this.timeout(30_000);

  let ca: CertificateAuthority;
  let intermediate: CertificateAuthority;
  let servingCa: CertificateAuthority;
  let servers: IdentityServer[] = [];
  let rooted: IdentityServer;
  let withIntermediate: IdentityServer;

  before(async () => {
    [ca, servingCa] = await Promise.all([makeCA('identity-client-ca'), makeCA('identity-serving-ca')]);
    intermediate = await makeCA('identity-intermediate', { issuer: ca });
    const serving = await issueClientCert(servingCa, { cn: 'localhost', extendedKeyUsages: null });
    rooted = await startIdentityServer(serving, caBundle(ca));
    withIntermediate = await startIdentityServer(serving, caBundle(intermediate, ca));
    servers = [rooted, withIntermediate];
  });

  after(() => Promise.all(servers.map((s) => s.close())));

  // The serving certificate names localhost only; the identity is what is under test, not the server's name.
  const whoami = (server: IdentityServer, client?: IssuedCertificate) =>
    new Promise<{ status: number; body: any }>((resolve, reject) => {
      const tls = client ? { cert: client.certPem, key: client.keyPem } : {};
      https
        .get(
          `${server.url}/`,
          { ca: servingCa.certPem, checkServerIdentity: () => undefined, agent: false, ...tls },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => {
              body += d;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) }));
          },
        )
        .on('error', reject);
    });

  it('is CN as user, every O as a group in order, plus system:authenticated', async () => {
    const r = await whoami(rooted, await issueClientCert(ca, { cn: 'alice', orgs: ['dev', 'ops', 'system:masters'] }));
    expect(r).to.deep.equal({
      status: 200,
      body: { name: 'alice', groups: ['dev', 'ops', 'system:masters', 'system:authenticated'] },
    });
  });

  it('is no identity without a certificate', async () => {
    expect(await whoami(rooted)).to.deep.equal({ status: 200, body: null });
  });

  it('names the reason of a refused certificate for the log', async () => {
    const r = await whoami(rooted, await issueClientCert(await makeCA('other'), { cn: 'x' }));
    expect(r.status).to.equal(401);
    expect(r.body.error).to.match(
      /^verifying certificate SN=\d+, subject="CN=x" failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE$/,
    );
    const expired = await issueClientCert(ca, {
      cn: 'y',
      notBefore: new Date(Date.now() - 2 * DAY_MS),
      notAfter: new Date(Date.now() - DAY_MS),
    });
    expect((await whoami(rooted, expired)).body.error).to.match(/failed: CERT_HAS_EXPIRED$/);
  });

  it('verifies a certificate of an intermediate listed in the bundle, without the client sending it', async () => {
    const r = await whoami(withIntermediate, await issueClientCert(intermediate, { cn: 'carol' }));
    expect(r).to.deep.equal({ status: 200, body: { name: 'carol', groups: ['system:authenticated'] } });
  });
});

describe('without --client-ca-file', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--authorization-mode=AlwaysDeny']);
  });
  after(() => gh?.close());

  it('client certificates are not asked for: the request is anonymous', async () => {
    const ca = await makeCA('unused-ca');
    const root = await issueClientCert(ca, { cn: 'root', orgs: ['system:masters'] });
    const res = await get(gh.url, gh.ca, '/api/v1/namespaces', { client: root });
    expect(res.status, res.body).to.equal(403);
    expect(res.json().message).to.contain('User "system:anonymous"');
  });
});
