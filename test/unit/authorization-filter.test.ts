import { expect } from 'chai';
import http from 'node:http';
import Koa from 'koa';
import { requestInfoFilter } from '../../gateway/request/request-info.js';
import { createAuthenticationFilter } from '../../gateway/filters/authentication.js';
import { createAuthorizationFilter } from '../../gateway/filters/authorization.js';
import { userOf } from '../../gateway/request/user.js';
import { createAuthenticatorUnion } from '../../gateway/authn/authenticator.js';
import { createBearerTokenAuthenticator } from '../../gateway/authn/bearer-token.js';
import { createStaticTokenAuthenticator, parseTokenFile } from '../../gateway/authn/token-file.js';
import { withAnonymousFallback } from '../../gateway/authn/anonymous.js';
import { buildAuthorizer } from '../../policies/build-authorizer.js';
import type { AuthorizationMode } from '../../policies/build-authorizer.js';
import { NO_OPINION, type Authorizer } from '../../policies/authorizer.js';
import { renderStatusErrors, serveKoa, type TestServer } from '../helpers/koa-server.js';

const TOKENS = 'alice-token,alice,1,"dev"\nroot-token,root,0,"system:masters"\n';

async function serve(authorizer: Authorizer, anonymous = true): Promise<TestServer> {
  const union = createAuthenticatorUnion([
    createBearerTokenAuthenticator([createStaticTokenAuthenticator('file', parseTokenFile(TOKENS).tokens)]),
  ]);
  const app = new Koa();
  app.use(renderStatusErrors);
  app.use(requestInfoFilter);
  app.use(createAuthenticationFilter(anonymous ? withAnonymousFallback(union) : union));
  app.use(createAuthorizationFilter(authorizer));
  app.use((ctx) => {
    ctx.body = { user: userOf(ctx), authorization: ctx.get('authorization') };
  });
  return serveKoa(app);
}

const modes = (...m: AuthorizationMode[]) => buildAuthorizer(m);

describe('authentication and authorization filters', () => {
  let server: TestServer;
  afterEach(() => server?.close());

  it('lets a known token through as its user and strips the Authorization header', async () => {
    server = await serve(modes('AlwaysAllow'));
    const res = await server.request('GET', '/api/v1/namespaces', { authorization: 'Bearer alice-token' });
    expect(res.status).to.equal(200);
    expect(res.json().user).to.deep.equal({ name: 'alice', uid: '1', groups: ['dev', 'system:authenticated'] });
    expect(res.json().authorization).to.equal('');
  });

  it('answers 401 Unauthorized Status for an unknown token', async () => {
    server = await serve(modes('AlwaysAllow'));
    const res = await server.request('GET', '/api/v1/namespaces', { authorization: 'Bearer nope' });
    expect(res.status).to.equal(401);
    expect(res.json()).to.include({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Unauthorized',
      code: 401,
      message: 'Unauthorized',
    });
  });

  it('treats a request without credentials as anonymous: allowed by AlwaysAllow, 401 with anonymous off', async () => {
    server = await serve(modes('AlwaysAllow'));
    const res = await server.request('GET', '/version');
    expect(res.json().user).to.deep.equal({ name: 'system:anonymous', groups: ['system:unauthenticated'] });
    await server.close();
    server = await serve(modes('AlwaysAllow'), false);
    expect((await server.request('GET', '/version')).status).to.equal(401);
  });

  it('denies with kube wording for a namespaced resource, appending the reason', async () => {
    server = await serve(modes('AlwaysDeny'));
    const res = await server.request('GET', '/apis/apps/v1/namespaces/ns1/replicasets/web', {
      authorization: 'Bearer alice-token',
    });
    expect(res.status).to.equal(403);
    const status = res.json();
    expect(status).to.include({ reason: 'Forbidden', code: 403 });
    expect(status.message).to.equal(
      'replicasets.apps "web" is forbidden: User "alice" cannot get resource "replicasets" in API group "apps" in the namespace "ns1": Everything is forbidden.',
    );
    expect(status.details).to.deep.equal({ name: 'web', group: 'apps', kind: 'replicasets' });
  });

  it('words cluster-scoped, collection, subresource and non-resource denials', async () => {
    server = await serve(modes('AlwaysDeny'));
    const list = await server.request('GET', '/api/v1/nodes');
    expect(list.json().message).to.equal(
      'nodes is forbidden: User "system:anonymous" cannot list resource "nodes" in API group "" at the cluster scope: Everything is forbidden.',
    );
    const status = await server.request('PUT', '/api/v1/namespaces/ns1/resourcequotas/q/status');
    expect(status.json().message).to.contain(
      'cannot update resource "resourcequotas/status" in API group "" in the namespace "ns1"',
    );
    const path = await server.request('GET', '/healthz');
    expect(path.json().message).to.equal(
      'forbidden: User "system:anonymous" cannot get path "/healthz": Everything is forbidden.',
    );
  });

  it('lets system:masters bypass every mode', async () => {
    server = await serve(modes('AlwaysDeny'));
    const res = await server.request('DELETE', '/api/v1/namespaces/kube', { authorization: 'Bearer root-token' });
    expect(res.status).to.equal(200);
    expect(res.json().user.name).to.equal('root');
  });

  it('lets the first deciding mode win, and refuses when nobody has an opinion', async () => {
    server = await serve(modes('AlwaysDeny', 'AlwaysAllow'));
    expect((await server.request('GET', '/api/v1/nodes')).status).to.equal(403);
    await server.close();
    server = await serve(modes('AlwaysAllow', 'AlwaysDeny'));
    expect((await server.request('GET', '/api/v1/nodes')).status).to.equal(200);
    await server.close();
    const silent: Authorizer = {
      name: 'silent',
      async authorize() {
        return { decision: 'NoOpinion', reason: 'no rule matched' };
      },
    };
    server = await serve(silent);
    const res = await server.request('GET', '/api/v1/nodes');
    expect(res.status).to.equal(403);
    expect(res.json().message).to.match(/at the cluster scope: no rule matched$/);
  });

  it('lets an authorizer that waits learn that the client went away', async () => {
    let asked!: () => void;
    const waiting = new Promise<void>((resolve) => {
      asked = resolve;
    });
    let sawAbort!: () => void;
    const learned = new Promise<void>((resolve) => {
      sawAbort = resolve;
    });
    const waits: Authorizer = {
      name: 'waits',
      async authorize(_attrs, callerGone) {
        const signal = callerGone!();
        asked();
        await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        sawAbort();
        return NO_OPINION;
      },
    };
    server = await serve(waits);
    const req = http.request(`${server.url}/api/v1/namespaces`, { headers: { authorization: 'Bearer alice-token' } });
    req.on('error', () => undefined);
    req.end();
    await waiting;
    req.destroy();
    await learned;
  });
});
