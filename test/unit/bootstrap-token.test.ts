// Bootstrap token rules without a server: token format, the Secret's keys as the authenticator judges them, the
// expiration and group rules, and the detached JWS the signer writes (checked against an independent HMAC).
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import { compactVerify } from 'jose';
import { errors } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import {
  parseBootstrapToken,
  parseRFC3339,
  signingToken,
  tokenExpiration,
  tokenGroups,
} from '../../api/core/v1/bootstrap-token.js';
import { createBootstrapTokenAuthenticator } from '../../gateway/authn/bootstrap-token.js';
import { computeDetachedSignature } from '../../gateway/controllers/bootstrap-signer.js';

const ID = 'abcdef';
const SECRET = '0123456789abcdef';
const TOKEN = `${ID}.${SECRET}`;
const NOW = Date.parse('2030-01-01T00:00:00Z');

function tokenSecret(data: Record<string, string>, overrides: Partial<KObject> = {}): KObject {
  const encoded = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'bootstrap.platform.io/token',
    metadata: { name: `bootstrap-token-${ID}`, namespace: 'platform-system' },
    data: encoded,
    ...overrides,
  };
}

const VALID = { 'token-id': ID, 'token-secret': SECRET, 'usage-bootstrap-authentication': 'true' };

function authenticatorFor(secret: KObject | undefined, log: string[] = []) {
  return createBootstrapTokenAuthenticator(
    {
      async get(namespace, name) {
        if (!secret || namespace !== secret.metadata.namespace || name !== secret.metadata.name) {
          throw errors.notFound({ group: '', resource: 'secrets' }, name);
        }
        return secret;
      },
    },
    { now: () => NOW, log: (l) => log.push(l) },
  );
}

describe('bootstrap tokens', () => {
  describe('format', () => {
    it('accepts exactly [a-z0-9]{6}.[a-z0-9]{16}', () => {
      expect(parseBootstrapToken(TOKEN)).to.deep.equal({ id: ID, secret: SECRET });
      for (const bad of [
        'ABCDEF.0123456789abcdef',
        'abcde.0123456789abcdef',
        'abcdef.0123456789abcde',
        'abcdef:0123456789abcdef',
        `${TOKEN}x`,
        ` ${TOKEN}`,
      ]) {
        expect(parseBootstrapToken(bad), bad).to.equal(null);
      }
    });

    it('parses RFC 3339 strictly, as Go does', () => {
      expect(parseRFC3339('2030-01-01T00:00:00Z')).to.equal(NOW);
      expect(parseRFC3339('2030-01-01T01:00:00.5+01:00')).to.equal(NOW + 500);
      for (const bad of [
        '2030-01-01',
        '2030-01-01 00:00:00Z',
        '2030-02-30T00:00:00Z',
        '2030-01-01T00:00:60Z',
        'tomorrow',
      ]) {
        expect(parseRFC3339(bad), bad).to.be.NaN;
      }
    });
  });

  describe('expiration and groups', () => {
    it('never expires without the key, expires at the time, and treats garbage as expired', () => {
      expect(tokenExpiration(tokenSecret(VALID), NOW)).to.deep.equal({ expired: false });
      expect(tokenExpiration(tokenSecret({ ...VALID, expiration: '2030-01-01T00:00:01Z' }), NOW)).to.deep.equal({
        expired: false,
        at: NOW + 1000,
      });
      expect(tokenExpiration(tokenSecret({ ...VALID, expiration: '2030-01-01T00:00:00Z' }), NOW).expired).to.equal(
        true,
      );
      expect(tokenExpiration(tokenSecret({ ...VALID, expiration: 'soon' }), NOW).expired).to.equal(true);
    });

    it('adds valid extra groups sorted and deduplicated; any invalid one invalidates all', () => {
      expect(tokenGroups(tokenSecret(VALID))).to.deep.equal(['system:bootstrappers']);
      expect(
        tokenGroups(
          tokenSecret({
            ...VALID,
            'auth-extra-groups': 'system:bootstrappers:z,system:bootstrappers:a:b-1,system:bootstrappers:z',
          }),
        ),
      ).to.deep.equal(['system:bootstrappers', 'system:bootstrappers:a:b-1', 'system:bootstrappers:z']);
      for (const bad of [
        'system:masters',
        'system:bootstrappers:',
        'system:bootstrappers:Upper',
        'system:bootstrappers:a, system:bootstrappers:b',
        'system:bootstrappers:a,',
      ]) {
        expect(tokenGroups(tokenSecret({ ...VALID, 'auth-extra-groups': bad })), bad).to.equal(null);
      }
    });

    it('signs only with signing tokens whose id agrees with the name, not expired', () => {
      const signing = { 'token-id': ID, 'token-secret': SECRET, 'usage-bootstrap-signing': 'true' };
      expect(signingToken(tokenSecret(signing), NOW)).to.deep.equal({ id: ID, secret: SECRET, expiresAt: undefined });
      expect(signingToken(tokenSecret({ ...signing, 'usage-bootstrap-signing': 'yes' }), NOW)).to.equal(null);
      expect(signingToken(tokenSecret({ ...signing, 'token-id': 'zzzzzz' }), NOW)).to.equal(null);
      expect(signingToken(tokenSecret({ ...signing, expiration: '2029-12-31T23:59:59Z' }), NOW)).to.equal(null);
      expect(signingToken(tokenSecret(signing, { type: 'Opaque' }), NOW)).to.equal(null);
    });
  });

  describe('authenticator', () => {
    it('maps a valid token to system:bootstrap:<id> in system:bootstrappers plus extra groups', async () => {
      const auth = authenticatorFor(tokenSecret({ ...VALID, 'auth-extra-groups': 'system:bootstrappers:workers' }));
      expect(await auth.authenticateToken(TOKEN)).to.deep.equal({
        user: { name: `system:bootstrap:${ID}`, groups: ['system:bootstrappers', 'system:bootstrappers:workers'] },
      });
    });

    it('answers "not mine" (null) for every invalid case, so the bearer chain decides 401', async () => {
      const cases: [string, KObject | undefined, string?][] = [
        ['other format', tokenSecret(VALID), 'not-a-bootstrap-token'],
        ['no Secret', undefined],
        ['wrong secret', tokenSecret(VALID), `${ID}.ffffffffffffffff`],
        ['secret of another length stored', tokenSecret({ ...VALID, 'token-secret': `${SECRET}0` })],
        ['token-id disagrees', tokenSecret({ ...VALID, 'token-id': 'zzzzzz' })],
        ['expired', tokenSecret({ ...VALID, expiration: '2029-12-31T23:59:59Z' })],
        ['unparseable expiration', tokenSecret({ ...VALID, expiration: 'never' })],
        ['usage missing', tokenSecret({ 'token-id': ID, 'token-secret': SECRET })],
        ['usage not "true"', tokenSecret({ ...VALID, 'usage-bootstrap-authentication': 'True' })],
        ['bad extra group', tokenSecret({ ...VALID, 'auth-extra-groups': 'system:masters' })],
        ['wrong type', tokenSecret(VALID, { type: 'Opaque' })],
        ['wrong namespace', tokenSecret(VALID, { metadata: { name: `bootstrap-token-${ID}`, namespace: 'default' } })],
        [
          'being deleted',
          tokenSecret(VALID, {
            metadata: {
              name: `bootstrap-token-${ID}`,
              namespace: 'platform-system',
              deletionTimestamp: '2029-01-01T00:00:00Z',
            },
          }),
        ],
      ];
      for (const [what, secret, token] of cases) {
        expect(await authenticatorFor(secret).authenticateToken(token ?? TOKEN), what).to.equal(null);
      }
      expect(
        await authenticatorFor(tokenSecret({ ...VALID, expiration: '2030-01-01T00:00:01Z' })).authenticateToken(TOKEN),
      ).to.not.equal(null);
    });

    it('logs a failed lookup by Secret name, never the token secret', async () => {
      const log: string[] = [];
      const auth = createBootstrapTokenAuthenticator(
        {
          get: async () => {
            throw new Error('storage down');
          },
        },
        { log: (l) => log.push(l) },
      );
      expect(await auth.authenticateToken(TOKEN)).to.equal(null);
      expect(log).to.have.length(1);
      expect(log[0]).to.contain(`platform-system/bootstrap-token-${ID}`);
      expect(log.join('\n')).to.not.contain(SECRET);
    });
  });

  describe('detached signature', () => {
    it('is header..signature with {"alg":"HS256","kid":<id>}, HMAC-SHA256 keyed with the full token', async () => {
      const content = 'apiVersion: v1\nkind: Config\n';
      const sig = await computeDetachedSignature(content, ID, SECRET);
      const [header, payload, signature] = sig.split('.');
      expect(payload).to.equal('');
      expect(Buffer.from(header, 'base64url').toString()).to.equal(`{"alg":"HS256","kid":"${ID}"}`);
      const input = `${header}.${Buffer.from(content).toString('base64url')}`;
      expect(signature).to.equal(createHmac('sha256', TOKEN).update(input).digest('base64url'));
      const verified = await compactVerify(
        `${header}.${Buffer.from(content).toString('base64url')}.${signature}`,
        new TextEncoder().encode(TOKEN),
      );
      expect(new TextDecoder().decode(verified.payload)).to.equal(content);
    });
  });
});
