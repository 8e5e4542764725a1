// Credentials never reach logs, response bodies or headers, or /metrics, for every bearer token type Gatehouse
// accepts: static tokens, bootstrap tokens, service-account JWTs and OIDC ID tokens (from a real local HTTPS issuer).
// For each type a valid token (authenticated, then refused by RBAC with a 403 that names the user) and tokens that
// are ours but invalid (401) are sent to several endpoints; afterwards nothing recorded holds the token or its secret
// part (a bootstrap token's secret, a JWT's signature), while the failures themselves were logged.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createNamespace, expectFailure } from '../helpers/api.js';
import { createTokenSecret, newToken } from '../helpers/bootstrap-tokens.js';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createTestIssuer, type TestIssuer } from '../helpers/oidc-issuer.js';
import { messagesOf } from '../helpers/klog.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const CLIENT_ID = 'gatehouse';
const STATIC = 'static-secret-token-5d1e0a77c2';

interface Case {
  type: string;
  valid: string;
  /** Tokens of this type that fail verification. */
  invalid: string[];
}

/** The parts of a token that must never be shown: the whole, and the secret part alone. */
function secretParts(token: string): string[] {
  const parts = token.split('.');
  if (parts.length === 3) return [token, parts[2]];
  if (parts.length === 2) return [token, parts[1]];
  return [token];
}

/** A JWT with its signature's first character changed (still well-formed base64url). */
function tamper(jwt: string): string {
  const [h, p, s] = jwt.split('.');
  return `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
}

describe('credentials stay out of logs, errors and metrics, for every token type', function () {
  this.timeout(90_000);
  let dir: string;
  let issuer: TestIssuer;
  let gh: TestGatehouse;
  const cases: Case[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-leaks-'));
    issuer = await createTestIssuer();
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, `${STATIC},stacy,stacy-uid\n`);
    gh = await startTestGatehouse([
      '--authorization-mode=RBAC',
      '--token-auth-file',
      tokens,
      '--enable-bootstrap-token-auth',
      `--oidc-issuer-url=${issuer.url}`,
      `--oidc-client-id=${CLIENT_ID}`,
      `--oidc-ca-file=${issuer.caFile}`,
    ]);

    cases.push({ type: 'static', valid: STATIC, invalid: ['static-secret-token-5d1e0a77c3'] });

    const boot = newToken();
    await createTokenSecret(gh, boot, { 'usage-bootstrap-authentication': 'true' });
    const expired = newToken();
    await createTokenSecret(gh, expired, {
      'usage-bootstrap-authentication': 'true',
      expiration: '2020-01-01T00:00:00Z',
    });
    cases.push({
      type: 'bootstrap',
      valid: boot.token,
      invalid: [`${boot.id}.${boot.secret.split('').reverse().join('')}`, expired.token],
    });

    const ns = await createNamespace(gh, 'leaks');
    for (const name of ['bot', 'gone']) {
      expect(
        (await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name } } })).status,
      ).to.equal(201);
    }
    const issue = async (name: string): Promise<string> => {
      const res = await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} },
      });
      expect(res.status, res.body).to.equal(201);
      return res.json().status.token;
    };
    const saToken = await issue('bot');
    const revoked = await issue('gone');
    expect((await gh.request('DELETE', `/api/v1/namespaces/${ns}/serviceaccounts/gone`)).status).to.equal(200);
    cases.push({ type: 'service account', valid: saToken, invalid: [tamper(saToken), revoked] });

    const claims = { sub: 'olivia', aud: CLIENT_ID };
    const forger = await issuer.foreignKey();
    cases.push({
      type: 'OIDC',
      valid: await issuer.mint(claims),
      invalid: [
        await issuer.mint({ ...claims, aud: 'someone-else' }),
        await issuer.mint({ ...claims, exp: Math.floor(Date.now() / 1000) - 60 }),
        await issuer.mint(claims, { key: forger, kid: issuer.currentKey.kid }),
      ],
    });
  });
  after(async () => {
    await gh?.close();
    await issuer?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const requests = (token: string): Promise<GatehouseResponse>[] => [
    gh.request('POST', SSR, { token, body: SSR_BODY }),
    gh.request('GET', '/api/v1/namespaces/default/secrets', { token }),
    gh.request('GET', '/metrics', { token }),
    gh.request('POST', '/api/v1/namespaces/default/configmaps', {
      token,
      body: { metadata: { name: token.slice(0, 20).replace(/[^a-z0-9]/g, 'x') } },
    }),
  ];

  it('authenticates the valid tokens, refuses the invalid ones, and shows neither anywhere', async () => {
    const before = gh.logs.length;
    const seen: string[] = [];
    for (const c of cases) {
      const [review, ...forbidden] = await Promise.all(requests(c.valid));
      expect(review.status, `${c.type}: ${review.body}`).to.equal(201);
      for (const res of forbidden) {
        const status = expectFailure(res, 403, 'Forbidden');
        expect(status.message, c.type).to.match(/User ".+" cannot /);
      }
      for (const res of [review, ...forbidden]) seen.push(res.body, JSON.stringify(res.headers));
      for (const token of c.invalid) {
        for (const res of await Promise.all(requests(token))) {
          expectFailure(res, 401, 'Unauthorized');
          seen.push(res.body, JSON.stringify(res.headers));
        }
      }
    }
    const invalidCount = cases.reduce((n, c) => n + c.invalid.length, 0);
    const logged = gh.logs.slice(before);
    // The failures are logged (so the log path really ran) ...
    expect(messagesOf(logged).filter((m) => m === 'Unable to authenticate the request')).to.have.length(
      invalidCount * 4,
    );
    const metrics = await gh.request('GET', '/metrics');
    expect(metrics.status).to.equal(200);
    // ... but no credential, whole or its secret part, is in a log line, a response, or a metric.
    for (const c of cases) {
      for (const token of [c.valid, ...c.invalid]) {
        for (const secret of secretParts(token)) {
          for (const line of logged) expect(line, `${c.type} token in a log line`).to.not.contain(secret);
          for (const text of seen) expect(text, `${c.type} token in a response`).to.not.contain(secret);
          expect(metrics.body, `${c.type} token in /metrics`).to.not.contain(secret);
        }
      }
    }
    for (const line of logged) expect(line).to.not.contain(gh.adminToken);
  });
});
