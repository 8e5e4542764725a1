// No credential reaches the log, at any verbosity: one gateway runs at -v 10 (every entry written, request headers
// included) with every authentication method there is (static token file, bootstrap token, service-account token,
// OIDC, client certificate, authenticating proxy, impersonation, anonymous), each used once successfully and in
// its failures (wrong token, expired, bad signature, unknown CA). Its whole log is then searched for every token,
// password and private key the run used. The log must hold the request lines and the refusals, redacted, so that
// finding nothing proves something.
import { expect } from 'chai';
import { webcrypto } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createNamespace } from '../helpers/api.js';
import { createTokenSecret, newToken } from '../helpers/bootstrap-tokens.js';
import { httpsRequest, startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { messagesOf, parseEntry } from '../helpers/klog.js';
import { createTestIssuer, type SigningKey, type TestIssuer } from '../helpers/oidc-issuer.js';
import {
  caBundle,
  issueClientCert,
  makeCA,
  type CertificateAuthority,
  type IssuedCertificate,
} from '../helpers/pki.js';
import { STORAGE_URL_ENV } from '../../gateway/server/options.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const CLIENT_ID = 'gatehouse';
const STATIC_TOKEN = 'static-token-0b7c41e9d2a8f6';
const STORAGE_PASSWORD = 'storage-password-6e1f08c3';
const BASIC_PASSWORD = 'basic-password-93d5ab17';
const DAY_MS = 86_400_000;

/** What must never be shown of a token: the whole, and its secret part alone (a bootstrap secret, a JWT signature). */
function secretParts(token: string): string[] {
  const parts = token.split('.');
  return parts.length > 1 ? [token, parts[parts.length - 1]] : [token];
}

/** Each base64 line of a PEM private key: any of them in the log is part of the key. */
function pemBodyLines(pem: string): string[] {
  return pem.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----'));
}

async function pkcs8Pem(key: SigningKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key.privateKey));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`;
}

function tamper(jwt: string): string {
  const [h, p, s] = jwt.split('.');
  return `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
}

/** Every private key PEM below `dir` (the generated serving, CA and service-account keys). */
async function privateKeysUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const text = await readFile(path.join(entry.parentPath, entry.name), 'utf8').catch(() => '');
    if (text.includes('PRIVATE KEY-----')) found.push(text);
  }
  return found;
}

describe('the log at -v 10 holds no credential of any authentication method', function () {
  this.timeout(120_000);
  let dir: string;
  let issuer: TestIssuer;
  let gh: TestGatehouse;
  let clientCa: CertificateAuthority;
  let proxyCa: CertificateAuthority;
  let stranger: CertificateAuthority;
  /** Tokens and passwords sent, and private keys (PEM) used, by the whole run. */
  const tokens: string[] = [];
  const keys: string[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-log-credentials-'));
    issuer = await createTestIssuer();
    [clientCa, proxyCa, stranger] = await Promise.all([
      makeCA('client-ca'),
      makeCA('front-proxy-ca'),
      makeCA('stranger-ca'),
    ]);
    keys.push(clientCa.keyPem, proxyCa.keyPem, stranger.keyPem, await pkcs8Pem(issuer.currentKey));
    const files = {
      tokens: path.join(dir, 'tokens.csv'),
      clientCa: path.join(dir, 'client-ca.crt'),
      proxyCa: path.join(dir, 'proxy-ca.crt'),
    };
    await writeFile(files.tokens, `${STATIC_TOKEN},stacy,stacy-uid,"staff"\n`);
    await writeFile(files.clientCa, caBundle(clientCa));
    await writeFile(files.proxyCa, caBundle(proxyCa));
    tokens.push(STATIC_TOKEN);

    // A storage URL the memory backend does not use: its password is in the environment the server reads, and
    // the server warns about the URL.
    const savedUrl = process.env[STORAGE_URL_ENV];
    process.env[STORAGE_URL_ENV] = `postgres://gatehouse:${STORAGE_PASSWORD}@127.0.0.1:5432/gatehouse`;
    tokens.push(STORAGE_PASSWORD);
    try {
      gh = await startTestGatehouse([
        '-v',
        '10',
        '--storage-backend',
        'memory',
        '--authorization-mode=RBAC',
        '--token-auth-file',
        files.tokens,
        '--enable-bootstrap-token-auth',
        '--client-ca-file',
        files.clientCa,
        `--oidc-issuer-url=${issuer.url}`,
        `--oidc-client-id=${CLIENT_ID}`,
        `--oidc-ca-file=${issuer.caFile}`,
        '--requestheader-client-ca-file',
        files.proxyCa,
        '--requestheader-allowed-names',
        'front-proxy',
        '--requestheader-username-headers',
        'X-Remote-User',
        '--requestheader-group-headers',
        'X-Remote-Group',
      ]);
    } finally {
      if (savedUrl === undefined) delete process.env[STORAGE_URL_ENV];
      else process.env[STORAGE_URL_ENV] = savedUrl;
    }
    tokens.push(gh.adminToken);
  });
  after(async () => {
    await gh?.close();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const review = (opts: {
    token?: string | null;
    cert?: IssuedCertificate;
    headers?: Record<string, string>;
  }): Promise<GatehouseResponse> =>
    httpsRequest(gh.url, gh.ca, 'POST', SSR, {
      body: SSR_BODY,
      token: opts.token ?? null,
      headers: opts.headers,
      clientCert: opts.cert ? { cert: opts.cert.certPem, key: opts.cert.keyPem } : undefined,
    });
  const username = (res: GatehouseResponse): string => {
    expect(res.status, res.body).to.equal(201);
    return res.json().status.userInfo.username;
  };
  /** RBAC lets no anonymous request review itself: the 403 names the user the request was taken for. */
  const forbiddenFor = (res: GatehouseResponse): string => {
    expect(res.status, res.body).to.equal(403);
    return /User "([^"]+)"/.exec(res.json().message)?.[1] ?? '';
  };
  const refused = (res: GatehouseResponse): void => {
    expect(res.status, res.body).to.equal(401);
  };

  it('authenticates and refuses with every method, and logs them without their credentials', async () => {
    // Static token file.
    expect(username(await review({ token: STATIC_TOKEN }))).to.equal('stacy');
    const wrongStatic = `${STATIC_TOKEN.slice(0, -1)}0`;
    tokens.push(wrongStatic);
    refused(await review({ token: wrongStatic }));

    // Bootstrap tokens: valid, wrong secret, expired.
    const boot = newToken();
    const expired = newToken();
    await createTokenSecret(gh, boot, { 'usage-bootstrap-authentication': 'true' });
    await createTokenSecret(gh, expired, {
      'usage-bootstrap-authentication': 'true',
      expiration: '2020-01-01T00:00:00Z',
    });
    const wrongSecret = `${boot.id}.${boot.secret.split('').reverse().join('')}`;
    tokens.push(boot.token, expired.token, wrongSecret);
    expect(username(await review({ token: boot.token }))).to.equal(`system:bootstrap:${boot.id}`);
    refused(await review({ token: wrongSecret }));
    refused(await review({ token: expired.token }));

    // Service-account tokens: valid, bad signature, of a deleted account.
    const ns = await createNamespace(gh, 'logcred');
    const issue = async (name: string): Promise<string> => {
      expect(
        (await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name } } })).status,
      ).to.equal(201);
      const res = await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      });
      expect(res.status, res.body).to.equal(201);
      return res.json().status.token;
    };
    const saToken = await issue('bot');
    const revoked = await issue('gone');
    expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/gone`)).status).to.equal(200);
    const forgedSa = tamper(saToken);
    tokens.push(saToken, revoked, forgedSa);
    expect(username(await review({ token: saToken }))).to.equal(`system:serviceaccount:${ns}:bot`);
    refused(await review({ token: forgedSa }));
    refused(await review({ token: revoked }));

    // OIDC: valid, expired, signed by a key the issuer never published, for another audience.
    const claims = { sub: 'olivia', aud: CLIENT_ID };
    const forger = await issuer.foreignKey();
    keys.push(await pkcs8Pem(forger));
    const oidc = {
      valid: await issuer.mint(claims),
      expired: await issuer.mint({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }),
      forged: await issuer.mint(claims, { key: forger, kid: issuer.currentKey.kid }),
      otherAudience: await issuer.mint({ ...claims, aud: 'someone-else' }),
    };
    tokens.push(...Object.values(oidc));
    expect(username(await review({ token: oidc.valid }))).to.equal(`${issuer.url}#olivia`);
    for (const token of [oidc.expired, oidc.forged, oidc.otherAudience]) refused(await review({ token }));

    // Client certificates: valid, expired, from an unknown CA.
    const client = await issueClientCert(clientCa, { cn: 'carol', orgs: ['staff'] });
    const expiredCert = await issueClientCert(clientCa, {
      cn: 'old',
      notBefore: new Date(Date.now() - 10 * DAY_MS),
      notAfter: new Date(Date.now() - DAY_MS),
    });
    const strangers = await issueClientCert(stranger, { cn: 'mallory' });
    keys.push(client.keyPem, expiredCert.keyPem, strangers.keyPem);
    expect(username(await review({ cert: client }))).to.equal('carol');
    refused(await review({ cert: expiredCert }));
    refused(await review({ cert: strangers }));

    // The authenticating proxy: an allowed proxy names the user; a proxy with another name is refused.
    const proxy = await issueClientCert(proxyCa, { cn: 'front-proxy' });
    const otherProxy = await issueClientCert(proxyCa, { cn: 'not-the-proxy' });
    keys.push(proxy.keyPem, otherProxy.keyPem);
    expect(
      username(await review({ cert: proxy, headers: { 'X-Remote-User': 'paula', 'X-Remote-Group': 'staff' } })),
    ).to.equal('paula');
    refused(await review({ cert: otherProxy, headers: { 'X-Remote-User': 'paula' } }));

    // Impersonation: the admin may, the static-token user may not.
    expect(username(await review({ token: gh.adminToken, headers: { 'Impersonate-User': 'bob' } }))).to.equal('bob');
    expect((await review({ token: STATIC_TOKEN, headers: { 'Impersonate-User': 'bob' } })).status).to.equal(403);

    // Anonymous, and a Basic credential (not a scheme Gatehouse takes: the request is anonymous).
    expect(forbiddenFor(await review({}))).to.equal('system:anonymous');
    const basic = Buffer.from(`bob:${BASIC_PASSWORD}`).toString('base64');
    tokens.push(BASIC_PASSWORD, basic);
    expect(forbiddenFor(await review({ headers: { authorization: `Basic ${basic}` } }))).to.equal('system:anonymous');

    keys.push(...(await privateKeysUnder(gh.dataDir)));

    const log = gh.logs.join('\n');
    const messages = messagesOf(gh.logs);
    // The search below proves something only if the log holds the requests, their redacted headers and the refusals.
    expect(messages.filter((m) => m === 'HTTP').length, 'request lines').to.be.greaterThan(20);
    expect(
      gh.logs.some((entry) => entry.includes('"authorization":"[REDACTED]"')),
      'a redacted Authorization header',
    ).to.equal(true);
    expect(
      gh.logs.filter(
        (entry) =>
          parseEntry(entry)?.severity === 'E' && parseEntry(entry)?.message === 'Unable to authenticate the request',
      ).length,
      'refusals',
    ).to.be.at.least(8);
    expect(
      messages.some((m) => m.includes(`${STORAGE_URL_ENV} is set`)),
      'the storage URL warning',
    ).to.equal(true);

    for (const token of tokens) {
      for (const secret of secretParts(token))
        expect(log.includes(secret), `a credential in the log: ${secret.slice(0, 12)}...`).to.equal(false);
    }
    expect(keys.length).to.be.at.least(10);
    for (const pem of keys) {
      for (const line of pemBodyLines(pem))
        expect(log.includes(line), `a private key line in the log: ${line.slice(0, 12)}...`).to.equal(false);
    }
  });
});
