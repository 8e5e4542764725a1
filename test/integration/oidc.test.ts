// OpenID Connect ID tokens against a real local HTTPS issuer: Gatehouse started
// with the --oidc-* flags and, separately, with an AuthenticationConfiguration file; identities read back through
// SelfSubjectReview; every way a token of ours can be wrong is a 401; key rotation, an issuer that is down at start,
// configuration reload, and the stock kubectl with an ID token in its kubeconfig.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createTestIssuer, type TestIssuer } from '../helpers/oidc-issuer.js';
import { createKubectl } from '../helpers/kubectl.js';
import { eventually, expectFailure } from '../helpers/api.js';
import { renderKubeconfig } from '../../gateway/server/kubeconfig.js';

const SSR_PATH = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const CLIENT_ID = 'gatehouse';

async function whoami(gh: TestGatehouse, token: string): Promise<any> {
  const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token, timeoutMs: 15_000 });
  expect(res.status, res.body).to.equal(201);
  return res.json().status.userInfo;
}

async function expectRejected(gh: TestGatehouse, token: string): Promise<void> {
  const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token, timeoutMs: 15_000 });
  expectFailure(res, 401, 'Unauthorized');
}

const now = (): number => Math.floor(Date.now() / 1000);

describe('OIDC ID tokens', function () {
  this.timeout(60_000);
  let issuer: TestIssuer;
  let dir: string;

  before(async () => {
    issuer = await createTestIssuer();
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-oidc-test-'));
  });
  after(async () => {
    await issuer?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('configured with --oidc-* flags', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse([
        `--oidc-issuer-url=${issuer.url}`,
        `--oidc-client-id=${CLIENT_ID}`,
        `--oidc-ca-file=${issuer.caFile}`,
        '--oidc-groups-claim=groups',
        '--oidc-groups-prefix=oidc:',
        '--oidc-required-claim=tenant=acme',
      ]);
    });
    after(async () => gh?.close());

    const valid = (claims: Record<string, unknown> = {}) =>
      issuer.mint({ sub: 'alice', aud: CLIENT_ID, tenant: 'acme', groups: ['dev', 'ops'], ...claims });

    it('authenticates a valid ID token: username prefixed with the issuer URL, groups with the groups prefix', async () => {
      const user = await whoami(gh, await valid());
      expect(user.username).to.equal(`${issuer.url}#alice`);
      expect(user.groups).to.deep.equal(['oidc:dev', 'oidc:ops', 'system:authenticated']);
      expect(user).to.not.have.property('uid');
    });

    it('takes a groups claim holding a single string as one group, and a token without groups as none', async () => {
      expect((await whoami(gh, await valid({ groups: 'admins' }))).groups).to.deep.equal([
        'oidc:admins',
        'system:authenticated',
      ]);
      expect((await whoami(gh, await valid({ groups: undefined }))).groups).to.deep.equal(['system:authenticated']);
    });

    it('accepts an audience list that contains the client id', async () => {
      expect((await whoami(gh, await valid({ aud: ['other', CLIENT_ID] }))).username).to.equal(`${issuer.url}#alice`);
    });

    it('refuses an expired token, one without exp, and one not yet valid beyond the 5 minute leeway', async () => {
      await expectRejected(gh, await valid({ exp: now() - 5 }));
      await expectRejected(
        gh,
        await issuer.mint({ sub: 'alice', aud: CLIENT_ID, tenant: 'acme' }, { expiresIn: null }),
      );
      await expectRejected(gh, await valid({ nbf: now() + 600 }));
      // Inside the leeway a slightly fast issuer clock is tolerated, as go-oidc does.
      expect((await whoami(gh, await valid({ nbf: now() + 60 }))).username).to.equal(`${issuer.url}#alice`);
    });

    it('refuses a token for another audience', async () => {
      await expectRejected(gh, await valid({ aud: 'someone-else' }));
    });

    it('refuses a token of an issuer it does not know (no other source accepts it)', async () => {
      await expectRejected(gh, await valid({ iss: 'https://elsewhere.example.com' }));
    });

    it('refuses a token signed with a key the issuer never published, even under a published kid', async () => {
      const forger = await issuer.foreignKey();
      await expectRejected(
        gh,
        await issuer.mint(
          { sub: 'alice', aud: CLIENT_ID, tenant: 'acme' },
          { key: forger, kid: issuer.currentKey.kid },
        ),
      );
      await expectRejected(gh, await issuer.mint({ sub: 'alice', aud: CLIENT_ID, tenant: 'acme' }, { key: forger }));
    });

    it('refuses a token whose required claim is missing or different', async () => {
      await expectRejected(gh, await valid({ tenant: 'globex' }));
      await expectRejected(gh, await valid({ tenant: undefined }));
    });

    it('refuses an algorithm outside --oidc-signing-algs (default RS256) even when the key is published', async () => {
      const ecKey = await issuer.foreignKey('ES256');
      issuer.publish(ecKey);
      await expectRejected(gh, await issuer.mint({ sub: 'alice', aud: CLIENT_ID, tenant: 'acme' }, { key: ecKey }));
    });

    it('refuses a token without a username claim and a malformed JWT', async () => {
      await expectRejected(gh, await issuer.mint({ aud: CLIENT_ID, tenant: 'acme' }));
      const [header, , signature] = (await valid()).split('.');
      await expectRejected(
        gh,
        `${header}.${Buffer.from(JSON.stringify({ iss: issuer.url })).toString('base64url')}.${signature}`,
      );
    });

    it('caches the key set: known keys verify without asking the issuer again', async () => {
      await whoami(gh, await valid());
      const fetched = { ...issuer.requests };
      for (let i = 0; i < 5; i++) await whoami(gh, await valid({ sub: `user-${i}` }));
      await expectRejected(gh, await valid({ aud: 'someone-else' }));
      expect(issuer.requests).to.deep.equal(fetched);
    });

    it('picks up a rotated key: a token naming a new kid makes it fetch the key set again', async () => {
      const before = issuer.requests.jwks;
      await issuer.rotate();
      const token = await valid();
      // The key set is fetched again at most once a second, so the first attempt may come inside that window.
      const user = await eventually('rotated key accepted', async () => {
        const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token });
        return res.status === 201 ? res.json().status.userInfo : undefined;
      });
      expect(user.username).to.equal(`${issuer.url}#alice`);
      expect(issuer.requests.jwks).to.be.greaterThan(before);
    });

    it('serves the stock kubectl carrying the ID token in its kubeconfig', async () => {
      const kubeconfig = path.join(dir, 'oidc.kubeconfig');
      await writeFile(kubeconfig, renderKubeconfig({ server: gh.url, caPem: gh.ca, token: await valid() }), {
        mode: 0o600,
      });
      const kubectl = await createKubectl(kubeconfig);
      try {
        const out = JSON.parse(await kubectl.ok(['auth', 'whoami', '-o', 'json']));
        expect(out.status.userInfo.username).to.equal(`${issuer.url}#alice`);
        expect(out.status.userInfo.groups).to.include('oidc:dev');
        // With the default AlwaysAllow authorizer the ID-token user can list namespaces.
        expect(await kubectl.ok(['get', 'ns', '-o', 'name'])).to.match(/namespace\/default/);
      } finally {
        await kubectl.cleanup();
      }
    });
  });

  describe('username claim email', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse([
        `--oidc-issuer-url=${issuer.url}`,
        `--oidc-client-id=${CLIENT_ID}`,
        `--oidc-ca-file=${issuer.caFile}`,
        '--oidc-username-claim=email',
      ]);
    });
    after(async () => gh?.close());

    it('uses the email unprefixed, and refuses it when email_verified is false', async () => {
      const token = await issuer.mint({ sub: 'x', aud: CLIENT_ID, email: 'alice@example.com', email_verified: true });
      expect((await whoami(gh, token)).username).to.equal('alice@example.com');
      await expectRejected(
        gh,
        await issuer.mint({ sub: 'x', aud: CLIENT_ID, email: 'alice@example.com', email_verified: false }),
      );
    });
  });

  describe('configured with --authentication-config', () => {
    let gh: TestGatehouse;
    let second: TestIssuer;
    let configFile: string;

    const configDoc = (tenant: string): unknown => ({
      apiVersion: 'apiserver.config.platform.io/v1beta1',
      kind: 'AuthenticationConfiguration',
      jwt: [
        {
          issuer: {
            url: issuer.url,
            certificateAuthority: issuer.caPem,
            audiences: [CLIENT_ID, 'other'],
            audienceMatchPolicy: 'MatchAny',
          },
          claimValidationRules: [{ expression: `claims.tenant == "${tenant}"`, message: 'wrong tenant' }],
          claimMappings: {
            username: { expression: '"oidc:" + claims.sub' },
            groups: { expression: 'has(claims.roles) ? claims.roles.map(r, "role:" + r) : []' },
            uid: { expression: '"uid-" + claims.sub' },
            extra: [
              { key: 'example.com/tenant', valueExpression: 'claims.tenant' },
              { key: 'example.com/empty', valueExpression: '[]' },
            ],
          },
          userValidationRules: [
            { expression: '!user.username.startsWith("oidc:blocked")', message: 'blocked users may not sign in' },
          ],
        },
        {
          issuer: {
            url: second.url,
            discoveryURL: `${second.url}/.well-known/openid-configuration`,
            certificateAuthority: second.caPem,
            audiences: ['second-client'],
          },
          claimMappings: { username: { claim: 'sub', prefix: 'second:' }, groups: { claim: 'groups', prefix: '' } },
        },
      ],
    });

    before(async () => {
      second = await createTestIssuer({ path: '/tenant-b' });
      configFile = path.join(dir, 'authn.yaml');
      await writeFile(configFile, yaml.dump(configDoc('acme')));
      gh = await startTestGatehouse([`--authentication-config=${configFile}`]);
    });
    after(async () => {
      await gh?.close();
      await second?.close();
    });

    const token = (claims: Record<string, unknown> = {}) =>
      issuer.mint({ sub: 'alice', aud: CLIENT_ID, tenant: 'acme', roles: ['viewer'], ...claims });

    it('maps claims with CEL: username, groups, uid and extra', async () => {
      const user = await whoami(gh, await token());
      expect(user).to.deep.include({ username: 'oidc:alice', uid: 'uid-alice' });
      expect(user.groups).to.deep.equal(['role:viewer', 'system:authenticated']);
      // A mapping that yields no values adds no key.
      expect(user.extra).to.deep.equal({ 'example.com/tenant': ['acme'] });
    });

    it('accepts any listed audience and any supported algorithm', async () => {
      expect((await whoami(gh, await token({ aud: 'other' }))).username).to.equal('oidc:alice');
      const ecKey = await issuer.rotate({ keepOld: true, alg: 'ES256' });
      const es256 = await issuer.mint({ sub: 'eve', aud: CLIENT_ID, tenant: 'acme' }, { key: ecKey });
      // A new kid: the key set is fetched again once the one-second cool-down since the last fetch has passed.
      const user = await eventually('ES256 token accepted', async () => {
        const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token: es256 });
        return res.status === 201 ? res.json().status.userInfo : undefined;
      });
      expect(user.username).to.equal('oidc:eve');
    });

    it('refuses a token failing a claim validation rule or a user validation rule', async () => {
      await expectRejected(gh, await token({ tenant: 'globex' }));
      await expectRejected(gh, await token({ sub: 'blocked-bob' }));
      // A mapping that cannot be evaluated (missing claim) refuses the token too.
      await expectRejected(gh, await token({ tenant: undefined }));
    });

    it('serves a second issuer through its discoveryURL, with claim mappings', async () => {
      const t = await second.mint({ sub: 'carol', aud: 'second-client', groups: ['b1'] });
      const user = await whoami(gh, t);
      expect(user.username).to.equal('second:carol');
      expect(user.groups).to.deep.equal(['b1', 'system:authenticated']);
      // Audiences are per issuer.
      await expectRejected(gh, await second.mint({ sub: 'carol', aud: CLIENT_ID }));
    });

    it('reloads the file when it changes', async () => {
      await writeFile(configFile, yaml.dump(configDoc('globex')));
      const acme = await token();
      await eventually('reloaded rules refuse the old tenant', async () => {
        const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token: acme });
        return res.status === 401;
      });
      expect((await whoami(gh, await token({ tenant: 'globex' }))).username).to.equal('oidc:alice');
      // A file that no longer validates is refused and the running configuration stays.
      await writeFile(
        configFile,
        yaml.dump({
          ...(configDoc('acme') as object),
          jwt: [{ issuer: { url: 'http://insecure', audiences: ['x'] } }],
        }),
      );
      await eventually('invalid reload logged', async () =>
        gh.logs.some((l) => l.includes('failed to reload authentication config') && l.includes('jwt[0].issuer.url')),
      );
      expect((await whoami(gh, await token({ tenant: 'globex' }))).username).to.equal('oidc:alice');
    });
  });

  describe('start-up', () => {
    it('starts while the issuer is down, refuses its tokens meanwhile, accepts them once it is up and through a later outage', async () => {
      const late = await createTestIssuer();
      await late.stop();
      const gh = await startTestGatehouse([
        `--oidc-issuer-url=${late.url}`,
        `--oidc-client-id=${CLIENT_ID}`,
        `--oidc-ca-file=${late.caFile}`,
      ]);
      try {
        const t = await late.mint({ sub: 'dave', aud: CLIENT_ID });
        await expectRejected(gh, t);
        await late.start();
        const user = await eventually('issuer reachable again', async () => {
          const res = await gh.request('POST', SSR_PATH, { body: SSR_BODY, token: t });
          return res.status === 201 ? res.json().status.userInfo : undefined;
        });
        expect(user.username).to.equal(`${late.url}#dave`);
        // Once the keys are known, an issuer outage does not matter: tokens are checked without contacting it.
        await late.stop();
        expect((await whoami(gh, await late.mint({ sub: 'erin', aud: CLIENT_ID }))).username).to.equal(
          `${late.url}#erin`,
        );
      } finally {
        await gh.close();
        await late.close();
      }
    });

    it('verifies the issuer against the configured CA only: without --oidc-ca-file the test CA is not trusted', async () => {
      const gh = await startTestGatehouse([`--oidc-issuer-url=${issuer.url}`, `--oidc-client-id=${CLIENT_ID}`]);
      try {
        await expectRejected(gh, await issuer.mint({ sub: 'alice', aud: CLIENT_ID }));
        const line = await eventually('discovery failure logged', async () =>
          gh.logs.find((l) => l.includes('not initialized')),
        );
        expect(line).to.match(/certificate/i);
      } finally {
        await gh.close();
      }
    });

    it('refuses a configuration file that does not validate, naming the field', async () => {
      const file = path.join(dir, 'bad.yaml');
      await writeFile(
        file,
        yaml.dump({
          apiVersion: 'apiserver.config.platform.io/v1beta1',
          kind: 'AuthenticationConfiguration',
          jwt: [
            {
              issuer: { url: 'http://idp.example.com', audiences: ['a'] },
              claimMappings: { username: { claim: 'sub' } },
            },
          ],
        }),
      );
      const err = await startTestGatehouse([`--authentication-config=${file}`]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.equal(
        'invalid authentication configuration: [jwt[0].issuer.url: Invalid value: "http://idp.example.com": URL scheme must be https, ' +
          'jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is set. It can be set to an empty string to disable prefixing]',
      );
    });

    it('takes anonymous from the configuration file: only the listed paths, and never beside --anonymous-auth', async () => {
      const file = path.join(dir, 'anonymous.yaml');
      await writeFile(
        file,
        yaml.dump({
          apiVersion: 'apiserver.config.platform.io/v1',
          kind: 'AuthenticationConfiguration',
          anonymous: { enabled: true, conditions: [{ path: '/livez' }, { path: '/version' }] },
        }),
      );
      const gh = await startTestGatehouse([`--authentication-config=${file}`]);
      try {
        expect((await gh.request('GET', '/livez', { token: null })).status).to.equal(200);
        expect((await gh.request('GET', '/version?x=1', { token: null })).status).to.equal(200);
        expectFailure(await gh.request('GET', '/api/v1/namespaces', { token: null }), 401, 'Unauthorized');
        expect((await gh.request('GET', '/api/v1/namespaces')).status).to.equal(200);
      } finally {
        await gh.close();
      }
      const err = await startTestGatehouse([`--authentication-config=${file}`, '--anonymous-auth=true']).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.equal(
        'invalid authentication configuration: anonymous: Forbidden: --anonymous-auth flag cannot be set when anonymous field is configured in authentication configuration file',
      );
    });

    it('refuses a configuration file while StructuredAuthenticationConfiguration is off', async () => {
      const err = await startTestGatehouse([
        `--authentication-config=${path.join(dir, 'x.yaml')}`,
        '--feature-gates=StructuredAuthenticationConfiguration=false',
      ]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.equal(
        'set --feature-gates=StructuredAuthenticationConfiguration=true to use authentication-config file',
      );
    });

    it('refuses --authentication-config together with --oidc-* flags', async () => {
      const err = await startTestGatehouse([
        `--authentication-config=${path.join(dir, 'x.yaml')}`,
        `--oidc-issuer-url=${issuer.url}`,
      ]).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).to.equal('authentication-config file and oidc-* flags are mutually exclusive');
    });
  });
});
