// The access reviews over real HTTPS with JSON bodies, against a server whose only
// configured authorizer is a real local webhook: SelfSubjectAccessReview for allowed, unanswered and denied questions,
// SubjectAccessReview about another user, LocalSubjectAccessReview confined to its path's namespace,
// SelfSubjectRulesReview reporting `incomplete` because a webhook cannot list rules, the validation errors, the
// authorization.k8s.io alias, discovery, and kubectl auth can-i.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { expectFailure } from '../helpers/api.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { startTestWebhook, webhookEntry, type TestWebhook, type WebhookBehaviour } from '../helpers/webhook-server.js';

const GROUP = 'authorization.platform.io';
const BASE = `/apis/${GROUP}/v1`;
const TOKENS = { alice: 'alice-token-1234567890', bob: 'bob-token-1234567890' };
const REVIEW_GROUPS = new Set([GROUP, 'authorization.k8s.io']);

/** The webhook's policy: anyone may create reviews (bob no SubjectAccessReview); alice may get pods in team; bob may
 * not touch secrets. */
function policy(review: any): WebhookBehaviour {
  const { user, resourceAttributes: ra } = review?.spec ?? {};
  if (user === 'bob' && ra?.resource === 'subjectaccessreviews') return { status: { allowed: false } };
  if (ra && REVIEW_GROUPS.has(ra.group) && ra.verb === 'create') return { status: { allowed: true } };
  if (user === 'alice' && ra?.resource === 'pods' && ra.namespace === 'team' && ra.verb === 'get')
    return { status: { allowed: true, reason: 'alice reads team pods' } };
  if (user === 'bob' && ra?.resource === 'secrets')
    return { status: { allowed: false, denied: true, reason: 'no secrets for bob' } };
  return { status: { allowed: false } };
}

describe('access reviews', function () {
  this.timeout(60_000);
  let dir: string;
  let hook: TestWebhook;
  let gh: TestGatehouse;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-reviews-'));
    hook = await startTestWebhook(policy);
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, `${TOKENS.alice},alice,1,"dev"\n${TOKENS.bob},bob,2\n`);
    const config = path.join(dir, 'authz.yaml');
    await writeFile(
      config,
      JSON.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers: [
          webhookEntry('people', hook, { cacheAuthorizedRequests: false, cacheUnauthorizedRequests: false }),
        ],
      }),
    );
    gh = await startTestGatehouse(['--authorization-config', config, '--token-auth-file', tokens]);
  });
  after(async () => {
    await gh?.close();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = (resource: string, body: unknown, token?: string, base = BASE) =>
    gh.request('POST', `${base}/${resource}`, { body, token });
  const created = async (res: Awaited<ReturnType<typeof post>>) => {
    expect(res.status, res.body).to.equal(201);
    return res.json();
  };
  const ssar = (spec: unknown) => ({ apiVersion: `${GROUP}/v1`, kind: 'SelfSubjectAccessReview', spec });
  const sar = (spec: unknown) => ({ apiVersion: `${GROUP}/v1`, kind: 'SubjectAccessReview', spec });
  const podGet = { namespace: 'team', verb: 'get', resource: 'pods', name: 'web' };

  describe('SelfSubjectAccessReview', () => {
    it('answers allowed for what the webhook allows the caller, echoing the spec', async () => {
      const r = await created(
        await post('selfsubjectaccessreviews', ssar({ resourceAttributes: podGet }), TOKENS.alice),
      );
      expect(r).to.deep.equal({
        apiVersion: `${GROUP}/v1`,
        kind: 'SelfSubjectAccessReview',
        metadata: { creationTimestamp: null },
        spec: { resourceAttributes: podGet },
        status: { allowed: true, reason: 'alice reads team pods' },
      });
      const asked = hook.received.at(-1)!.body.spec;
      expect(asked).to.deep.include({ user: 'alice', groups: ['dev', 'system:authenticated'] });
      expect(asked.resourceAttributes).to.deep.equal(podGet);
    });

    it('answers not allowed (without denied) when nobody has an opinion, and denied with the reason on a Deny', async () => {
      const none = await created(
        await post(
          'selfsubjectaccessreviews',
          ssar({ resourceAttributes: { ...podGet, verb: 'delete' } }),
          TOKENS.alice,
        ),
      );
      expect(none.status).to.deep.equal({ allowed: false });
      const denied = await created(
        await post(
          'selfsubjectaccessreviews',
          ssar({ resourceAttributes: { namespace: 'team', verb: 'get', resource: 'secrets' } }),
          TOKENS.bob,
        ),
      );
      expect(denied.status).to.deep.equal({ allowed: false, denied: true, reason: 'no secrets for bob' });
    });

    it('reviews non-resource paths', async () => {
      const r = await created(
        await post(
          'selfsubjectaccessreviews',
          ssar({ nonResourceAttributes: { path: '/healthz', verb: 'get' } }),
          TOKENS.alice,
        ),
      );
      expect(r.status).to.deep.equal({ allowed: false });
      expect(hook.received.at(-1)!.body.spec.nonResourceAttributes).to.deep.equal({ path: '/healthz', verb: 'get' });
      // The admin is in system:masters.
      expect(
        (
          await created(
            await post('selfsubjectaccessreviews', ssar({ nonResourceAttributes: { path: '/healthz', verb: 'get' } })),
          )
        ).status.allowed,
      ).to.equal(true);
    });

    it('needs exactly one of resourceAttributes and nonResourceAttributes (422 naming the field)', async () => {
      const both = expectFailure(
        await post(
          'selfsubjectaccessreviews',
          ssar({ resourceAttributes: podGet, nonResourceAttributes: { path: '/', verb: 'get' } }),
          TOKENS.alice,
        ),
        422,
        'Invalid',
      );
      expect(both.message).to.equal(
        `SelfSubjectAccessReview.${GROUP} "" is invalid: spec.nonResourceAttributes: Invalid value: {"path":"/","verb":"get"}: cannot be specified in combination with resourceAttributes`,
      );
      expect(both.details.causes[0].field).to.equal('spec.nonResourceAttributes');
      const neither = expectFailure(await post('selfsubjectaccessreviews', ssar({}), TOKENS.alice), 422, 'Invalid');
      expect(neither.message).to.include(
        'spec.resourceAttributes: Invalid value: null: exactly one of nonResourceAttributes or resourceAttributes must be specified',
      );
      const named = expectFailure(
        await post(
          'selfsubjectaccessreviews',
          { ...ssar({ resourceAttributes: podGet }), metadata: { name: 'x' } },
          TOKENS.alice,
        ),
        422,
        'Invalid',
      );
      expect(named.message).to.include('metadata: Invalid value: {"name":"x"}: must be empty');
    });

    it('answers at the authorization.k8s.io/v1 alias path in that group', async () => {
      const r = await created(
        await post(
          'selfsubjectaccessreviews',
          {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SelfSubjectAccessReview',
            spec: { resourceAttributes: podGet },
          },
          TOKENS.alice,
          '/apis/authorization.k8s.io/v1',
        ),
      );
      expect(r.apiVersion).to.equal('authorization.k8s.io/v1');
      expect(r.status.allowed).to.equal(true);
    });
  });

  describe('SubjectAccessReview', () => {
    it('reviews another user for the caller', async () => {
      const alice = await created(
        await post('subjectaccessreviews', sar({ user: 'alice', groups: ['dev'], resourceAttributes: podGet })),
      );
      expect(alice.status).to.deep.equal({ allowed: true, reason: 'alice reads team pods' });
      const bob = await created(
        await post(
          'subjectaccessreviews',
          sar({
            user: 'bob',
            uid: '2',
            extra: { scopes: ['x'] },
            resourceAttributes: { namespace: 'team', verb: 'list', resource: 'secrets' },
          }),
        ),
      );
      expect(bob.status).to.include({ allowed: false, denied: true });
      expect(hook.received.at(-1)!.body.spec).to.deep.include({ user: 'bob', uid: '2', extra: { scopes: ['x'] } });
      // A group alone is a subject too: system:masters passes.
      expect(
        (
          await created(
            await post('subjectaccessreviews', sar({ groups: ['system:masters'], resourceAttributes: podGet })),
          )
        ).status.allowed,
      ).to.equal(true);
    });

    it('needs a user or a group', async () => {
      const e = expectFailure(await post('subjectaccessreviews', sar({ resourceAttributes: podGet })), 422, 'Invalid');
      expect(e.message).to.equal(
        `SubjectAccessReview.${GROUP} "" is invalid: spec.user: Invalid value: "": at least one of user or group must be specified`,
      );
    });

    it('is refused to a caller the authorizer does not allow to create it', async () => {
      const e = expectFailure(
        await post('subjectaccessreviews', sar({ user: 'alice', resourceAttributes: podGet }), TOKENS.bob),
        403,
        'Forbidden',
      );
      expect(e.message).to.equal(
        `subjectaccessreviews.${GROUP} is forbidden: User "bob" cannot create resource "subjectaccessreviews" in API group "${GROUP}" at the cluster scope`,
      );
    });
  });

  describe('LocalSubjectAccessReview', () => {
    const lsar = (spec: unknown, metadata?: unknown) => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'LocalSubjectAccessReview',
      ...(metadata ? { metadata } : {}),
      spec,
    });
    const LOCAL = 'namespaces/team/localsubjectaccessreviews';

    it('reviews within the path namespace, filling an empty one', async () => {
      const r = await created(
        await post(LOCAL, lsar({ user: 'alice', resourceAttributes: { verb: 'get', resource: 'pods' } })),
      );
      expect(r.metadata).to.deep.equal({ creationTimestamp: null, namespace: 'team' });
      expect(r.status.allowed).to.equal(true);
      expect(hook.received.at(-1)!.body.spec.resourceAttributes.namespace).to.equal('team');
    });

    it('refuses a different namespace in the spec or the metadata with 400', async () => {
      const spec = expectFailure(
        await post(LOCAL, lsar({ user: 'alice', resourceAttributes: { ...podGet, namespace: 'other' } })),
        400,
        'BadRequest',
      );
      expect(spec.message).to.equal('spec.resourceAttributes.namespace must match namespace: team');
      const meta = expectFailure(
        await post(LOCAL, lsar({ user: 'alice', resourceAttributes: podGet }, { namespace: 'other' })),
        400,
        'BadRequest',
      );
      expect(meta.message).to.equal(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    });

    it('is served only under a namespace, and the cluster-scoped reviews only outside one', async () => {
      expectFailure(
        await post('localsubjectaccessreviews', lsar({ user: 'alice', resourceAttributes: podGet })),
        404,
        'NotFound',
      );
      expectFailure(
        await post('namespaces/team/subjectaccessreviews', sar({ user: 'alice', resourceAttributes: podGet })),
        404,
        'NotFound',
      );
      expectFailure(await gh.request('GET', `${BASE}/${LOCAL}`), 405, 'MethodNotAllowed');
    });
  });

  describe('SelfSubjectRulesReview', () => {
    const ssrr = (namespace?: string) => ({
      apiVersion: `${GROUP}/v1`,
      kind: 'SelfSubjectRulesReview',
      spec: namespace === undefined ? {} : { namespace },
    });

    it('is incomplete when a webhook is configured, with what the other members can list', async () => {
      const alice = await created(await post('selfsubjectrulesreviews', ssrr('team'), TOKENS.alice));
      expect(alice.status).to.deep.equal({
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: 'webhook authorizer does not support user rule resolution',
      });
      // system:masters lists nothing of its own, as upstream's privileged-group authorizer resolves no rules: with
      // only a webhook configured, the admin's answer is as incomplete and empty as alice's.
      const admin = await created(await post('selfsubjectrulesreviews', ssrr('team')));
      expect(admin.status).to.deep.equal(alice.status);
    });

    it('needs a namespace', async () => {
      expect(
        expectFailure(await post('selfsubjectrulesreviews', ssrr(), TOKENS.alice), 400, 'BadRequest').message,
      ).to.equal('no namespace on request');
    });
  });

  it('lists the four reviews in discovery under authorization.platform.io/v1, then under the alias', async () => {
    const list = (await gh.request('GET', BASE)).json();
    const byName = Object.fromEntries(list.resources.map((r: any) => [r.name, r]));
    expect(byName.selfsubjectaccessreviews).to.include({ kind: 'SelfSubjectAccessReview', namespaced: false });
    expect(byName.subjectaccessreviews).to.include({ kind: 'SubjectAccessReview', namespaced: false });
    expect(byName.localsubjectaccessreviews).to.include({ kind: 'LocalSubjectAccessReview', namespaced: true });
    expect(byName.selfsubjectrulesreviews.verbs).to.deep.equal(['create']);
    const groups = (await gh.request('GET', '/apis')).json().groups.map((g: any) => g.name);
    expect(groups.indexOf('authorization.k8s.io')).to.be.greaterThan(groups.indexOf(GROUP)).and.greaterThan(-1);
    const alias = (await gh.request('GET', '/apis/authorization.k8s.io/v1')).json();
    expect(alias.resources.map((r: any) => r.name)).to.deep.equal(list.resources.map((r: any) => r.name));
  });

  describe('kubectl auth can-i', () => {
    let kubectl: Kubectl;
    // Stock kubectl POSTs the review as protobuf and does not fall back to JSON.
    before(async () => {
      kubectl = await createKubectl(gh.kubeconfigPath);
    });
    after(async () => kubectl?.cleanup());

    it('answers yes for the admin', async () => {
      const out = await kubectl.run(['auth', 'can-i', 'get', 'pods', '-n', 'team']);
      expect(out.stdout.trim()).to.equal('yes');
    });

    it('answers what the webhook decides for other users: yes, no, and no for a denial', async () => {
      expect(
        (await kubectl.ok(['auth', 'can-i', 'get', 'pods', '-n', 'team', '--token', TOKENS.alice])).trim(),
      ).to.equal('yes');
      const other = await kubectl.run(['auth', 'can-i', 'get', 'pods', '-n', 'elsewhere', '--token', TOKENS.alice]);
      expect([other.stdout.trim(), other.code]).to.deep.equal(['no', 1]);
      const denied = await kubectl.run(['auth', 'can-i', 'get', 'secrets', '-n', 'team', '--token', TOKENS.bob]);
      // kubectl prints the reason of a review that came back with one.
      expect([denied.stdout.trim(), denied.code]).to.deep.equal(['no - no secrets for bob', 1]);
    });
  });
});
