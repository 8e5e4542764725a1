// Service-account tokens over real HTTPS: the TokenRequest subresource (defaults, validation, bound objects, the
// expiration cap), tokens authenticating as their account (read back through SelfSubjectReview), tokens the test
// mints with the server's own key (expired, other audience, other issuer, tampered), revocation by deleting or
// recreating the account or the bound Secret (and its absence with --service-account-lookup=false), keys surviving a
// restart, RSA/ECDSA and several key files, the --tls-private-key-file fallback, and discovery. `kubectl create token`
// is in test/e2e/service-account-token.test.ts.
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';
import { startGatehouse } from '../../gateway/main.js';
import { OptionsError } from '../../gateway/server/options.js';
import { keyId, parsePemKeys, type ServiceAccountKey } from '../../gateway/authn/service-account-keys.js';
import { signClaims } from '../../gateway/authn/service-account-signer.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const tokenPath = (ns: string, sa: string) => `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`;
const tokenRequest = (spec: Record<string, unknown> = {}, apiVersion = 'authentication.k8s.io/v1') => ({
  apiVersion,
  kind: 'TokenRequest',
  spec,
});

function decodeJwt(token: string): { header: any; claims: any } {
  const [h, p] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h, 'base64url').toString()),
    claims: JSON.parse(Buffer.from(p, 'base64url').toString()),
  };
}

function pem(key: KeyObject, type: 'pkcs1' | 'pkcs8' | 'sec1' | 'spki'): string {
  return key.export({ type, format: 'pem' } as never) as unknown as string;
}

async function createServiceAccount(gh: TestGatehouse, ns: string, name: string): Promise<string> {
  const res = await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } },
  });
  expect(res.status, res.body).to.equal(201);
  return res.json().metadata.uid;
}

async function issue(gh: TestGatehouse, ns: string, sa: string, spec: Record<string, unknown> = {}): Promise<any> {
  const res = await gh.request('POST', tokenPath(ns, sa), { body: tokenRequest(spec) });
  expect(res.status, res.body).to.equal(201);
  return res.json();
}

/** Who the server takes the bearer of `token` for; fails the test unless it answers 201. */
async function whoami(gh: TestGatehouse, token: string): Promise<any> {
  const res = await gh.request('POST', SSR, { body: {}, token });
  expect(res.status, res.body).to.equal(201);
  return res.json().status.userInfo;
}

async function expectUnauthorized(gh: TestGatehouse, token: string): Promise<void> {
  expectFailure(await gh.request('POST', SSR, { body: {}, token }), 401, 'Unauthorized');
}

describe('service-account tokens', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  let botUid: string;

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'sa');
    botUid = await createServiceAccount(gh, ns, 'bot');
  });
  after(async () => {
    await gh?.close();
  });

  /** The generated signing key, read from the data dir as an operator could. */
  const serverKey = async (): Promise<ServiceAccountKey> =>
    parsePemKeys(await readFile(path.join(gh.dataDir, 'pki', 'sa.key'), 'utf8')).privateKeys[0];

  describe('TokenRequest', () => {
    it('issues a token that authenticates as the account, with its uid, groups and credential id', async () => {
      const before = Date.now();
      const r = await issue(gh, ns, 'bot');
      expect(r).to.deep.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' });
      expect(r.metadata).to.include({ name: 'bot', namespace: ns });
      expect(r.spec).to.deep.equal({ audiences: [ISSUER], expirationSeconds: 3600, boundObjectRef: null });
      const expires = Date.parse(r.status.expirationTimestamp);
      expect(expires).to.be.within(Math.floor(before / 1000) * 1000 + 3600_000, Date.now() + 3600_000);

      const { header, claims } = decodeJwt(r.status.token);
      expect(header).to.deep.equal({ alg: 'ES256', kid: (await serverKey()).kid });
      expect(claims).to.include({ iss: ISSUER, sub: `system:serviceaccount:${ns}:bot` });
      expect(claims.aud).to.deep.equal([ISSUER]);
      expect(claims.exp - claims.iat).to.equal(3600);
      expect(claims.nbf).to.equal(claims.iat);
      expect(claims.exp * 1000).to.equal(expires);
      expect(claims['kubernetes.io']).to.deep.equal({ namespace: ns, serviceaccount: { name: 'bot', uid: botUid } });

      const user = await whoami(gh, r.status.token);
      expect(user).to.deep.equal({
        username: `system:serviceaccount:${ns}:bot`,
        uid: botUid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${claims.jti}`] },
      });
    });

    it('answers authentication.platform.io/v1 in kind, and defaults a body without apiVersion to authentication.k8s.io', async () => {
      const platform = await gh.request('POST', tokenPath(ns, 'bot'), {
        body: tokenRequest({}, 'authentication.platform.io/v1'),
      });
      expect(platform.status, platform.body).to.equal(201);
      expect(platform.json().apiVersion).to.equal('authentication.platform.io/v1');
      const bare = await gh.request('POST', tokenPath(ns, 'bot'), {
        body: { metadata: { name: 'bot', namespace: ns } },
      });
      expect(bare.status, bare.body).to.equal(201);
      expect(bare.json().apiVersion).to.equal('authentication.k8s.io/v1');
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({}, 'v1') }),
        400,
        'BadRequest',
      );
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: { kind: 'TokenReview' } }),
        400,
        'BadRequest',
      );
    });

    it('takes audiences and expirationSeconds; a token for other audiences is no credential for the API', async () => {
      const r = await issue(gh, ns, 'bot', { audiences: ['vault'], expirationSeconds: 600 });
      expect(r.spec).to.include({ expirationSeconds: 600 });
      expect(decodeJwt(r.status.token).claims.aud).to.deep.equal(['vault']);
      await expectUnauthorized(gh, r.status.token);
      const mixed = await issue(gh, ns, 'bot', { audiences: ['vault', ISSUER] });
      expect((await whoami(gh, mixed.status.token)).username).to.equal(`system:serviceaccount:${ns}:bot`);
    });

    it('validates expirationSeconds as upstream: at least 10 minutes, at most 2^32 seconds, an integer', async () => {
      const short = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({ expirationSeconds: 599 }) }),
        422,
        'Invalid',
      );
      expect(short.message).to.equal(
        'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
      );
      expect(short.details.causes).to.deep.equal([
        {
          reason: 'FieldValueInvalid',
          field: 'spec.expirationSeconds',
          message: 'Invalid value: 599: may not specify a duration less than 10 minutes',
        },
      ]);
      const long = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({ expirationSeconds: 2 ** 32 + 1 }) }),
        422,
        'Invalid',
      );
      expect(long.message).to.contain('may not specify a duration larger than 2^32 seconds');
      const typed = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({ expirationSeconds: '600' }) }),
        422,
        'Invalid',
      );
      expect(typed.message).to.contain('spec.expirationSeconds');
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({ audiences: 'vault' }) }),
        422,
        'Invalid',
      );
      expect((await issue(gh, ns, 'bot', { expirationSeconds: 2 ** 32 })).spec.expirationSeconds).to.equal(2 ** 32);
    });

    it('answers 404 for a missing account or namespace, 422 for a mismatched name, 405 for other methods', async () => {
      const missing = expectFailure(
        await gh.request('POST', tokenPath(ns, 'nobody'), { body: tokenRequest() }),
        404,
        'NotFound',
      );
      expect(missing.message).to.equal('serviceaccounts "nobody" not found');
      expectFailure(
        await gh.request('POST', tokenPath('no-such-ns', 'bot'), { body: tokenRequest() }),
        404,
        'NotFound',
      );
      const renamed = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: { ...tokenRequest(), metadata: { name: 'other' } } }),
        422,
        'Invalid',
      );
      expect(renamed.message).to.contain(
        'metadata.name: Invalid value: "other": must match the service account name if specified',
      );
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), { body: { ...tokenRequest(), metadata: { namespace: 'x' } } }),
        422,
        'Invalid',
      );
      expectFailure(await gh.request('GET', tokenPath(ns, 'bot')), 405, 'MethodNotAllowed');
      expectFailure(await gh.request('PUT', tokenPath(ns, 'bot'), { body: tokenRequest() }), 405, 'MethodNotAllowed');
      expectFailure(
        await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps/x/token`, { body: tokenRequest() }),
        404,
        'NotFound',
      );
      expectFailure(
        await gh.request('POST', `${tokenPath(ns, 'bot')}/more`, { body: tokenRequest() }),
        404,
        'NotFound',
      );
    });

    it('binds a token to a Secret: revoked when the Secret goes; unknown kinds 400, missing 404, wrong uid 409', async () => {
      const secret = uniqueName('bound');
      const created = await gh.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret } },
      });
      expect(created.status, created.body).to.equal(201);
      const secretUid = created.json().metadata.uid;
      const r = await issue(gh, ns, 'bot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: secret } });
      expect(r.spec.boundObjectRef).to.deep.equal({ kind: 'Secret', apiVersion: 'v1', name: secret, uid: '' });
      expect(decodeJwt(r.status.token).claims['kubernetes.io'].secret).to.deep.equal({ name: secret, uid: secretUid });
      expect((await whoami(gh, r.status.token)).username).to.equal(`system:serviceaccount:${ns}:bot`);

      const wrongUid = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), {
          body: tokenRequest({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: secret, uid: 'not-it' } }),
        }),
        409,
        'Conflict',
      );
      expect(wrongUid.message).to.contain(
        'the UID in the bound object reference (not-it) does not match the UID in record',
      );
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), {
          body: tokenRequest({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'no-such-secret' } }),
        }),
        404,
        'NotFound',
      );
      const unknown = expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), {
          body: tokenRequest({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } }),
        }),
        400,
        'BadRequest',
      );
      expect(unknown.message).to.equal('cannot bind token to object of type /v1, Kind=ConfigMap');
      expectFailure(
        await gh.request('POST', tokenPath(ns, 'bot'), {
          body: tokenRequest({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'x' } }),
        }),
        400,
        'BadRequest',
      );

      expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}/secrets/${secret}`)).status).to.equal(200);
      await expectUnauthorized(gh, r.status.token);
    });
  });

  describe('tokens minted with the server key', () => {
    const claims = (over: Record<string, unknown> = {}) => {
      const t = Math.floor(Date.now() / 1000);
      return {
        iss: ISSUER,
        sub: `system:serviceaccount:${ns}:bot`,
        aud: [ISSUER],
        exp: t + 600,
        iat: t,
        nbf: t,
        jti: 'minted',
        'kubernetes.io': { namespace: ns, serviceaccount: { name: 'bot', uid: botUid } },
        ...over,
      };
    };

    it('accepts a well-formed one, so that the refusals below are about the one thing changed', async () => {
      expect((await whoami(gh, await signClaims(await serverKey(), claims()))).extra).to.deep.equal({
        'authentication.kubernetes.io/credential-id': ['JTI=minted'],
      });
    });

    it('refuses expired, not yet valid, other-audience, other-issuer and tampered tokens with 401', async () => {
      const key = await serverKey();
      const t = Math.floor(Date.now() / 1000);
      await expectUnauthorized(gh, await signClaims(key, claims({ exp: t - 120, iat: t - 800, nbf: t - 800 })));
      await expectUnauthorized(gh, await signClaims(key, claims({ nbf: t + 600 })));
      await expectUnauthorized(gh, await signClaims(key, claims({ aud: ['https://elsewhere.example'] })));
      await expectUnauthorized(gh, await signClaims(key, claims({ iss: 'https://oidc.example' })));
      const [h, , s] = (await signClaims(key, claims())).split('.');
      const forged = Buffer.from(
        JSON.stringify(
          claims({
            sub: `system:serviceaccount:${ns}:admin`,
            'kubernetes.io': { namespace: ns, serviceaccount: { name: 'admin', uid: botUid } },
          }),
        ),
      ).toString('base64url');
      await expectUnauthorized(gh, `${h}.${forged}.${s}`);
      const stranger = parsePemKeys(pem(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey, 'pkcs8'))
        .privateKeys[0];
      await expectUnauthorized(gh, await signClaims(stranger, claims()));
    });
  });

  describe('revocation through lookups', () => {
    it('refuses the token of a deleted account, and of an account deleted and recreated (new uid)', async () => {
      const name = uniqueName('gone');
      await createServiceAccount(gh, ns, name);
      const { status } = await issue(gh, ns, name);
      expect((await whoami(gh, status.token)).username).to.equal(`system:serviceaccount:${ns}:${name}`);
      expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/${name}`)).status).to.equal(200);
      await expectUnauthorized(gh, status.token);
      const newUid = await createServiceAccount(gh, ns, name);
      expect(newUid).to.not.equal(decodeJwt(status.token).claims['kubernetes.io'].serviceaccount.uid);
      await expectUnauthorized(gh, status.token);
      const fresh = await issue(gh, ns, name);
      expect((await whoami(gh, fresh.status.token)).uid).to.equal(newUid);
    });

    it("with --service-account-lookup=false, a deleted account's token still authenticates", async () => {
      const gh2 = await startTestGatehouse(['--service-account-lookup=false']);
      try {
        const ns2 = await createNamespace(gh2, 'nolookup');
        const uid = await createServiceAccount(gh2, ns2, 'temp');
        const { status } = await issue(gh2, ns2, 'temp');
        expect((await gh2.request('DELETE', `/api/v1/namespaces/${ns2}/serviceaccounts/temp`)).status).to.equal(200);
        expect((await gh2.request('GET', `/api/v1/namespaces/${ns2}/serviceaccounts/temp`)).status).to.equal(404);
        expect(await whoami(gh2, status.token)).to.include({ username: `system:serviceaccount:${ns2}:temp`, uid });
      } finally {
        await gh2.close();
      }
    });
  });

  describe('discovery', () => {
    it('lists serviceaccounts/token as upstream: TokenRequest in authentication.k8s.io/v1, verbs [create]', async () => {
      const list = (await gh.request('GET', '/api/v1')).json();
      expect(list.resources.find((r: any) => r.name === 'serviceaccounts/token')).to.deep.equal({
        name: 'serviceaccounts/token',
        singularName: '',
        namespaced: true,
        group: 'authentication.k8s.io',
        version: 'v1',
        kind: 'TokenRequest',
        verbs: ['create'],
      });
      const res = await gh.request('GET', '/api', { headers: { accept: `${AGGREGATED_V2},application/json` } });
      const core = res.json().items[0].versions.find((v: any) => v.version === 'v1');
      const sa = core.resources.find((r: any) => r.resource === 'serviceaccounts');
      expect(sa.subresources).to.deep.equal([
        {
          subresource: 'token',
          responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
          verbs: ['create'],
        },
      ]);
    });
  });
});

describe('service-account token keys', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-sa-int-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const file = async (name: string, text: string) => {
    const p = path.join(dir, name);
    await writeFile(p, text, { mode: 0o600 });
    return p;
  };

  it('keeps the generated key across restarts, so issued tokens stay valid', async () => {
    const dataDir = path.join(dir, 'restart');
    let gh = await startTestGatehouse([], { dataDir });
    let token: string;
    try {
      const ns = await createNamespace(gh, 'restart');
      await createServiceAccount(gh, ns, 'bot');
      token = (await issue(gh, ns, 'bot')).status.token;
    } finally {
      await gh.close();
    }
    gh = await startTestGatehouse([], { dataDir });
    try {
      expect((await whoami(gh, token)).username).to.match(/^system:serviceaccount:restart-.*:bot$/);
    } finally {
      await gh.close();
    }
  });

  it('signs RS256 with an RSA key file and verifies tokens of every key of several files', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ecA = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const ecB = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const rsaFile = await file('rsa.key', pem(rsa.privateKey, 'pkcs1'));
    // One file, two public keys: an old key kept for verification during a rotation, and another issuer's key.
    const pubs = await file('old.pub', `${pem(ecA.publicKey, 'spki')}\n${pem(ecB.publicKey, 'spki')}`);
    const gh = await startTestGatehouse(['--service-account-key-file', rsaFile, '--service-account-key-file', pubs]);
    try {
      expect(await stat(path.join(gh.dataDir, 'pki', 'sa.key')).catch(() => undefined)).to.equal(undefined);
      const ns = await createNamespace(gh, 'rsa');
      const uid = await createServiceAccount(gh, ns, 'bot');
      const issued = (await issue(gh, ns, 'bot')).status.token;
      expect(decodeJwt(issued).header).to.deep.equal({ alg: 'RS256', kid: keyId(rsa.publicKey) });
      expect((await whoami(gh, issued)).uid).to.equal(uid);

      const t = Math.floor(Date.now() / 1000);
      const claims = {
        iss: ISSUER,
        sub: `system:serviceaccount:${ns}:bot`,
        aud: [ISSUER],
        exp: t + 600,
        iat: t,
        nbf: t,
        jti: 'x',
        'kubernetes.io': { namespace: ns, serviceaccount: { name: 'bot', uid } },
      };
      for (const k of [ecA, ecB]) {
        const signer = parsePemKeys(pem(k.privateKey, 'pkcs8')).privateKeys[0];
        expect((await whoami(gh, await signClaims(signer, claims))).uid).to.equal(uid);
      }
    } finally {
      await gh.close();
    }
  });

  it('signs with --service-account-signing-key-file (ECDSA) and honours --service-account-max-token-expiration', async () => {
    const signing = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const signingFile = await file('signing.key', pem(signing.privateKey, 'sec1'));
    const gh = await startTestGatehouse([
      '--service-account-signing-key-file',
      signingFile,
      '--service-account-max-token-expiration=1h',
      '--service-account-issuer=https://issuer.example',
      '--service-account-issuer=https://old-issuer.example',
      '--api-audiences=gatehouse',
    ]);
    try {
      const ns = await createNamespace(gh, 'signing');
      await createServiceAccount(gh, ns, 'bot');
      const res = await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest({ expirationSeconds: 7200 }) });
      expect(res.status, res.body).to.equal(201);
      expect(res.json().spec).to.deep.include({ audiences: ['gatehouse'], expirationSeconds: 3600 });
      expect(res.headers.warning).to.equal('299 - "requested expiration of 7200 seconds shortened to 3600 seconds"');
      const { header, claims } = decodeJwt(res.json().status.token);
      expect(header).to.deep.equal({ alg: 'ES384', kid: keyId(signing.publicKey) });
      expect(claims).to.include({ iss: 'https://issuer.example' });
      expect(claims.exp - claims.iat).to.equal(3600);
      expect((await whoami(gh, res.json().status.token)).username).to.equal(`system:serviceaccount:${ns}:bot`);
      // The second issuer is accepted too (issuer migration).
      const key = parsePemKeys(pem(signing.privateKey, 'pkcs8')).privateKeys[0];
      const old = await signClaims(key, { ...claims, iss: 'https://old-issuer.example' });
      expect((await whoami(gh, old)).username).to.equal(`system:serviceaccount:${ns}:bot`);
    } finally {
      await gh.close();
    }
  });

  it('with public keys only, verifies tokens but issues none (the subresource answers 404)', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const gh = await startTestGatehouse([
      '--service-account-key-file',
      await file('verify-only.pub', pem(ec.publicKey, 'spki')),
    ]);
    try {
      expect(gh.logs.join('\n')).to.match(/verified but not issued/);
      const ns = await createNamespace(gh, 'verifyonly');
      const uid = await createServiceAccount(gh, ns, 'bot');
      expectFailure(await gh.request('POST', tokenPath(ns, 'bot'), { body: tokenRequest() }), 404, 'NotFound');
      const t = Math.floor(Date.now() / 1000);
      const minted = await signClaims(parsePemKeys(pem(ec.privateKey, 'pkcs8')).privateKeys[0], {
        iss: ISSUER,
        sub: `system:serviceaccount:${ns}:bot`,
        aud: [ISSUER],
        exp: t + 600,
        iat: t,
        nbf: t,
        jti: 'ext',
        'kubernetes.io': { namespace: ns, serviceaccount: { name: 'bot', uid } },
      });
      expect((await whoami(gh, minted)).uid).to.equal(uid);
    } finally {
      await gh.close();
    }
  });

  it('falls back to --tls-private-key-file for signing and verification', async () => {
    // A real serving pair: the one a first Gatehouse generated, served by a second with the CA appended for clients.
    const first = await startTestGatehouse();
    const pki = path.join(first.dataDir, 'pki');
    const certFile = await file(
      'tls.crt',
      `${(await readFile(path.join(pki, 'apiserver.crt'), 'utf8')).trim()}\n${await readFile(path.join(pki, 'ca.crt'), 'utf8')}`,
    );
    const keyText = await readFile(path.join(pki, 'apiserver.key'), 'utf8');
    const keyFile = await file('tls.key', keyText);
    await first.close();
    const gh = await startTestGatehouse(['--tls-cert-file', certFile, '--tls-private-key-file', keyFile]);
    try {
      expect(await stat(path.join(gh.dataDir, 'pki', 'sa.key')).catch(() => undefined)).to.equal(undefined);
      const ns = await createNamespace(gh, 'tls');
      await createServiceAccount(gh, ns, 'bot');
      const token = (await issue(gh, ns, 'bot')).status.token;
      expect(decodeJwt(token).header.kid).to.equal(parsePemKeys(keyText).privateKeys[0].kid);
      expect((await whoami(gh, token)).username).to.equal(`system:serviceaccount:${ns}:bot`);
    } finally {
      await gh.close();
    }
  });

  it('refuses to start on a bad key file, naming the flag and the file', async () => {
    const junk = await file('junk.pem', '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n');
    const args = (extra: string[]) => [
      '--data-dir',
      path.join(dir, 'bad'),
      '--secure-port',
      '0',
      '--bind-address',
      '127.0.0.1',
      ...extra,
    ];
    const quiet = { log: () => {}, out: () => {} };
    for (const [extra, pattern] of [
      [['--service-account-key-file', junk], new RegExp(`"${junk}" for "--service-account-key-file"`)],
      [
        ['--service-account-key-file', path.join(dir, 'missing.pem')],
        /missing\.pem" for "--service-account-key-file".*ENOENT/,
      ],
      [['--service-account-signing-key-file', junk], new RegExp(`"${junk}" for "--service-account-signing-key-file"`)],
    ] as const) {
      let error: unknown;
      try {
        const running = await startGatehouse(args([...extra]), quiet);
        await running.close();
      } catch (e) {
        error = e;
      }
      expect(error, extra.join(' ')).to.be.instanceOf(OptionsError);
      expect((error as Error).message).to.match(pattern);
    }
  });
});
