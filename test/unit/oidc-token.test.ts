// The JWT token authenticator on its own, with the issuer's discovery document and key set served from memory: which
// tokens are not ours (null), and for ours the exact reason each kind of bad token is refused; claim and user rules;
// CEL mappings and their runtime type checks; discovery failures and their retry; reconfiguration.
import { expect } from 'chai';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { AuthenticationError } from '../../gateway/authn/authenticator.js';
import { compileAuthenticationConfig } from '../../gateway/authn/oidc/config-validation.js';
import type { JwtAuthenticatorConfig } from '../../gateway/authn/oidc/config.js';
import { createJwtTokenAuthenticator, type JwtTokenAuthenticator } from '../../gateway/authn/oidc/token.js';
import type { HttpsFetch } from '../../gateway/authn/oidc/fetch.js';

const ISSUER = 'https://idp.example.com';
const AUD = 'gatehouse';

interface Key {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function key(kid: string, alg: 'ES256' | 'RS256' = 'ES256'): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg } };
}

function jwt(overrides: Partial<JwtAuthenticatorConfig> = {}): JwtAuthenticatorConfig {
  return {
    issuer: { url: ISSUER, audiences: [AUD] },
    claimValidationRules: [],
    claimMappings: {
      username: { claim: 'sub', prefix: 'oidc:' },
      groups: { claim: 'groups', prefix: '' },
      uid: {},
      extra: [],
    },
    userValidationRules: [],
    ...overrides,
  };
}

describe('JWT token authenticator', () => {
  let signing: Key;
  let published: Key[];
  let discovery: { status: number; body: unknown };
  let fetches: string[];
  let clock: number;
  let logs: string[];

  const fakeFetch: HttpsFetch = async (url) => {
    fetches.push(url);
    if (url === `${ISSUER}/.well-known/openid-configuration` || url === 'https://elsewhere.example.com/discovery') {
      return new Response(JSON.stringify(discovery.body), { status: discovery.status });
    }
    if (url === `${ISSUER}/keys`)
      return new Response(JSON.stringify({ keys: published.map((k) => k.jwk) }), { status: 200 });
    return new Response('not found', { status: 404 });
  };

  const create = (
    configs: JwtAuthenticatorConfig[] = [jwt()],
    signingAlgs = ['ES256', 'RS256'],
  ): JwtTokenAuthenticator =>
    createJwtTokenAuthenticator(compileAuthenticationConfig({ jwt: configs }), {
      signingAlgs,
      log: (l) => logs.push(l),
      now: () => clock,
      fetchFor: () => fakeFetch,
      retryAfterMs: 1_000,
    });

  const mint = (claims: JWTPayload, k: Key = signing, header: Record<string, unknown> = {}): Promise<string> => {
    const iat = Math.floor(clock / 1000);
    return new SignJWT({ iss: ISSUER, aud: AUD, sub: 'alice', iat, exp: iat + 600, ...claims })
      .setProtectedHeader({ alg: k.alg, kid: k.kid, ...header })
      .sign(k.privateKey);
  };

  const reason = async (a: JwtTokenAuthenticator, token: string): Promise<string> => {
    try {
      await a.authenticateToken(token);
    } catch (e) {
      expect(e).to.be.instanceOf(AuthenticationError);
      expect((e as Error).message).to.not.include(token);
      return (e as Error).message;
    }
    throw new Error('token accepted');
  };

  beforeEach(async () => {
    signing = await key('k1');
    published = [signing];
    discovery = { status: 200, body: { issuer: ISSUER, jwks_uri: `${ISSUER}/keys` } };
    fetches = [];
    clock = Date.now();
    logs = [];
  });

  it('leaves tokens that are not JWTs, or come from other issuers, to other sources', async () => {
    const a = create();
    expect(await a.authenticateToken('abcdef.0123456789abcdef')).to.equal(null);
    expect(await a.authenticateToken('not-a-jwt')).to.equal(null);
    expect(await a.authenticateToken('a.b.c')).to.equal(null);
    expect(await a.authenticateToken(await mint({ iss: 'https://other.example.com' }))).to.equal(null);
    expect(await a.authenticateToken(await mint({ iss: 42 as unknown as string }))).to.equal(null);
  });

  it('maps a valid token: prefixed username, groups from an array or a string', async () => {
    const a = create();
    expect(await a.authenticateToken(await mint({ groups: ['a', 'b'] }))).to.deep.equal({
      user: { name: 'oidc:alice', groups: ['a', 'b'] },
    });
    expect((await a.authenticateToken(await mint({ groups: 'solo' })))!.user.groups).to.deep.equal(['solo']);
    expect((await a.authenticateToken(await mint({})))!.user.groups).to.deep.equal([]);
    expect(await reason(a, await mint({ groups: [1] }))).to.equal(
      'oidc: parse groups claim "groups": must be a string or an array of strings',
    );
  });

  it('refuses bad signatures, algorithms, audiences and times with the reason', async () => {
    const a = create([jwt()], ['ES256']);
    const forger = await key('k1');
    expect(await reason(a, await mint({}, forger))).to.equal('oidc: verify token: signature verification failed');
    const rsa = await key('k2', 'RS256');
    published.push(rsa);
    expect(await reason(a, await mint({}, rsa))).to.match(/^oidc: verify token: .*"alg"/);
    expect(await reason(a, await mint({ aud: 'other' }))).to.match(/^oidc: verify token: aud claim check failed/);
    expect(await reason(a, await mint({ exp: Math.floor(clock / 1000) - 1 }))).to.equal(
      'oidc: verify token: token is expired',
    );
    expect(await reason(a, await mint({ exp: undefined }))).to.match(/^oidc: verify token: exp claim check failed/);
    expect(await reason(a, await mint({ nbf: Math.floor(clock / 1000) + 301 }))).to.match(
      /^oidc: verify token: nbf claim check failed/,
    );
    expect(await a.authenticateToken(await mint({ nbf: Math.floor(clock / 1000) + 299 }))).to.not.equal(null);
    expect(await reason(a, await mint({ sub: undefined }))).to.equal(
      'oidc: parse username claim "sub": claim not present',
    );
    expect(await reason(a, await mint({ sub: 7 as unknown as string }))).to.equal(
      'oidc: parse username claim "sub": cannot unmarshal number into a string',
    );
  });

  it('checks required claims and email verification', async () => {
    const a = create([
      jwt({
        claimValidationRules: [{ claim: 'tenant', requiredValue: 'acme' }],
        claimMappings: { username: { claim: 'email', prefix: '' }, groups: {}, uid: { claim: 'sub' }, extra: [] },
      }),
    ]);
    expect(await a.authenticateToken(await mint({ email: 'a@x', tenant: 'acme' }))).to.deep.equal({
      user: { name: 'a@x', uid: 'alice', groups: [] },
    });
    expect(await reason(a, await mint({ email: 'a@x' }))).to.equal(
      'oidc: required claim tenant not present in ID token',
    );
    expect(await reason(a, await mint({ email: 'a@x', tenant: 'globex' }))).to.equal(
      'oidc: required claim tenant value does not match',
    );
    expect(await reason(a, await mint({ email: 'a@x', tenant: ['acme'] }))).to.equal(
      'oidc: parse claim tenant: cannot unmarshal array into a string',
    );
    expect(await reason(a, await mint({ email: 'a@x', tenant: 'acme', email_verified: false }))).to.equal(
      'oidc: email not verified',
    );
    expect(await reason(a, await mint({ email: 'a@x', tenant: 'acme', email_verified: 'yes' }))).to.match(
      /^oidc: parse 'email_verified' claim/,
    );
  });

  it('evaluates CEL mappings and rules, checking result types at run time', async () => {
    const a = create([
      jwt({
        claimValidationRules: [{ expression: 'claims.tenant == "acme"', message: 'tenant must be acme' }],
        claimMappings: {
          username: { expression: 'claims.name' },
          groups: { expression: 'claims.roles' },
          uid: { expression: 'claims.id' },
          extra: [
            { key: 'example.com/a', valueExpression: 'claims.x' },
            { key: 'example.com/b', valueExpression: 'claims.y' },
          ],
        },
        userValidationRules: [{ expression: '!("banned" in user.groups)', message: 'banned' }],
      }),
    ]);
    const base = { tenant: 'acme', name: 'Alice', roles: ['r1'], id: 'u-1', x: 'one', y: ['two', 'three'] };
    expect(await a.authenticateToken(await mint(base))).to.deep.equal({
      user: {
        name: 'Alice',
        uid: 'u-1',
        groups: ['r1'],
        extra: { 'example.com/a': ['one'], 'example.com/b': ['two', 'three'] },
      },
    });
    expect((await a.authenticateToken(await mint({ ...base, x: '', y: null, roles: 'solo' })))!.user).to.deep.equal({
      name: 'Alice',
      uid: 'u-1',
      groups: ['solo'],
    });
    expect(await reason(a, await mint({ ...base, tenant: 'globex' }))).to.equal(
      'oidc: error evaluating claim validation expression: validation expression claims.tenant == "acme" failed: tenant must be acme',
    );
    expect(await reason(a, await mint({ ...base, roles: ['banned'] }))).to.equal(
      'oidc: error evaluating user info validation rule: validation expression !("banned" in user.groups) failed: banned',
    );
    expect(await reason(a, await mint({ ...base, name: 5 }))).to.equal(
      'oidc: error evaluating username claim expression: username claim expression must return a string',
    );
    expect(await reason(a, await mint({ ...base, name: '' }))).to.equal(
      'oidc: empty username via CEL expression is not allowed',
    );
    expect(await reason(a, await mint({ ...base, id: false }))).to.equal(
      'oidc: error evaluating uid claim expression: uid claim expression must return a string',
    );
    expect(await reason(a, await mint({ ...base, roles: [1, 2] }))).to.equal(
      'oidc: error evaluating group claim expression: expression must return a string or a list of strings',
    );
    expect(await reason(a, await mint({ ...base, y: { no: 1 } }))).to.match(
      /^oidc: error evaluating extra claim expression for key example.com\/b/,
    );
    expect(await reason(a, await mint({ ...base, tenant: undefined }))).to.match(
      /^oidc: error evaluating claim validation expression: /,
    );
  });

  it('refuses tokens while discovery fails, retries after the interval, and checks the discovered issuer', async () => {
    discovery = { status: 500, body: {} };
    const a = create();
    const token = await mint({});
    expect(await reason(a, token)).to.match(
      /^oidc: authenticator for issuer https:\/\/idp\.example\.com not initialized: discovery at .* failed: 500/,
    );
    const attempts = fetches.length;
    discovery = { status: 200, body: { issuer: ISSUER, jwks_uri: `${ISSUER}/keys` } };
    // Inside the retry interval the failure is answered without contacting the issuer again.
    await reason(a, token);
    expect(fetches.length).to.equal(attempts);
    clock += 1_001;
    expect(await a.authenticateToken(await mint({}))).to.not.equal(null);

    discovery = { status: 200, body: { issuer: 'https://impostor.example.com', jwks_uri: `${ISSUER}/keys` } };
    const b = create();
    expect(await reason(b, await mint({}))).to.include(
      'oidc: issuer did not match the issuer returned by provider, expected "https://idp.example.com" got "https://impostor.example.com"',
    );
    // With an explicit discoveryURL the document's issuer may differ (upstream's InsecureIssuerURLContext).
    const c = create([
      jwt({ issuer: { url: ISSUER, discoveryURL: 'https://elsewhere.example.com/discovery', audiences: [AUD] } }),
    ]);
    expect(await c.authenticateToken(await mint({}))).to.not.equal(null);
  });

  it('fetches the key set again for an unknown kid, at most once per cool-down', async () => {
    const keysFetched = () => fetches.filter((f) => f.endsWith('/keys')).length;
    const compiled = compileAuthenticationConfig({ jwt: [jwt()] });
    const options = {
      signingAlgs: ['ES256'],
      log: (l: string) => logs.push(l),
      now: () => clock,
      fetchFor: () => fakeFetch,
    };
    const eager = createJwtTokenAuthenticator(compiled, { ...options, unknownKeyCooldownMs: 0 });
    const patient = createJwtTokenAuthenticator(compiled, options);
    await eager.authenticateToken(await mint({}));
    await patient.authenticateToken(await mint({}));
    const rotated = await key('k2');
    published = [rotated];
    const before = keysFetched();
    expect(await eager.authenticateToken(await mint({}, rotated))).to.not.equal(null);
    expect(keysFetched()).to.equal(before + 1);
    // Within the default one-second cool-down an unknown kid is refused without asking the issuer.
    expect(await reason(patient, await mint({}, rotated))).to.match(/^oidc: verify token: no applicable key found/);
    expect(keysFetched()).to.equal(before + 1);
  });

  it('takes a new configuration on update, keeping the keys of unchanged issuers', async () => {
    const a = create();
    await a.authenticateToken(await mint({}));
    const discoveries = fetches.filter((f) => f.includes('openid-configuration')).length;
    a.update(
      compileAuthenticationConfig({
        jwt: [jwt({ claimMappings: { username: { claim: 'sub', prefix: 'v2:' }, groups: {}, uid: {}, extra: [] } })],
      }),
    );
    expect((await a.authenticateToken(await mint({})))!.user.name).to.equal('v2:alice');
    expect(fetches.filter((f) => f.includes('openid-configuration')).length).to.equal(discoveries);
    a.update([]);
    expect(await a.authenticateToken(await mint({}))).to.equal(null);
  });

  describe('accepted tokens', () => {
    // jose checks signatures through WebCrypto: counting its verify calls counts signature checks.
    const subtle = globalThis.crypto.subtle;
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called through apply and put back
    const realVerify = subtle.verify;
    let signatureChecks: number;
    beforeEach(() => {
      signatureChecks = 0;
      subtle.verify = function countedVerify(this: typeof subtle, ...args: Parameters<typeof realVerify>) {
        signatureChecks++;
        return realVerify.apply(this, args);
      };
    });
    afterEach(() => {
      subtle.verify = realVerify;
    });

    it("checks a token's signature once, and the time rules on every request", async () => {
      const a = create();
      const token = await mint({ groups: ['g'], exp: Math.floor(clock / 1000) + 60 });
      for (let i = 0; i < 3; i++)
        expect(await a.authenticateToken(token)).to.deep.equal({ user: { name: 'oidc:alice', groups: ['g'] } });
      expect(signatureChecks).to.equal(1);
      clock += 61_000;
      expect(await reason(a, token)).to.equal('oidc: verify token: token is expired');
    });

    it('hands out a copy of the user, so that no request changes what the next one gets', async () => {
      const a = create();
      const token = await mint({ groups: ['g'] });
      (await a.authenticateToken(token))!.user.groups.push('system:masters');
      expect((await a.authenticateToken(token))!.user.groups).to.deep.equal(['g']);
    });

    it("checks a token again once its key left the issuer's key set, or the set was fetched again", async () => {
      const a = createJwtTokenAuthenticator(compileAuthenticationConfig({ jwt: [jwt()] }), {
        signingAlgs: ['ES256'],
        log: (l) => logs.push(l),
        now: () => clock,
        fetchFor: () => fakeFetch,
        unknownKeyCooldownMs: 0,
      });
      const old = await mint({});
      expect(await a.authenticateToken(old)).to.not.equal(null);
      // A token signed with a new key makes the authenticator fetch the set again: it still holds the old key.
      const next = await key('k2');
      published = [signing, next];
      expect(await a.authenticateToken(await mint({}, next))).to.not.equal(null);
      const checks = signatureChecks;
      expect(await a.authenticateToken(old)).to.not.equal(null);
      expect(signatureChecks, 'checked once against the fetched set').to.equal(checks + 1);
      expect(await a.authenticateToken(old)).to.not.equal(null);
      expect(signatureChecks).to.equal(checks + 1);
      // The issuer withdraws the old key; the next fetch (another new key) makes the old token unacceptable.
      published = [next, await key('k3')];
      expect(await a.authenticateToken(await mint({}, published[1]))).to.not.equal(null);
      expect(await reason(a, old)).to.match(/^oidc: verify token: no applicable key found/);
    });

    it('maps a kept token with the configuration in force', async () => {
      const a = create();
      const token = await mint({});
      expect((await a.authenticateToken(token))!.user.name).to.equal('oidc:alice');
      a.update(
        compileAuthenticationConfig({
          jwt: [jwt({ claimMappings: { username: { claim: 'sub', prefix: 'v2:' }, groups: {}, uid: {}, extra: [] } })],
        }),
      );
      expect((await a.authenticateToken(token))!.user.name).to.equal('v2:alice');
      a.update([]);
      expect(await a.authenticateToken(token)).to.equal(null);
    });

    it('keeps a bounded number of tokens, the oldest going first, and none that was refused', async () => {
      const a = createJwtTokenAuthenticator(
        compileAuthenticationConfig({
          jwt: [jwt({ userValidationRules: [{ expression: '!("banned" in user.groups)', message: 'banned' }] })],
        }),
        {
          signingAlgs: ['ES256'],
          log: (l) => logs.push(l),
          now: () => clock,
          fetchFor: () => fakeFetch,
          acceptedTokensKept: 2,
        },
      );
      const [first, second, third] = await Promise.all([mint({ sub: 'a' }), mint({ sub: 'b' }), mint({ sub: 'c' })]);
      for (const token of [first, second, third]) await a.authenticateToken(token);
      const checks = signatureChecks;
      await a.authenticateToken(third);
      await a.authenticateToken(second);
      expect(signatureChecks).to.equal(checks);
      await a.authenticateToken(first);
      expect(signatureChecks).to.equal(checks + 1);
      const banned = await mint({ groups: ['banned'] });
      for (let i = 0; i < 2; i++) expect(await reason(a, banned)).to.match(/failed: banned$/);
      expect(signatureChecks).to.equal(checks + 3);
    });
  });
});
