// Bootstrap token authentication over real HTTPS: tokens are Secrets created
// through the API; the identity is read back with a SelfSubjectReview; every invalid variant is a 401; without
// --enable-bootstrap-token-auth a valid token is a 401 too.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { expectFailure } from '../helpers/api.js';
import { createKubectl } from '../helpers/kubectl.js';
import { createTokenSecret, newToken, type TestToken } from '../helpers/bootstrap-tokens.js';

const SSR_PATH = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
describe('bootstrap token authentication', function () {
  this.timeout(60_000);

  describe('with --enable-bootstrap-token-auth', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--enable-bootstrap-token-auth', '--storage-backend', 'memory']);
    });
    after(async () => {
      await gh?.close();
    });

    const whoami = (token: string) => gh.request('POST', SSR_PATH, { body: SSR, token });

    it('authenticates a valid token as system:bootstrap:<id> with its groups', async () => {
      const t = newToken();
      const future = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
      const created = await createTokenSecret(gh, t, {
        'usage-bootstrap-authentication': 'true',
        expiration: future,
        'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token',
      });
      // Stored as base64 in data, as every Secret value.
      expect(Buffer.from(created.data['token-secret'], 'base64').toString()).to.equal(t.secret);
      const res = await whoami(t.token);
      expect(res.status, res.body).to.equal(201);
      const info = res.json().status.userInfo;
      expect(info.username).to.equal(`system:bootstrap:${t.id}`);
      expect(info.groups).to.have.members([
        'system:bootstrappers',
        'system:bootstrappers:kubeadm:default-node-token',
        'system:authenticated',
      ]);
    });

    const invalid: [string, (t: TestToken) => Promise<string>][] = [
      [
        'a wrong secret',
        async (t) => {
          await createTokenSecret(gh, t, { 'usage-bootstrap-authentication': 'true' });
          return `${t.id}.${t.secret.split('').reverse().join('')}`;
        },
      ],
      [
        'an expired token',
        async (t) => {
          await createTokenSecret(gh, t, {
            'usage-bootstrap-authentication': 'true',
            expiration: '2020-01-01T00:00:00Z',
          });
          return t.token;
        },
      ],
      [
        'usage-bootstrap-authentication not "true"',
        async (t) => {
          await createTokenSecret(gh, t, {
            'usage-bootstrap-authentication': 'false',
            'usage-bootstrap-signing': 'true',
          });
          return t.token;
        },
      ],
      [
        'an invalid extra group',
        async (t) => {
          await createTokenSecret(gh, t, {
            'usage-bootstrap-authentication': 'true',
            'auth-extra-groups': 'system:bootstrappers:ok,system:masters',
          });
          return t.token;
        },
      ],
      [
        'a Secret in another namespace',
        async (t) => {
          await createTokenSecret(gh, t, { 'usage-bootstrap-authentication': 'true' }, { namespace: 'default' });
          return t.token;
        },
      ],
      [
        'a Secret of another type',
        async (t) => {
          await createTokenSecret(gh, t, { 'usage-bootstrap-authentication': 'true' }, { type: 'Opaque' });
          return t.token;
        },
      ],
      ['no Secret at all', async (t) => t.token],
    ];
    for (const [what, setup] of invalid) {
      it(`answers 401 for ${what}`, async () => {
        const token = await setup(newToken());
        expectFailure(await whoami(token), 401, 'Unauthorized');
      });
    }

    it('works with the stock kubectl: a token Secret from a manifest, then `auth whoami --token`', async () => {
      const t = newToken();
      const k = await createKubectl(gh.kubeconfigPath);
      try {
        const manifest = await k.manifest(
          'token.yaml',
          [
            'apiVersion: v1',
            'kind: Secret',
            'type: bootstrap.platform.io/token',
            `metadata: {name: bootstrap-token-${t.id}, namespace: platform-system}`,
            'stringData:',
            `  token-id: "${t.id}"`,
            `  token-secret: "${t.secret}"`,
            '  usage-bootstrap-authentication: "true"',
            '  auth-extra-groups: "system:bootstrappers:kubectl"',
            '',
          ].join('\n'),
        );
        await k.ok(['create', '-f', manifest]);
        const r = JSON.parse(await k.ok(['auth', 'whoami', '--token', t.token, '-o', 'json']));
        expect(r.status.userInfo.username).to.equal(`system:bootstrap:${t.id}`);
        expect(r.status.userInfo.groups).to.have.members([
          'system:bootstrappers',
          'system:bootstrappers:kubectl',
          'system:authenticated',
        ]);
        const refused = await k.run(['auth', 'whoami', '--token', `${t.id}.${'0'.repeat(16)}`]);
        expect(refused.code).to.not.equal(0);
        expect(refused.stderr).to.match(/Unauthorized/i);
      } finally {
        await k.cleanup();
      }
    });

    it('logs no token secret', async () => {
      const t = newToken();
      await createTokenSecret(gh, t, { 'usage-bootstrap-authentication': 'true' });
      expect((await whoami(t.token)).status).to.equal(201);
      expectFailure(await whoami(`${t.id}.${'x'.repeat(16)}`), 401, 'Unauthorized');
      expect(gh.logs.join('\n')).to.not.contain(t.secret);
    });
  });

  describe('without the flag', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory']);
    });
    after(async () => {
      await gh?.close();
    });

    it('answers 401 for a token whose Secret is valid', async () => {
      const t = newToken();
      await createTokenSecret(gh, t, { 'usage-bootstrap-authentication': 'true' });
      expectFailure(await gh.request('POST', SSR_PATH, { body: SSR, token: t.token }), 401, 'Unauthorized');
    });
  });
});
