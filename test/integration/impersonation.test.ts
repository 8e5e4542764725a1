// Impersonation (Impersonate-User/-Group/-Uid/-Extra-*) over real HTTPS. The identity acted as is read back from
// SelfSubjectReview. Refusals are shown on an in-process gateway whose authorizer is the test's own: it allows every
// ordinary request but only a fixed list of `impersonate` checks, and records the checks it was asked, so the
// attributes of each check (resource, group, namespace, name, subresource) are asserted as upstream builds them.
// The stock kubectl's --as/--as-group run against a full Gatehouse with the admin kubeconfig (system:masters).
import { expect } from 'chai';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createGateway } from '../../gateway/app.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { builtinKinds } from '../../api/register.js';
import { createHealthChecks } from '../../gateway/handlers/health.js';
import { parseFeatureGates } from '../../gateway/server/feature-gates.js';
import { createLogger } from '../../gateway/server/logger.js';
import { loadOrCreateCertificates } from '../../gateway/server/certs.js';
import { createAuthenticatorUnion } from '../../gateway/authn/authenticator.js';
import { createBearerTokenAuthenticator } from '../../gateway/authn/bearer-token.js';
import { createStaticTokenAuthenticator } from '../../gateway/authn/token-file.js';
import { withAnonymousFallback } from '../../gateway/authn/anonymous.js';
import type { Attributes, AuthorizationResult, Authorizer } from '../../policies/authorizer.js';
import { httpsRequest, startTestGatehouse, type GatehouseResponse } from '../helpers/gatehouse.js';
import { expectFailure } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { TEST_VERSION } from '../helpers/version-info.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const ALICE = 'alice-token-impersonation';

interface ReviewedUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** The impersonate checks the test authorizer allows: `<group>/<resource>[/<subresource>]/<namespace>/<name>`. */
const ALLOWED = new Set([
  '/users//bob',
  '/users//system:anonymous',
  '/groups//dev',
  '/groups//qa',
  '/groups//system:unauthenticated',
  '/serviceaccounts/ns1/sa1',
  'authentication.platform.io/userextras/scopes//read',
  'authentication.platform.io/userextras/acme.example/team//blue',
  'authentication.platform.io/uids//42',
]);

function checkKey(a: Attributes): string {
  return `${a.apiGroup}/${a.resource}${a.subresource ? `/${a.subresource}` : ''}/${a.namespace}/${a.name}`;
}

interface InProcess {
  url: string;
  ca: string;
  checks: Attributes[];
  /** The last request the server received, as the code after the filters saw it. */
  last(): IncomingMessage;
  close(): Promise<void>;
}

async function startInProcess(dir: string): Promise<InProcess> {
  const checks: Attributes[] = [];
  const authorizer: Authorizer = {
    name: 'impersonation-list',
    async authorize(attrs): Promise<AuthorizationResult> {
      if (attrs.verb !== 'impersonate') return { decision: 'Allow', reason: '' };
      checks.push(attrs);
      return ALLOWED.has(checkKey(attrs)) ? { decision: 'Allow', reason: '' } : { decision: 'NoOpinion', reason: '' };
    },
  };
  const authenticator = withAnonymousFallback(
    createAuthenticatorUnion([
      createBearerTokenAuthenticator([
        createStaticTokenAuthenticator('test', [
          { token: ALICE, user: { name: 'alice', uid: 'alice-uid', groups: ['staff'] } },
        ]),
      ]),
    ]),
  );
  const storage = createMemoryStorage({ historyWindowMs: 300_000 });
  const shutdown = new AbortController();
  const { app } = createGateway({
    storage,
    kinds: builtinKinds,
    authenticator,
    authorizer,
    health: createHealthChecks(),
    features: parseFeatureGates([]),
    maxRequestBodyBytes: 3 << 20,
    shutdownSignal: shutdown.signal,
    logger: createLogger({ sink: () => {} }),
    version: TEST_VERSION,
  });
  const certs = await loadOrCreateCertificates({ certDir: path.join(dir, 'pki'), bindAddress: '127.0.0.1' });
  let last: IncomingMessage | undefined;
  const handle = app.callback();
  const server = https.createServer({ cert: certs.certPem, key: certs.keyPem }, (req, res) => {
    last = req;
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ca: certs.caPem,
    checks,
    last: () => last!,
    async close() {
      shutdown.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await storage.close();
    },
  };
}

describe('impersonation', function () {
  this.timeout(60_000);
  let dir: string;
  let ip: InProcess;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-impersonation-'));
    ip = await startInProcess(dir);
  });
  after(async () => {
    await ip?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const review = (
    headers: Record<string, string | string[]>,
    token: string | null = ALICE,
  ): Promise<GatehouseResponse> =>
    httpsRequest(ip.url, ip.ca, 'POST', SSR, { body: SSR_BODY, token, headers: headers as Record<string, string> });

  const reviewed = async (headers: Record<string, string | string[]>, token?: string | null): Promise<ReviewedUser> => {
    const res = await review(headers, token);
    expect(res.status, res.body).to.equal(201);
    return res.json().status.userInfo;
  };

  const checksOf = async (headers: Record<string, string | string[]>): Promise<string[]> => {
    ip.checks.length = 0;
    await review(headers);
    return ip.checks.map((a) => `${a.verb} ${checkKey(a)} as ${a.user.name}`);
  };

  describe('allowed', () => {
    it('acts as the user, with system:authenticated added, and the real user does not show', async () => {
      expect(await reviewed({ 'Impersonate-User': 'bob' })).to.deep.equal({
        username: 'bob',
        groups: ['system:authenticated'],
      });
    });

    it('takes repeated groups (one per line), the uid and percent-decoded extras, each checked on its own', async () => {
      const headers = {
        'Impersonate-User': 'bob',
        'Impersonate-Group': ['dev', 'qa'],
        'Impersonate-Uid': '42',
        'Impersonate-Extra-Scopes': 'read',
        'Impersonate-Extra-Acme.Example%2FTeam': 'blue',
      };
      expect(await reviewed(headers)).to.deep.equal({
        username: 'bob',
        uid: '42',
        groups: ['dev', 'qa', 'system:authenticated'],
        extra: { scopes: ['read'], 'acme.example/team': ['blue'] },
      });
      expect(await checksOf(headers)).to.have.members([
        'impersonate /users//bob as alice',
        'impersonate /groups//dev as alice',
        'impersonate /groups//qa as alice',
        'impersonate authentication.platform.io/uids//42 as alice',
        'impersonate authentication.platform.io/userextras/scopes//read as alice',
        'impersonate authentication.platform.io/userextras/acme.example/team//blue as alice',
      ]);
    });

    it('checks a service account by namespace and name, and gives it its groups', async () => {
      expect(await reviewed({ 'Impersonate-User': 'system:serviceaccount:ns1:sa1' })).to.deep.equal({
        username: 'system:serviceaccount:ns1:sa1',
        groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'],
      });
      expect(await checksOf({ 'Impersonate-User': 'system:serviceaccount:ns1:sa1' })).to.deep.equal([
        'impersonate /serviceaccounts/ns1/sa1 as alice',
      ]);
      // A name that is not a valid service account name is impersonated as a plain user, as upstream.
      for (const odd of [
        'system:serviceaccount:ns1:sa1:x',
        'system:serviceaccount:NS1:sa1',
        'system:serviceaccount::sa1',
      ]) {
        expect(await checksOf({ 'Impersonate-User': odd })).to.deep.equal([`impersonate /users//${odd} as alice`]);
      }
      // Explicit groups replace the service account's own.
      expect(
        (await reviewed({ 'Impersonate-User': 'system:serviceaccount:ns1:sa1', 'Impersonate-Group': 'dev' })).groups,
      ).to.deep.equal(['dev', 'system:authenticated']);
    });

    it('keeps system:anonymous unauthenticated, and does not add system:authenticated next to system:unauthenticated', async () => {
      expect(await reviewed({ 'Impersonate-User': 'system:anonymous' })).to.deep.equal({
        username: 'system:anonymous',
        groups: ['system:unauthenticated'],
      });
      expect(
        (await reviewed({ 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:unauthenticated' })).groups,
      ).to.deep.equal(['system:unauthenticated']);
    });

    it('removes the Impersonate-* headers (and the accepted Authorization header) before the request goes on', async () => {
      await reviewed({
        'Impersonate-User': 'bob',
        'Impersonate-Group': 'dev',
        'Impersonate-Uid': '42',
        'Impersonate-Extra-Scopes': 'read',
        'X-Other': 'kept',
      });
      const req = ip.last();
      const names = [
        ...Object.keys(req.headers),
        ...Object.keys(req.headersDistinct),
        ...req.rawHeaders.filter((_, i) => i % 2 === 0),
      ];
      expect(
        names.map((n) => n.toLowerCase()).filter((n) => n.startsWith('impersonate-') || n === 'authorization'),
      ).to.deep.equal([]);
      expect(req.headers['x-other']).to.equal('kept');
    });

    it('leaves requests without Impersonate-* headers alone (no checks)', async () => {
      expect(await checksOf({})).to.deep.equal([]);
      expect((await reviewed({})).username).to.equal('alice');
    });
  });

  describe('refused', () => {
    const expectForbidden = (res: GatehouseResponse, message: string, details: Record<string, string>): void => {
      const status = expectFailure(res, 403, 'Forbidden');
      expect(status.message).to.equal(message);
      expect(status.details).to.deep.equal(details);
    };

    it('a user the requester may not impersonate: 403 naming the real user', async () => {
      expectForbidden(
        await review({ 'Impersonate-User': 'carol' }),
        'users "carol" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
        { name: 'carol', kind: 'users' },
      );
    });

    it('an allowed user with a group that is not: 403 on the group', async () => {
      expectForbidden(
        await review({ 'Impersonate-User': 'bob', 'Impersonate-Group': ['dev', 'system:masters'] }),
        'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups" in API group "" at the cluster scope',
        { name: 'system:masters', kind: 'groups' },
      );
    });

    it('a service account in another namespace: 403 in that namespace', async () => {
      expectForbidden(
        await review({ 'Impersonate-User': 'system:serviceaccount:ns2:sa1' }),
        'serviceaccounts "sa1" is forbidden: User "alice" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns2"',
        { name: 'sa1', kind: 'serviceaccounts' },
      );
    });

    it('an extra value or a uid that is not allowed: 403 in authentication.platform.io', async () => {
      expectForbidden(
        await review({ 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'write' }),
        'userextras.authentication.platform.io "write" is forbidden: User "alice" cannot impersonate resource "userextras/scopes" in API group "authentication.platform.io" at the cluster scope',
        { name: 'write', group: 'authentication.platform.io', kind: 'userextras' },
      );
      expectForbidden(
        await review({ 'Impersonate-User': 'bob', 'Impersonate-Uid': '43' }),
        'uids.authentication.platform.io "43" is forbidden: User "alice" cannot impersonate resource "uids" in API group "authentication.platform.io" at the cluster scope',
        { name: '43', group: 'authentication.platform.io', kind: 'uids' },
      );
    });

    it('an anonymous requester is checked like anyone else', async () => {
      const status = expectFailure(await review({ 'Impersonate-User': 'carol' }, null), 403, 'Forbidden');
      expect(status.message).to.contain('User "system:anonymous" cannot impersonate resource "users"');
    });

    it('groups, a uid or extras without a user: 400', async () => {
      const cases: Record<string, string>[] = [
        { 'Impersonate-Group': 'dev' },
        { 'Impersonate-Uid': '42' },
        { 'Impersonate-Extra-Scopes': 'read' },
        { 'Impersonate-User': '', 'Impersonate-Group': 'dev' },
      ];
      for (const headers of cases) {
        const status = expectFailure(await review(headers), 400, 'BadRequest');
        expect(status.message).to.match(/without impersonating a user$/);
      }
    });
  });
});

describe('impersonation through a full Gatehouse and the real kubectl', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  it('kubectl --as --as-group auth whoami answers the impersonated identity', async () => {
    const out = JSON.parse(
      await env.kubectl.ok([
        'auth',
        'whoami',
        '--as=jane',
        '--as-group=devs',
        '--as-group=ops',
        '--as-uid=u-1',
        '-o',
        'json',
      ]),
    );
    expect(out.status.userInfo).to.deep.equal({
      username: 'jane',
      uid: 'u-1',
      groups: ['devs', 'ops', 'system:authenticated'],
    });
  });

  it('kubectl --as a service account', async () => {
    const out = JSON.parse(
      await env.kubectl.ok(['auth', 'whoami', '--as=system:serviceaccount:kube-system:default', '-o', 'json']),
    );
    expect(out.status.userInfo.groups).to.deep.equal([
      'system:serviceaccounts',
      'system:serviceaccounts:kube-system',
      'system:authenticated',
    ]);
  });

  it('with AlwaysDeny, a static-token user may not impersonate (403 with the authorizer reason); the admin may', async () => {
    const tokens = path.join(env.gh.dataDir, 'tokens.csv');
    await writeFile(tokens, `${ALICE},alice,alice-uid,staff\n`);
    const denyAll = await startTestGatehouse(['--authorization-mode=AlwaysDeny', '--token-auth-file', tokens]);
    try {
      const res = await denyAll.request('POST', SSR, {
        body: SSR_BODY,
        token: ALICE,
        headers: { 'Impersonate-User': 'bob' },
      });
      const status = expectFailure(res, 403, 'Forbidden');
      expect(status.message).to.equal(
        'users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
      );
      // system:masters passes the privileged-groups authorizer for the impersonate check; the impersonated user is
      // then authorized as itself, and AlwaysDeny refuses it.
      const asAdmin = await denyAll.request('POST', SSR, { body: SSR_BODY, headers: { 'Impersonate-User': 'bob' } });
      expect(expectFailure(asAdmin, 403, 'Forbidden').message).to.contain(
        'User "bob" cannot create resource "selfsubjectreviews"',
      );
    } finally {
      await denyAll.close();
    }
  });
});
