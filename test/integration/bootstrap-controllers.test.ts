// The token cleaner and the bootstrap signer over real HTTPS: expired token Secrets
// are deleted (awaited as DELETED watch events); cluster-info is published for anonymous readers and carries one
// detached JWS per signing token, verified the way a joining client does, that follows the tokens as they come,
// change, go and expire.
import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { compactVerify, decodeProtectedHeader } from 'jose';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { MERGE, eventually } from '../helpers/api.js';
import { openWatch, type OpenWatch, type WatchEventJSON } from '../helpers/watch-client.js';
import { createTokenSecret, newToken, type TestToken } from '../helpers/bootstrap-tokens.js';

const SECRETS = '/api/v1/namespaces/platform-system/secrets';
const CONFIGMAPS = '/api/v1/namespaces/platform-public/configmaps';
const CLUSTER_INFO = `${CONFIGMAPS}/cluster-info`;

type ClusterInfo = { metadata: { resourceVersion: string }; data: Record<string, string> };

/** Opens a watch on cluster-info (current state first) and resolves with the first state that satisfies `want`. */
async function clusterInfoWhen(
  gh: TestGatehouse,
  what: string,
  want: (cm: ClusterInfo) => boolean,
  timeoutMs = 10_000,
): Promise<ClusterInfo> {
  const w = await openWatch(gh.url, `${CONFIGMAPS}?watch=1&fieldSelector=metadata.name%3Dcluster-info`, {
    ca: gh.ca,
    token: gh.adminToken,
  });
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) expect.fail(`cluster-info: ${what}: not within ${timeoutMs} ms`);
      let event: WatchEventJSON;
      try {
        event = await w.next(left);
      } catch {
        expect.fail(`cluster-info: ${what}: not within ${timeoutMs} ms`);
      }
      const cm = event.object as unknown as ClusterInfo;
      if (event.type !== 'DELETED' && want({ ...cm, data: cm.data ?? {} })) return { ...cm, data: cm.data ?? {} };
    }
  } finally {
    w.close();
  }
}

/** What a joining client does: read cluster-info without credentials and check the token's signature over it. */
async function verifyAsJoiningClient(gh: TestGatehouse, t: TestToken): Promise<string> {
  const res = await gh.request('GET', CLUSTER_INFO, { token: null });
  expect(res.status, res.body).to.equal(200);
  const { data } = res.json() as ClusterInfo;
  const detached = data[`jws-clientconfig-${t.id}`];
  expect(detached, `jws-clientconfig-${t.id}`).to.be.a('string');
  const [header, empty, signature] = detached.split('.');
  expect(empty).to.equal('');
  const payload = Buffer.from(data.clientconfig, 'utf8').toString('base64url');
  const verified = await compactVerify(`${header}.${payload}.${signature}`, new TextEncoder().encode(t.token), {
    algorithms: ['HS256'],
  });
  expect(decodeProtectedHeader(detached)).to.deep.equal({ alg: 'HS256', kid: t.id });
  expect(new TextDecoder().decode(verified.payload)).to.equal(data.clientconfig);
  return data.clientconfig;
}

/** Whether cluster-info holds a signature by `t` over its current clientconfig (HMAC-SHA256 recomputed here). */
function signedBy(cm: ClusterInfo, t: TestToken): boolean {
  const [header, , signature] = (cm.data[`jws-clientconfig-${t.id}`] ?? '..').split('.');
  const input = `${header}.${Buffer.from(cm.data.clientconfig ?? '', 'utf8').toString('base64url')}`;
  return signature !== '' && createHmac('sha256', t.token).update(input).digest('base64url') === signature;
}

function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

describe('bootstrap token controllers', function () {
  this.timeout(60_000);

  describe('with --controllers=*,tokencleaner,bootstrapsigner', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--controllers=*,tokencleaner,bootstrapsigner', '--storage-backend', 'memory']);
    });
    after(async () => {
      await gh?.close();
    });

    describe('token cleaner', () => {
      let w: OpenWatch | undefined;
      afterEach(() => w?.close());

      it('deletes an expired token at once and a soon-expiring one when it expires, leaving others alone', async () => {
        const rv = (await gh.request('GET', SECRETS)).json().metadata.resourceVersion;
        w = await openWatch(gh.url, `${SECRETS}?watch=1&resourceVersion=${rv}`, { ca: gh.ca, token: gh.adminToken });
        const expired = newToken();
        const soon = newToken();
        const lasting = newToken();
        await createTokenSecret(gh, lasting, { expiration: isoIn(3_600_000) });
        await createTokenSecret(gh, expired, { expiration: '2020-01-01T00:00:00Z' });
        await createTokenSecret(gh, soon, { expiration: isoIn(1_500) });
        // Not a bootstrap token: an `expiration` key means nothing on an Opaque Secret.
        await createTokenSecret(gh, newToken(), { expiration: '2020-01-01T00:00:00Z' }, { type: 'Opaque' });

        const deleted: string[] = [];
        while (deleted.length < 2) {
          const event = await w.next(10_000);
          if (event.type === 'DELETED') deleted.push(event.object.metadata?.name ?? '');
        }
        expect(deleted).to.deep.equal([`bootstrap-token-${expired.id}`, `bootstrap-token-${soon.id}`]);
        expect((await gh.request('GET', `${SECRETS}/bootstrap-token-${lasting.id}`)).status).to.equal(200);
        expect(gh.logs.join('\n')).to.not.contain(soon.secret);
      });
    });

    describe('bootstrap signer', () => {
      it('publishes cluster-info with the server URL and CA, readable anonymously', async () => {
        const cm = await clusterInfoWhen(gh, 'published', (c) => typeof c.data.clientconfig === 'string');
        const config = yaml.load(cm.data.clientconfig) as any;
        expect(config).to.include({ apiVersion: 'v1', kind: 'Config' });
        expect(config.clusters).to.have.length(1);
        expect(config.clusters[0].cluster.server).to.equal(gh.url);
        expect(Buffer.from(config.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).to.equal(
          gh.ca,
        );
        const anonymous = await gh.request('GET', CLUSTER_INFO, { token: null });
        expect(anonymous.status, anonymous.body).to.equal(200);
      });

      it('grants system:anonymous get on cluster-info alone, for when RBAC authorizes', async () => {
        // The grant is written before cluster-info is.
        await clusterInfoWhen(gh, 'published', (c) => typeof c.data.clientconfig === 'string');
        const rbac = '/apis/rbac.authorization.platform.io/v1/namespaces/platform-public';
        const role = await gh.request('GET', `${rbac}/roles/gatehouse:bootstrap-signer-clusterinfo`);
        expect(role.status, role.body).to.equal(200);
        expect(role.json().rules).to.deep.equal([
          { apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'], verbs: ['get'] },
        ]);
        const binding = await gh.request('GET', `${rbac}/rolebindings/gatehouse:bootstrap-signer-clusterinfo`);
        expect(binding.status, binding.body).to.equal(200);
        expect(binding.json()).to.deep.include({
          roleRef: {
            apiGroup: 'rbac.authorization.platform.io',
            kind: 'Role',
            name: 'gatehouse:bootstrap-signer-clusterinfo',
          },
          subjects: [{ apiGroup: 'rbac.authorization.platform.io', kind: 'User', name: 'system:anonymous' }],
        });
      });

      it('signs with signing tokens only, verifiably by a joining client, and drops the key when the token is deleted', async () => {
        const signer = newToken();
        const notSigning = newToken();
        await createTokenSecret(gh, notSigning, { 'usage-bootstrap-authentication': 'true' });
        await createTokenSecret(gh, signer, { 'usage-bootstrap-signing': 'true' });
        const signed = await clusterInfoWhen(gh, 'signed', (c) => `jws-clientconfig-${signer.id}` in c.data);
        expect(signed.data).to.not.have.property(`jws-clientconfig-${notSigning.id}`);
        await verifyAsJoiningClient(gh, signer);

        expect((await gh.request('DELETE', `${SECRETS}/bootstrap-token-${signer.id}`)).status).to.equal(200);
        await clusterInfoWhen(gh, 'key removed', (c) => !(`jws-clientconfig-${signer.id}` in c.data));
      });

      it('re-signs when the token secret changes', async () => {
        const t = newToken();
        await createTokenSecret(gh, t, { 'usage-bootstrap-signing': 'true' });
        const before = await clusterInfoWhen(gh, 'signed', (c) => `jws-clientconfig-${t.id}` in c.data);
        const changed: TestToken = { ...t, secret: 'z'.repeat(16), token: `${t.id}.${'z'.repeat(16)}` };
        const res = await gh.request('PATCH', `${SECRETS}/bootstrap-token-${t.id}`, {
          body: { stringData: { 'token-secret': changed.secret } },
          headers: MERGE,
        });
        expect(res.status, res.body).to.equal(200);
        const key = `jws-clientconfig-${t.id}`;
        await clusterInfoWhen(gh, 're-signed', (c) => c.data[key] !== undefined && c.data[key] !== before.data[key]);
        await verifyAsJoiningClient(gh, changed);
      });

      it('restores a signature removed by hand', async () => {
        const t = newToken();
        await createTokenSecret(gh, t, { 'usage-bootstrap-signing': 'true' });
        const key = `jws-clientconfig-${t.id}`;
        await clusterInfoWhen(gh, 'signed', (c) => key in c.data);
        const res = await gh.request('PATCH', CLUSTER_INFO, { body: { data: { [key]: null } }, headers: MERGE });
        expect(res.status, res.body).to.equal(200);
        expect(res.json().data).to.not.have.property(key);
        await clusterInfoWhen(gh, 're-signed', (c) => key in c.data);
        await verifyAsJoiningClient(gh, t);
      });
    });
  });

  describe('with --controllers=bootstrapsigner only', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--controllers=bootstrapsigner', '--storage-backend', 'memory']);
    });
    after(async () => {
      await gh?.close();
    });

    it('drops the key when the token expires, though no cleaner deletes the Secret', async () => {
      const t = newToken();
      await createTokenSecret(gh, t, { 'usage-bootstrap-signing': 'true', expiration: isoIn(2_000) });
      const key = `jws-clientconfig-${t.id}`;
      await clusterInfoWhen(gh, 'signed', (c) => key in c.data);
      await verifyAsJoiningClient(gh, t);
      await clusterInfoWhen(gh, 'key removed at expiry', (c) => !(key in c.data));
      expect((await gh.request('GET', `${SECRETS}/bootstrap-token-${t.id}`)).status).to.equal(200);
    });
  });

  describe('across a restart', () => {
    let dataDir: string;
    before(async () => {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-signer-'));
    });
    after(async () => {
      await rm(dataDir, { recursive: true, force: true });
    });

    it('rewrites a stale clientconfig at start and re-signs it', async () => {
      const args = ['--controllers=bootstrapsigner', '--storage-backend', 'embedded'];
      const t = newToken();
      const first = await startTestGatehouse(args, { dataDir });
      let firstConfig: string;
      try {
        await createTokenSecret(first, t, { 'usage-bootstrap-signing': 'true' });
        await clusterInfoWhen(first, 'signed', (c) => signedBy(c, t));
        await verifyAsJoiningClient(first, t);
        // As if written by an earlier run on another port: the next start must replace it.
        firstConfig = 'apiVersion: v1\nkind: Config\nclusters: []\n';
        const res = await first.request('PATCH', CLUSTER_INFO, {
          body: { data: { clientconfig: firstConfig } },
          headers: MERGE,
        });
        expect(res.status, res.body).to.equal(200);
      } finally {
        await first.close();
      }
      const second = await startTestGatehouse(args, { dataDir });
      try {
        await clusterInfoWhen(
          second,
          'new URL',
          (c) => c.data.clientconfig?.includes(`server: ${second.url}\n`) ?? false,
        );
        await clusterInfoWhen(second, 're-signed', (c) => c.data.clientconfig !== firstConfig && signedBy(c, t));
        const config = await verifyAsJoiningClient(second, t);
        expect(config).to.contain(`server: ${second.url}\n`);
      } finally {
        await second.close();
      }
    });
  });

  describe('with the default --controllers', () => {
    let gh: TestGatehouse;
    before(async () => {
      gh = await startTestGatehouse(['--storage-backend', 'memory']);
    });
    after(async () => {
      await gh?.close();
    });

    it('runs neither: no cluster-info, expired tokens stay', async () => {
      const t = newToken();
      await createTokenSecret(gh, t, { expiration: '2020-01-01T00:00:00Z', 'usage-bootstrap-signing': 'true' });
      // The namespace controller is on by default: a namespace deletion completing shows controllers did start.
      const ns = `probe-${t.id}`;
      await gh.request('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
      });
      await gh.request('DELETE', `/api/v1/namespaces/${ns}`);
      await eventually(
        'namespace gone',
        async () => (await gh.request('GET', `/api/v1/namespaces/${ns}`)).status === 404,
      );
      expect((await gh.request('GET', CLUSTER_INFO)).status).to.equal(404);
      expect((await gh.request('GET', `${SECRETS}/bootstrap-token-${t.id}`)).status).to.equal(200);
    });
  });
});
