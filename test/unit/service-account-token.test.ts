// Service-account tokens below HTTP: the flags, PEM key parsing and loading (with the OptionsErrors a bad file gives),
// the token authenticator against a fake object getter (what is "not mine", what is a 401, leeway, audiences,
// lookups), and the protobuf TokenRequest reader.
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { OptionsError, parseOptions } from '../../gateway/server/options.js';
import {
  GENERATED_SA_KEY_FILE,
  keyId,
  loadServiceAccountKeys,
  parsePemKeys,
  type ServiceAccountKey,
} from '../../gateway/authn/service-account-keys.js';
import {
  createServiceAccountTokenAuthenticator,
  registryObjectGetter,
  type ObjectGetter,
  type BoundKind,
} from '../../gateway/authn/service-account-token.js';
import type { Registry } from '../../gateway/registry/registry.js';
import type { ReadRevision } from '../../backends/storage.js';
import { errors } from '../../api/meta/errors.js';
import { createServiceAccountTokenSigner, signClaims } from '../../gateway/authn/service-account-signer.js';
import { AuthenticationError } from '../../gateway/authn/authenticator.js';
import { decodeProtobufObject } from '../../api/proto/object-codec.js';

const TOKEN_REQUEST = { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
const decodeProtobufTokenRequest = (body: Buffer) => decodeProtobufObject(body, TOKEN_REQUEST);
import type { KObject } from '../../api/meta/types.js';

const cwd = '/srv/gh';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function pem(key: KeyObject, type: 'pkcs1' | 'pkcs8' | 'sec1' | 'spki'): string {
  return key.export({ type, format: 'pem' } as never) as unknown as string;
}

function ecKey(namedCurve = 'prime256v1') {
  return generateKeyPairSync('ec', { namedCurve });
}

function rsaKey() {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

function signingKey(privateKey: KeyObject): ServiceAccountKey {
  const parsed = parsePemKeys(pem(privateKey, 'pkcs8'));
  return parsed.privateKeys[0];
}

describe('service-account token flags', () => {
  it('defaults: the kubeadm issuer, audiences = issuers, no cap, lookup on, no key files', () => {
    const sa = parseOptions([], cwd).serviceAccounts;
    expect(sa).to.deep.equal({
      keyFiles: [],
      signingKeyFile: undefined,
      issuers: [ISSUER],
      apiAudiences: [ISSUER],
      maxExpirationSeconds: 0,
      lookup: true,
    });
  });

  it('keeps every issuer and key file in order, resolves paths, splits audiences', () => {
    const sa = parseOptions(
      [
        '--service-account-issuer=https://a.example',
        '--service-account-issuer',
        'b-issuer',
        '--service-account-key-file=k1.pem',
        '--service-account-key-file',
        '/etc/k2.pem',
        '--service-account-signing-key-file=s.key',
        '--api-audiences=x,y',
        '--api-audiences=z',
        '--service-account-max-token-expiration=2h',
        '--service-account-lookup=false',
      ],
      cwd,
    ).serviceAccounts;
    expect(sa.issuers).to.deep.equal(['https://a.example', 'b-issuer']);
    expect(sa.keyFiles).to.deep.equal([path.join(cwd, 'k1.pem'), '/etc/k2.pem']);
    expect(sa.signingKeyFile).to.equal(path.join(cwd, 's.key'));
    expect(sa.apiAudiences).to.deep.equal(['x', 'y', 'z']);
    expect(sa.maxExpirationSeconds).to.equal(7200);
    expect(sa.lookup).to.equal(false);
    // Without --api-audiences every issuer is an audience (upstream's default).
    expect(
      parseOptions(['--service-account-issuer=a', '--service-account-issuer=b'], cwd).serviceAccounts.apiAudiences,
    ).to.deep.equal(['a', 'b']);
  });

  it('refuses bad values naming the flag', () => {
    const refused = (argv: string[], pattern: RegExp) => {
      expect(() => parseOptions(argv, cwd)).to.throw(OptionsError, pattern);
    };
    refused(['--service-account-issuer='], /--service-account-issuer.*empty/);
    refused(
      ['--service-account-issuer=a', '--service-account-issuer=a'],
      /"a" for "--service-account-issuer".*already specified/,
    );
    refused(['--service-account-issuer=http://[::1'], /--service-account-issuer.*not a valid URL/);
    refused(
      ['--service-account-max-token-expiration=30m'],
      /--service-account-max-token-expiration.*between 1 hour and 2\^32 seconds/,
    );
    refused(['--service-account-max-token-expiration=5'], /--service-account-max-token-expiration/);
    refused(['--service-account-lookup=maybe'], /--service-account-lookup/);
    refused(['--service-account-key-file='], /--service-account-key-file.*empty/);
    expect(
      parseOptions(['--service-account-max-token-expiration=0'], cwd).serviceAccounts.maxExpirationSeconds,
    ).to.equal(0);
  });
});

describe('service-account key files', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-sa-keys-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };
  const options = (over: Partial<ReturnType<typeof parseOptions>['serviceAccounts']> = {}) => ({
    ...parseOptions([], cwd).serviceAccounts,
    ...over,
  });

  it('reads every PEM flavour, several per file, and skips what tokens cannot use', async () => {
    const rsa = rsaKey();
    const ec256 = ecKey();
    const ec384 = ecKey('secp384r1');
    const ec521 = ecKey('secp521r1');
    const ed = generateKeyPairSync('ed25519');
    const k1 = ecKey('secp256k1');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const text = [
      pem(rsa.privateKey, 'pkcs1'),
      pem(ec256.privateKey, 'sec1'),
      pem(ec384.publicKey, 'spki'),
      pem(ec521.privateKey, 'pkcs8'),
      pem(rsa.publicKey, 'pkcs1'),
      pem(ed.publicKey, 'spki'),
      pem(k1.privateKey, 'sec1'),
      pem(small.privateKey, 'pkcs8'),
      '-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----',
      'junk between blocks',
    ].join('\n');
    const parsed = parsePemKeys(text);
    expect(parsed.publicKeys.map((k) => k.alg)).to.deep.equal(['RS256', 'ES256', 'ES384', 'ES512', 'RS256']);
    expect(parsed.privateKeys.map((k) => k.alg)).to.deep.equal(['RS256', 'ES256', 'ES512']);
    expect(parsed.publicKeys.every((k) => k.key.type === 'public')).to.equal(true);
    // The kid is derived from the public key only: a private key and its public half share it.
    expect(parsed.publicKeys[0].kid).to.equal(keyId(rsa.publicKey)).and.to.equal(parsed.publicKeys[4].kid);
  });

  it('generates <cert-dir>/sa.key (0600) once and reuses it', async () => {
    const certDir = path.join(dir, 'pki');
    const first = await loadServiceAccountKeys(options(), { certDir });
    const file = path.join(certDir, GENERATED_SA_KEY_FILE);
    expect((await stat(file)).mode & 0o777).to.equal(0o600);
    const again = await loadServiceAccountKeys(options(), { certDir });
    expect(first.signing?.kid).to.be.a('string').and.equal(again.signing?.kid);
    expect(again.verification.map((k) => k.kid)).to.deep.equal([first.signing!.kid]);
    expect(first.signing?.alg).to.equal('ES256');
    expect(await readFile(file, 'utf8')).to.match(/BEGIN PRIVATE KEY/);
  });

  it('falls back to --tls-private-key-file and signs with it', async () => {
    const tls = ecKey();
    const tlsKey = await write('tls.key', pem(tls.privateKey, 'sec1'));
    const keys = await loadServiceAccountKeys(options(), {
      tlsPrivateKeyFile: tlsKey,
      certDir: path.join(dir, 'unused'),
    });
    expect(keys.signing?.kid).to.equal(keyId(tls.publicKey));
    expect(keys.verification.map((k) => k.kid)).to.deep.equal([keyId(tls.publicKey)]);
    // A serving key tokens cannot use leaves service-account tokens off, with a warning, as upstream does.
    const ed = await write('ed.key', pem(generateKeyPairSync('ed25519').privateKey, 'pkcs8'));
    const logs: string[] = [];
    const none = await loadServiceAccountKeys(options(), {
      tlsPrivateKeyFile: ed,
      certDir: dir,
      log: (l) => logs.push(l),
    });
    expect(none).to.deep.equal({ verification: [], signing: undefined });
    expect(logs.join('\n')).to.match(/service-account token authentication is disabled/);
  });

  it('signs with the first private key of the key files, or the signing key file, which also verifies', async () => {
    const a = ecKey();
    const b = rsaKey();
    const c = ecKey();
    const pubOnly = await write('a.pub', pem(a.publicKey, 'spki'));
    const both = await write('b.pem', `${pem(b.privateKey, 'pkcs8')}\n${pem(c.privateKey, 'pkcs8')}`);
    const keys = await loadServiceAccountKeys(options({ keyFiles: [pubOnly, both] }), { certDir: dir });
    expect(keys.verification.map((k) => k.kid)).to.deep.equal([
      keyId(a.publicKey),
      keyId(b.publicKey),
      keyId(c.publicKey),
    ]);
    expect(keys.signing?.kid).to.equal(keyId(b.publicKey));

    const s = ecKey('secp384r1');
    const signFile = await write('s.key', pem(s.privateKey, 'sec1'));
    const withSigning = await loadServiceAccountKeys(options({ keyFiles: [pubOnly], signingKeyFile: signFile }), {
      certDir: dir,
    });
    expect(withSigning.signing?.kid).to.equal(keyId(s.publicKey));
    expect(withSigning.verification.map((k) => k.kid)).to.deep.equal([keyId(a.publicKey), keyId(s.publicKey)]);

    const logs: string[] = [];
    const verifyOnly = await loadServiceAccountKeys(options({ keyFiles: [pubOnly] }), {
      certDir: dir,
      log: (l) => logs.push(l),
    });
    expect(verifyOnly.signing).to.equal(undefined);
    expect(logs.join('\n')).to.match(/verified but not issued/);
  });

  it('refuses unreadable and keyless files with an OptionsError naming the flag and the file', async () => {
    const missing = path.join(dir, 'missing.pem');
    const junk = await write('junk.pem', 'not a key\n');
    const pubOnly = await write('only.pub', pem(ecKey().publicKey, 'spki'));
    const refused = async (over: object, pattern: RegExp) => {
      try {
        await loadServiceAccountKeys(options(over), { certDir: dir });
      } catch (e) {
        expect(e).to.be.instanceOf(OptionsError);
        expect((e as Error).message).to.match(pattern);
        return;
      }
      expect.fail('expected an OptionsError');
    };
    await refused({ keyFiles: [missing] }, new RegExp(`"${missing}" for "--service-account-key-file".*ENOENT`));
    await refused(
      { keyFiles: [pubOnly, junk] },
      new RegExp(`"${junk}" for "--service-account-key-file".*no.* valid RSA .*or ECDSA .*public keys`),
    );
    await refused(
      { signingKeyFile: pubOnly },
      new RegExp(`"${pubOnly}" for "--service-account-signing-key-file".*private key`),
    );
    await refused({ signingKeyFile: missing }, /--service-account-signing-key-file/);
  });
});

describe('service-account token authenticator', () => {
  const ec = ecKey();
  const key = signingKey(ec.privateKey);
  const verify = parsePemKeys(pem(ec.publicKey, 'spki')).publicKeys;
  const other = signingKey(ecKey().privateKey);
  const objects = new Map<string, KObject>();
  const getter: ObjectGetter = { get: async (kind: BoundKind, ns, name) => objects.get(`${kind}/${ns}/${name}`) };
  const put = (kind: BoundKind, ns: string, name: string, uid: string, extra: Record<string, unknown> = {}) =>
    objects.set(`${kind}/${ns}/${name}`, {
      apiVersion: 'v1',
      kind,
      metadata: { name, namespace: ns || undefined, uid, ...extra },
    });
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const authenticator = (over: Partial<Parameters<typeof createServiceAccountTokenAuthenticator>[0]> = {}) =>
    createServiceAccountTokenAuthenticator({
      issuers: [ISSUER, 'legacy-issuer'],
      keys: verify,
      apiAudiences: ['api', 'api2'],
      lookup: true,
      getter,
      ...over,
    });
  const claims = (over: Record<string, unknown> = {}) => {
    const t = nowSeconds();
    return {
      iss: ISSUER,
      sub: 'system:serviceaccount:ns:bot',
      aud: ['api'],
      exp: t + 600,
      iat: t,
      nbf: t,
      jti: 'jti-1',
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'bot', uid: 'sa-uid' } },
      ...over,
    };
  };
  const rejects = async (token: string, pattern: RegExp, auth = authenticator()) => {
    try {
      await auth.authenticateToken(token);
    } catch (e) {
      expect(e).to.be.instanceOf(AuthenticationError);
      expect((e as Error).message).to.match(pattern);
      return;
    }
    expect.fail(`expected the token to be refused (${pattern})`);
  };

  beforeEach(() => {
    objects.clear();
    put('ServiceAccount', 'ns', 'bot', 'sa-uid');
  });

  it('accepts a token it issued: identity, groups, credential id, audiences', async () => {
    const signer = createServiceAccountTokenSigner(ISSUER, key);
    const { token, claims: issued } = await signer.issue({
      subject: { namespace: 'ns', name: 'bot', uid: 'sa-uid' },
      audiences: ['api', 'vault'],
      expirationSeconds: 600,
    });
    const result = await authenticator().authenticateToken(token);
    expect(result).to.deep.equal({
      user: {
        name: 'system:serviceaccount:ns:bot',
        uid: 'sa-uid',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns'],
        extra: { 'authentication.kubernetes.io/credential-id': [`JTI=${issued.jti}`] },
      },
      audiences: ['api'],
    });
    const header = JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
    expect(header).to.deep.equal({ alg: 'ES256', kid: key.kid });
  });

  it('answers null for what is not its token: other issuers, non-JWTs, garbage', async () => {
    const auth = authenticator();
    expect(await auth.authenticateToken(await signClaims(key, claims({ iss: 'https://oidc.example' })))).to.equal(null);
    expect(await auth.authenticateToken(await signClaims(key, claims({ iss: undefined })))).to.equal(null);
    expect(await auth.authenticateToken('static-token-value')).to.equal(null);
    expect(await auth.authenticateToken('a.b.c')).to.equal(null);
    expect(await auth.authenticateToken('a.b')).to.equal(null);
  });

  it('accepts any configured issuer and a token with no audience as meant for the API', async () => {
    const r = await authenticator().authenticateToken(
      await signClaims(key, claims({ iss: 'legacy-issuer', aud: undefined })),
    );
    expect(r?.audiences).to.deep.equal(['api', 'api2']);
    const single = await authenticator().authenticateToken(await signClaims(key, claims({ aud: 'api2' })));
    expect(single?.audiences).to.deep.equal(['api2']);
  });

  it('refuses bad signatures, unknown kids and foreign keys', async () => {
    const token = await signClaims(key, claims());
    const [h, p, s] = token.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify(claims({ sub: 'system:serviceaccount:ns:admin' }))).toString('base64url')}.${s}`;
    await rejects(tampered, /invalid signature/);
    await rejects(`${h}.${p}.${s.slice(0, -4)}AAAA`, /invalid signature/);
    await rejects(await signClaims(other, claims()), /no keys found/);
    // Without a kid every key is tried; none verifies.
    const noKid = await signClaims({ ...other, kid: '' }, claims());
    await rejects(noKid, /invalid signature/);
    // alg "none" never verifies.
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${p}.`;
    await rejects(none, /invalid signature/);
  });

  it('checks exp, nbf and iat with a one-minute leeway', async () => {
    const t = nowSeconds();
    await rejects(await signClaims(key, claims({ exp: t - 120 })), /expired/);
    await rejects(await signClaims(key, claims({ exp: undefined })), /no expiry/);
    await rejects(await signClaims(key, claims({ nbf: t + 300 })), /not valid yet/);
    await rejects(await signClaims(key, claims({ iat: t + 300 })), /issued in the future/);
    expect(
      await authenticator().authenticateToken(await signClaims(key, claims({ exp: t - 30, nbf: t + 30 }))),
    ).to.not.equal(null);
  });

  it('refuses audiences outside the API audiences and incomplete claims', async () => {
    await rejects(await signClaims(key, claims({ aud: ['vault'] })), /audiences are invalid/);
    await rejects(await signClaims(key, claims({ aud: [7] })), /malformed/);
    await rejects(await signClaims(key, claims({ 'kubernetes.io': undefined })), /incomplete/);
    await rejects(
      await signClaims(key, claims({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'bot' } } })),
      /incomplete/,
    );
    await rejects(await signClaims(key, claims({ sub: 'system:serviceaccount:ns:other' })), /subject/);
    await rejects(
      await signClaims(
        key,
        claims({ 'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'bot', uid: 'sa-uid' }, secret: 'x' } }),
      ),
      /secret claim/,
    );
  });

  describe('verified signatures', () => {
    // The keys are fixed for the life of the process; emptying the test's copy shows whether a token was verified
    // again (it would then fail with "no keys found").
    let keys: typeof verify;
    beforeEach(() => {
      keys = [...verify];
    });

    it('checks the signature of a token once, and every other rule on every request', async () => {
      let now = nowSeconds();
      const auth = authenticator({ keys, now: () => now });
      const token = await signClaims(key, claims({ exp: now + 600 }));
      expect((await auth.authenticateToken(token))?.user.name).to.equal('system:serviceaccount:ns:bot');
      keys.length = 0;
      expect((await auth.authenticateToken(token))?.user.name).to.equal('system:serviceaccount:ns:bot');
      // Another token, even one of the same account, is verified on its own.
      await rejects(await signClaims(key, claims({ jti: 'jti-2' })), /no keys found/, auth);

      objects.clear();
      await rejects(token, /no longer exists/, auth);
      put('ServiceAccount', 'ns', 'bot', 'sa-uid');
      now += 700;
      await rejects(token, /expired/, auth);
    });

    it('keeps only so many, the oldest leaving first', async () => {
      const auth = authenticator({ keys, verifiedTokensKept: 2 });
      const tokens = await Promise.all(['a', 'b', 'c'].map((jti) => signClaims(key, claims({ jti }))));
      for (const token of tokens) expect(await auth.authenticateToken(token)).to.not.equal(null);
      keys.length = 0;
      await rejects(tokens[0], /no keys found/, auth);
      expect(await auth.authenticateToken(tokens[1])).to.not.equal(null);
      expect(await auth.authenticateToken(tokens[2])).to.not.equal(null);
    });

    it('keeps no token whose signature failed', async () => {
      const auth = authenticator({ keys });
      const [h, p] = (await signClaims(key, claims())).split('.');
      await rejects(`${h}.${p}.AAAA`, /invalid signature/, auth);
      keys.length = 0;
      await rejects(`${h}.${p}.AAAA`, /no keys found/, auth);
    });
  });

  it('with lookup, refuses a deleted or recreated account and a vanished bound object', async () => {
    const token = await signClaims(key, claims());
    objects.clear();
    await rejects(token, /no longer exists/);
    put('ServiceAccount', 'ns', 'bot', 'new-uid');
    await rejects(token, /uid does not match/);
    put('ServiceAccount', 'ns', 'bot', 'sa-uid', { deletionTimestamp: new Date(Date.now() - 120_000).toISOString() });
    await rejects(token, /has been deleted/);
    // Deleted less than the leeway ago still counts as existing, as upstream.
    put('ServiceAccount', 'ns', 'bot', 'sa-uid', { deletionTimestamp: new Date().toISOString() });
    expect(await authenticator().authenticateToken(token)).to.not.equal(null);

    put('ServiceAccount', 'ns', 'bot', 'sa-uid');
    const k8s = (extra: object) => ({
      'kubernetes.io': { namespace: 'ns', serviceaccount: { name: 'bot', uid: 'sa-uid' }, ...extra },
    });
    const secretBound = await signClaims(key, claims(k8s({ secret: { name: 's', uid: 's-uid' } })));
    await rejects(secretBound, /bound secret ns\/s no longer exists/);
    put('Secret', 'ns', 's', 's-uid');
    expect(await authenticator().authenticateToken(secretBound)).to.not.equal(null);
    put('Secret', 'ns', 's', 'other');
    await rejects(secretBound, /bound secret uid/);

    const nodeBound = await signClaims(key, claims(k8s({ node: { name: 'n1', uid: 'n-uid' } })));
    await rejects(nodeBound, /bound node n1 no longer exists/);
    put('Node', '', 'n1', 'n-uid');
    const r = await authenticator().authenticateToken(nodeBound);
    expect(r?.user.extra).to.deep.include({
      'authentication.kubernetes.io/node-name': ['n1'],
      'authentication.kubernetes.io/node-uid': ['n-uid'],
    });

    // Pods are not served: a pod-bound token (issued elsewhere with a shared key) cannot be checked and is refused.
    await rejects(
      await signClaims(key, claims(k8s({ pod: { name: 'p', uid: 'p-uid' } }))),
      /bound pod ns\/p no longer exists/,
    );
  });

  it('without lookup, trusts the claims alone', async () => {
    objects.clear();
    const auth = authenticator({ lookup: false });
    const token = await signClaims(
      key,
      claims({
        'kubernetes.io': {
          namespace: 'ns',
          serviceaccount: { name: 'bot', uid: 'sa-uid' },
          pod: { name: 'p', uid: 'p-uid' },
          node: { name: 'n', uid: 'n-uid' },
        },
      }),
    );
    const r = await auth.authenticateToken(token);
    expect(r?.user.extra).to.deep.equal({
      'authentication.kubernetes.io/pod-name': ['p'],
      'authentication.kubernetes.io/pod-uid': ['p-uid'],
      'authentication.kubernetes.io/credential-id': ['JTI=jti-1'],
      'authentication.kubernetes.io/node-name': ['n'],
      'authentication.kubernetes.io/node-uid': ['n-uid'],
    });
  });

  it('verifies with any of several keys (rotation), RSA and ECDSA alike', async () => {
    const rsa = rsaKey();
    const rsaSigning = signingKey(rsa.privateKey);
    const keys = [...verify, ...parsePemKeys(pem(rsa.publicKey, 'spki')).publicKeys];
    const auth = authenticator({ keys });
    expect(await auth.authenticateToken(await signClaims(rsaSigning, claims()))).to.not.equal(null);
    expect(await auth.authenticateToken(await signClaims(key, claims()))).to.not.equal(null);
    expect(rsaSigning.alg).to.equal('RS256');
  });
});

describe('protobuf TokenRequest', () => {
  const field = (n: number, bytes: Buffer): Buffer => Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
  const str = (n: number, s: string) => field(n, Buffer.from(s));

  it('reads what kubectl create token sends (bytes captured from kubectl 1.32)', () => {
    const body = Buffer.from(
      '6b 38 73 00 0a 28 0a 18 61 75 74 68 65 6e 74 69 63 61 74 69 6f 6e 2e 6b 38 73 2e 69 6f 2f 76 31 12 0c 54 6f 6b 65 6e 52 65 71 75 65 73 74 12 21 0a 10 0a 00 12 00 1a 00 22 00 2a 00 32 00 38 00 42 00 12 07 0a 02 61 31 20 b0 09 1a 04 0a 00 12 00 1a 00 22 00'.replace(
        / /g,
        '',
      ),
      'hex',
    );
    const decoded = decodeProtobufTokenRequest(body);
    expect(decoded).to.include({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest' });
    expect(decoded.spec).to.deep.equal({ audiences: ['a1'], expirationSeconds: 1200 });
  });

  it('reads a bound object reference, metadata and several audiences; refuses broken envelopes with 400', () => {
    const ref = Buffer.concat([str(1, 'Secret'), str(2, 'v1'), str(3, 's'), str(4, 'u')]);
    const spec = Buffer.concat([str(1, 'a'), str(1, 'b'), field(3, ref)]);
    const raw = Buffer.concat([field(1, Buffer.concat([str(1, 'bot'), str(3, 'ns')])), field(2, spec)]);
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(2, raw)]);
    const decoded = decodeProtobufTokenRequest(body);
    expect(decoded.metadata).to.include({ name: 'bot', namespace: 'ns' });
    expect(decoded.spec).to.deep.equal({
      audiences: ['a', 'b'],
      boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 's', uid: 'u' },
    });
    for (const bad of [Buffer.from('{}'), body.subarray(0, body.length - 3), Buffer.alloc(0)]) {
      expect(() => decodeProtobufTokenRequest(bad))
        .to.throw()
        .with.property('code', 400);
    }
  });
});

describe('service-account token lookups through the registry', () => {
  it('read the cache, and only on a miss the source of truth; a missing object or an unserved kind is undefined', async () => {
    const account = (name: string) =>
      ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'ns', uid: name } }) as KObject;
    // "fresh" was created a moment ago through another replica: not in this one's cache yet.
    const cached = new Map([['bot', account('bot')]]);
    const stored = new Map([
      ['bot', account('bot')],
      ['fresh', account('fresh')],
    ]);
    let consistentReads = 0;
    const store = {
      def: { namespaced: true },
      async get(_namespace: string, name: string, read?: ReadRevision): Promise<KObject> {
        if (read?.match !== 'any') consistentReads++;
        const found = (read?.match === 'any' ? cached : stored).get(name);
        if (!found) throw errors.notFound({ group: '', resource: 'serviceaccounts' }, name);
        return found;
      },
    };
    const registry = {
      byKind: (_group: string, kind: string) => (kind === 'ServiceAccount' ? store : undefined),
    } as unknown as Registry;
    const getter = registryObjectGetter(registry);
    expect(await getter.get('ServiceAccount', 'ns', 'bot')).to.equal(cached.get('bot'));
    expect(consistentReads, 'a cached account costs no consistent read').to.equal(0);
    expect(await getter.get('ServiceAccount', 'ns', 'fresh')).to.equal(stored.get('fresh'));
    expect(await getter.get('ServiceAccount', 'ns', 'gone')).to.equal(undefined);
    expect(consistentReads).to.equal(2);
    expect(await getter.get('Pod', 'ns', 'p')).to.equal(undefined);
  });
});
