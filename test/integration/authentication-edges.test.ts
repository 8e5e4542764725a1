// Authentication edges over real HTTPS: who anonymous is and who gets system:authenticated, how malformed or
// foreign Authorization headers are treated, and that a refused credential reaches neither the client nor the log.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { messagesOf } from '../helpers/klog.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const ALICE = 'alice-static-token-0123456789';

function expectUnauthorized(res: GatehouseResponse): void {
  expect(res.status, res.body).to.equal(401);
  expect(res.json()).to.deep.equal({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'Unauthorized',
    reason: 'Unauthorized',
    code: 401,
  });
}

describe('authentication edges', function () {
  this.timeout(60_000);
  let dir: string;
  let gh: TestGatehouse;
  let closed: TestGatehouse;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authn-edges-'));
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, `${ALICE},alice,alice-uid,"staff,system:authenticated"\n`);
    [gh, closed] = await Promise.all([
      startTestGatehouse(['--token-auth-file', tokens]),
      startTestGatehouse(['--token-auth-file', tokens, '--anonymous-auth=false']),
    ]);
  });
  after(async () => {
    await gh?.close();
    await closed?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const review = (target: TestGatehouse, headers: Record<string, string> = {}, token: string | null = null) =>
    target.request('POST', SSR, { body: SSR_BODY, token, headers });
  const identity = async (res: GatehouseResponse) => {
    expect(res.status, res.body).to.equal(201);
    return res.json().status.userInfo;
  };

  describe('anonymous and system:authenticated', () => {
    it('a request without credentials is system:anonymous in system:unauthenticated only', async () => {
      expect(await identity(await review(gh))).to.deep.equal({
        username: 'system:anonymous',
        groups: ['system:unauthenticated'],
      });
    });

    it('every authenticated user is in system:authenticated, once', async () => {
      expect(await identity(await review(gh, {}, ALICE))).to.deep.equal({
        username: 'alice',
        uid: 'alice-uid',
        groups: ['staff', 'system:authenticated'],
      });
      expect((await identity(await review(gh, {}, gh.adminToken))).groups).to.deep.equal([
        'system:masters',
        'system:authenticated',
      ]);
    });

    it('with --anonymous-auth=false a request without credentials is a 401', async () => {
      expectUnauthorized(await review(closed));
      expect((await identity(await review(closed, {}, ALICE))).username).to.equal('alice');
    });
  });

  describe('the Authorization header', () => {
    it('a malformed bearer header is a 401, never anonymous', async () => {
      for (const authorization of ['Bearer', 'Bearer ', `Bearer ${ALICE} extra`, 'Bearer a b']) {
        expectUnauthorized(await review(gh, { authorization }));
      }
    });

    it('the scheme is case-insensitive', async () => {
      expect((await identity(await review(gh, { authorization: `bearer ${ALICE}` }))).username).to.equal('alice');
      expect((await identity(await review(gh, { authorization: `BEARER ${ALICE}` }))).username).to.equal('alice');
    });

    it('another scheme (Basic) is not a bearer credential: ignored, as upstream, so anonymous or 401', async () => {
      const basic = `Basic ${Buffer.from('alice:secret').toString('base64')}`;
      expect((await identity(await review(gh, { authorization: basic }))).username).to.equal('system:anonymous');
      expectUnauthorized(await review(closed, { authorization: basic }));
      expect((await identity(await review(gh, { authorization: 'Negotiate abc' }))).username).to.equal(
        'system:anonymous',
      );
    });
  });

  describe('refused credentials stay secret', () => {
    const SECRETS = [
      'gatehouse-secret-never-log-7f3a9c',
      'abcdef.0123456789abcdef',
      'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
    ];

    it('appear neither in the 401 body nor in anything logged, while the failure itself is logged', async () => {
      const before = gh.logs.length;
      for (const secret of SECRETS) {
        for (const urlPath of [
          SSR,
          '/api/v1/namespaces',
          '/apis/apps/v1/namespaces/default/deployments/x',
          '/version',
        ]) {
          const res = await gh.request(urlPath === SSR ? 'POST' : 'GET', urlPath, {
            token: secret,
            body: urlPath === SSR ? SSR_BODY : undefined,
          });
          expectUnauthorized(res);
          expect(res.body).to.not.contain(secret);
          expect(JSON.stringify(res.headers)).to.not.contain(secret);
        }
      }
      const logged = gh.logs.slice(before);
      expect(messagesOf(logged).filter((m) => m === 'Unable to authenticate the request')).to.have.length(
        SECRETS.length * 4,
      );
      for (const secret of SECRETS) {
        for (const line of logged) expect(line).to.not.contain(secret);
        // Not even a recognisable half of it (a bootstrap token's secret part).
        for (const line of logged) expect(line).to.not.contain(secret.slice(-16));
      }
    });
  });
});
