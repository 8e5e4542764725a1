// `kubectl create token` end to end with the stock kubectl 1.32. Its typed client POSTs the TokenRequest as protobuf
// (measured: Content-Type application/vnd.kubernetes.protobuf, the k8s envelope) and does not fall back to JSON after
// a 415, so this passes only because the token subresource reads that protobuf body; the printed token is checked
// by using it against the same server.
import { expect } from 'chai';
import { createNamespace, uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const ISSUER = 'https://kubernetes.default.svc.cluster.local';

function claimsOf(token: string): any {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

describe('kubectl create token', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  let ns: string;

  before(async () => {
    ns = await createNamespace(env.gh, 'kct');
    const res = await env.gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'bot' } },
    });
    expect(res.status, res.body).to.equal(201);
  });

  const whoami = async (token: string): Promise<any> => {
    const res = await env.gh.request('POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
      body: {},
      token,
    });
    expect(res.status, res.body).to.equal(201);
    return res.json().status.userInfo;
  };

  it('prints a token that authenticates as the account', async () => {
    const token = (await env.kubectl.ok(['create', 'token', 'bot', '-n', ns])).trim();
    const user = await whoami(token);
    expect(user.username).to.equal(`system:serviceaccount:${ns}:bot`);
    expect(user.groups).to.deep.equal([
      'system:serviceaccounts',
      `system:serviceaccounts:${ns}`,
      'system:authenticated',
    ]);
    expect(claimsOf(token).exp - claimsOf(token).iat).to.equal(3600);
  });

  it('honours --duration, --audience and --bound-object-kind/name', async () => {
    const secret = uniqueName('kbound');
    // Through the API: `kubectl create secret` POSTs protobuf, which only the token subresource reads so far.
    const created = await env.gh.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
      body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: secret } },
    });
    expect(created.status, created.body).to.equal(201);
    const token = (
      await env.kubectl.ok([
        'create',
        'token',
        'bot',
        '-n',
        ns,
        '--duration=20m',
        '--audience=vault',
        '--audience',
        ISSUER,
        '--bound-object-kind=Secret',
        `--bound-object-name=${secret}`,
      ])
    ).trim();
    const claims = claimsOf(token);
    expect(claims.exp - claims.iat).to.equal(1200);
    expect(claims.aud).to.deep.equal(['vault', ISSUER]);
    expect(claims['kubernetes.io'].secret).to.deep.equal({ name: secret, uid: created.json().metadata.uid });
    expect((await whoami(token)).username).to.equal(`system:serviceaccount:${ns}:bot`);
  });

  it("reports the server's refusals: too short a duration, a missing account", async () => {
    const short = await env.kubectl.run(['create', 'token', 'bot', '-n', ns, '--duration=5m']);
    expect(short.code).to.not.equal(0);
    expect(short.stderr).to.contain('may not specify a duration less than 10 minutes');
    const missing = await env.kubectl.run(['create', 'token', 'nobody', '-n', ns]);
    expect(missing.code).to.not.equal(0);
    expect(missing.stderr).to.contain('serviceaccounts "nobody" not found');
  });
});
