// The Webhook authorizer against real local HTTPS webhooks (test/helpers/webhook-server.ts), configured through an
// AuthorizationConfiguration file as the server builds it: allow, deny and no-opinion answers, the review bodies in v1
// and v1beta1, the decision cache (counted calls), timeouts, crashes, garbage and HTTP errors under both failure
// policies, match conditions, two webhooks in order, the caller going away, and the metrics all of that leaves.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Attributes, Authorizer, RuleResolver } from '../../policies/authorizer.js';
import { startAuthorization, type AuthorizerDeps } from '../../policies/build-authorizer.js';
import type { SharedDecisions } from '../../policies/webhook/decision-cache.js';
import type { AuthorizationChain } from '../../policies/config/authorization-chain.js';
import type { AuthorizationMetrics } from '../../policies/metrics.js';
import { createAuthorizationMetrics } from '../../gateway/metrics/authorization-metrics.js';
import {
  startTestWebhook,
  webhookEntry,
  type TestWebhook,
  type TestWebhookOptions,
  type WebhookBehaviour,
} from '../helpers/webhook-server.js';
import { issueClientCert, makeCA } from '../helpers/pki.js';

const ALICE = {
  name: 'alice',
  uid: 'alice-uid',
  groups: ['dev', 'system:authenticated'],
  extra: { scopes: ['a', 'b'] },
};

function podAttrs(overrides: Partial<Attributes> = {}): Attributes {
  return {
    user: ALICE,
    verb: 'get',
    isResourceRequest: true,
    path: '/api/v1/namespaces/team/pods/web',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'pods',
    subresource: '',
    namespace: 'team',
    name: 'web',
    ...overrides,
  };
}

const healthzAttrs = (): Attributes => ({
  user: ALICE,
  verb: 'get',
  isResourceRequest: false,
  path: '/healthz',
  apiGroup: '',
  apiVersion: '',
  resource: '',
  subresource: '',
  namespace: '',
  name: '',
});

/** Two attempts, a few milliseconds apart: retries are visible in the call counts without slowing the tests. */
const RETRY = { initialMs: 5, factor: 1, jitter: 0, steps: 2 };

const ALLOW: WebhookBehaviour = { status: { allowed: true, reason: 'hook says yes' } };
const DENY: WebhookBehaviour = { status: { allowed: false, denied: true, reason: 'hook says no' } };
const NO_OPINION: WebhookBehaviour = { status: { allowed: false, reason: 'not mine' } };

describe('authorization webhook', function () {
  this.timeout(30_000);
  let dir: string;
  const hooks: TestWebhook[] = [];
  const chains: AuthorizationChain[] = [];
  let metrics: AuthorizationMetrics;
  let logs: string[];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    metrics = createAuthorizationMetrics();
    logs = [];
  });
  afterEach(async () => {
    for (const c of chains.splice(0)) c.close();
    for (const h of hooks.splice(0)) await h.close();
  });

  const hook = async (behave: TestWebhook['behave'], opts: TestWebhookOptions = {}) => {
    const h = await startTestWebhook(behave, opts);
    hooks.push(h);
    return h;
  };

  let configSeq = 0;
  const chain = async (authorizers: unknown[], deps: AuthorizerDeps = {}): Promise<Authorizer & RuleResolver> => {
    const file = path.join(dir, `authz-${++configSeq}.yaml`);
    await writeFile(
      file,
      JSON.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers,
      }),
    );
    const c = startAuthorization(
      { configFile: file, modes: [] },
      { metrics, log: (l) => logs.push(l), webhookRetryBackoff: RETRY, ...deps },
    );
    chains.push(c);
    return c.authorizer;
  };

  const metricsText = () => metrics.registry.metrics();

  describe('answers', () => {
    it('allows, with the reason, after POSTing a v1 SubjectAccessReview built from the attributes', async () => {
      const h = await hook(() => ALLOW, { token: 'webhook-secret-token' });
      const authz = await chain([webhookEntry('hook', h)]);
      expect(await authz.authorize(podAttrs())).to.deep.equal({ decision: 'Allow', reason: 'hook says yes' });
      expect(h.received).to.have.length(1);
      expect(h.received[0].headers.authorization).to.equal('Bearer webhook-secret-token');
      expect(h.received[0].body).to.deep.equal({
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: 'alice',
          uid: 'alice-uid',
          groups: ['dev', 'system:authenticated'],
          extra: { scopes: ['a', 'b'] },
          resourceAttributes: { namespace: 'team', verb: 'get', version: 'v1', resource: 'pods', name: 'web' },
        },
      });
    });

    it('presents the client certificate of its client configuration to a webhook that requires one', async () => {
      const clientCa = await makeCA('webhook-client-ca');
      const client = await issueClientCert(clientCa, { cn: 'gatehouse' });
      const h = await hook(() => ALLOW, { clientCa, client });
      const authz = await chain([webhookEntry('mtls', h)]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Allow');
      // Without the certificate the handshake fails: a connection error, retried, then the failure policy.
      const bare = await hook(() => ALLOW, { clientCa });
      const refused = await chain([webhookEntry('bare', bare, { failurePolicy: 'Deny' })]);
      expect((await refused.authorize(podAttrs())).evaluationError).to.equal(
        'authorization webhook "bare" failed (error)',
      );
      expect(bare.received).to.have.length(0);
    });

    it('sends non-resource requests as nonResourceAttributes', async () => {
      const h = await hook(() => ALLOW);
      const authz = await chain([webhookEntry('hook', h)]);
      await authz.authorize(healthzAttrs());
      expect(h.received[0].body.spec.nonResourceAttributes).to.deep.equal({ path: '/healthz', verb: 'get' });
      expect(h.received[0].body.spec).not.to.have.property('resourceAttributes');
    });

    it('speaks v1beta1 (groups as `group`) and reads an answer in authorization.k8s.io/v1beta1', async () => {
      const h = await hook(() => ({ status: { allowed: true }, apiVersion: 'authorization.k8s.io/v1beta1' }));
      const authz = await chain([webhookEntry('hook', h, { subjectAccessReviewVersion: 'v1beta1' })]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Allow');
      const body = h.received[0].body;
      expect(body.apiVersion).to.equal('authorization.platform.io/v1beta1');
      expect(body.spec.group).to.deep.equal(['dev', 'system:authenticated']);
      expect(body.spec).not.to.have.property('groups');
    });

    it('denies with the webhook reason and stops the chain', async () => {
      const h = await hook(() => DENY);
      const authz = await chain([webhookEntry('hook', h), { type: 'AlwaysAllow', name: 'allow' }]);
      expect(await authz.authorize(podAttrs())).to.deep.equal({ decision: 'Deny', reason: 'hook says no' });
    });

    it('passes on with no opinion to the next authorizer', async () => {
      const h = await hook(() => NO_OPINION);
      const authz = await chain([webhookEntry('hook', h), { type: 'AlwaysAllow', name: 'allow' }]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(1);
    });

    it('lets system:masters through without asking the webhook', async () => {
      const h = await hook(() => DENY);
      const authz = await chain([webhookEntry('hook', h)]);
      const admin = { name: 'admin', groups: ['system:masters'] };
      expect((await authz.authorize(podAttrs({ user: admin }))).decision).to.equal('Allow');
      expect(h.received).to.have.length(0);
    });
  });

  describe('cache', () => {
    it('answers a repeated review from the cache, and asks again for a different one', async () => {
      const h = await hook(() => ALLOW);
      const authz = await chain([webhookEntry('hook', h)]);
      await authz.authorize(podAttrs());
      await authz.authorize(podAttrs());
      expect(h.received).to.have.length(1);
      await authz.authorize(podAttrs({ name: 'other' }));
      expect(h.received).to.have.length(2);
      expect(await metricsText()).to.match(/apiserver_authorization_webhook_cache_total\{name="hook",result="hit"\} 1/);
    });

    it('caches denials too, and nothing when caching is turned off', async () => {
      const h = await hook(() => DENY);
      const authz = await chain([webhookEntry('hook', h)]);
      await authz.authorize(podAttrs());
      await authz.authorize(podAttrs());
      expect(h.received).to.have.length(1);

      const h2 = await hook(() => DENY);
      const uncached = await chain([webhookEntry('hook2', h2, { cacheUnauthorizedRequests: false })]);
      await uncached.authorize(podAttrs());
      await uncached.authorize(podAttrs());
      expect(h2.received).to.have.length(2);
    });

    it("asks the replicas' shared cache after its own, shares what it learns for its TTL, and asks the webhook without it", async () => {
      const stored = new Map<string, Awaited<ReturnType<SharedDecisions['get']>>>();
      let reachable = true;
      const sharedDecisions: SharedDecisions = {
        get: async (key) => (reachable ? stored.get(key) : undefined),
        set: (key, status, ttlMs) => void stored.set(key, { status, ttlMs }),
      };
      const h = await hook(() => ALLOW);
      const entry = webhookEntry('hook', h, { authorizedTTL: '2m' });
      for (let replica = 0; replica < 2; replica++)
        expect((await (await chain([entry], { sharedDecisions })).authorize(podAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(1);
      expect([...stored.keys()]).to.satisfy((keys: string[]) => keys.length === 1 && /^[0-9a-f]{64}$/.test(keys[0]));
      expect([...stored.values()][0]?.ttlMs).to.equal(120_000);
      reachable = false;
      expect((await (await chain([entry], { sharedDecisions })).authorize(podAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(2);
    });

    it('does not cache failures', async () => {
      let answer: WebhookBehaviour = { httpStatus: 500 };
      const h = await hook(() => answer);
      const authz = await chain([webhookEntry('hook', h)]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('NoOpinion');
      expect(h.received).to.have.length(2); // one retry
      answer = ALLOW;
      expect((await authz.authorize(podAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(3);
    });
  });

  describe('failures and the failure policy', () => {
    // `attempts`: calls per review (connection failures and 5xx are retried once with the test backoff).
    const cases: { what: string; behaviour: WebhookBehaviour; kind: string; attempts: number }[] = [
      { what: 'a webhook that hangs past the timeout', behaviour: 'hang', kind: 'timeout', attempts: 1 },
      { what: 'a webhook that closes the connection', behaviour: 'crash', kind: 'error', attempts: 2 },
      { what: 'an answer that is not JSON', behaviour: 'garbage', kind: 'malformed', attempts: 1 },
      { what: 'an HTTP 500', behaviour: { httpStatus: 500, body: 'oops' }, kind: 'error', attempts: 2 },
      { what: 'an HTTP 400', behaviour: { httpStatus: 400 }, kind: 'error', attempts: 1 },
      {
        what: 'a status that is not a SubjectAccessReview status',
        behaviour: { status: { allowed: 'yes' } },
        kind: 'malformed',
        attempts: 1,
      },
    ];
    for (const { what, behaviour, kind, attempts } of cases) {
      it(`${what}: NoOpinion continues, Deny denies`, async () => {
        const h = await hook(() => behaviour);
        const lenient = await chain([
          webhookEntry('lenient', h, { timeout: '300ms' }),
          { type: 'AlwaysAllow', name: 'allow' },
        ]);
        const strict = await chain([
          webhookEntry('strict', h, { timeout: '300ms', failurePolicy: 'Deny' }),
          { type: 'AlwaysAllow', name: 'allow' },
        ]);
        const passed = await lenient.authorize(podAttrs());
        expect(passed.decision).to.equal('Allow');
        const denied = await strict.authorize(podAttrs());
        expect(denied.decision).to.equal('Deny');
        expect(denied.evaluationError).to.equal(`authorization webhook "strict" failed (${kind})`);
        expect(h.received).to.have.length(2 * attempts);
        const text = await metricsText();
        expect(text).to.include(
          `apiserver_authorization_webhook_evaluations_fail_open_total{name="strict",result="${kind}"} 1`,
        );
        expect(logs.join('\n')).to.include(`authorization webhook "strict" ${kind}`);
      });
    }

    it('retries a 503 and takes the answer that follows', async () => {
      let calls = 0;
      const h = await hook(() => (++calls === 1 ? { httpStatus: 503 } : ALLOW));
      const authz = await chain([webhookEntry('hook', h, { failurePolicy: 'Deny' })]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(2);
      const text = await metricsText();
      expect(text).to.include('apiserver_authorization_webhook_requests_total{name="hook",code="503"} 1');
      expect(text).to.include('apiserver_authorization_webhook_requests_total{name="hook",code="200"} 1');
    });

    it('stops waiting when the caller goes away, without applying the failure policy', async () => {
      const h = await hook(() => 'hang');
      const authz = await chain([webhookEntry('hook', h, { timeout: '30s', failurePolicy: 'Deny' })]);
      const controller = new AbortController();
      const pending = authz.authorize(podAttrs(), () => controller.signal);
      await new Promise<void>((resolve) => {
        const check = () => (h.received.length > 0 ? resolve() : setImmediate(check));
        check();
      });
      controller.abort();
      expect((await pending).decision).to.equal('NoOpinion');
      expect(await metricsText()).to.include(
        'apiserver_authorization_webhook_evaluations_total{name="hook",result="canceled"} 1',
      );
    });
  });

  describe('match conditions', () => {
    it('skips the webhook when a condition is false and calls it when all are true', async () => {
      const h = await hook(() => DENY);
      const authz = await chain([
        webhookEntry('hook', h, {
          matchConditions: [
            { expression: "has(request.resourceAttributes) && request.resourceAttributes.namespace == 'team'" },
            { expression: "request.user != 'system:anonymous'" },
          ],
        }),
        { type: 'AlwaysAllow', name: 'allow' },
      ]);
      expect((await authz.authorize(podAttrs({ namespace: 'elsewhere' }))).decision).to.equal('Allow');
      expect((await authz.authorize(healthzAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(0);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Deny');
      expect(h.received).to.have.length(1);
      expect(await metricsText()).to.include(
        'apiserver_authorization_match_condition_exclusions_total{type="Webhook",name="hook"} 2',
      );
    });

    it('applies the failure policy when a condition errors and none is false, without calling', async () => {
      const h = await hook(() => ALLOW);
      // A key the request's extra does not hold: an evaluation error (as upstream's typed request gives one).
      const failing = { matchConditions: [{ expression: "request.extra['tenant'][0] == 'blue'" }] };
      const strict = await chain([
        webhookEntry('strict', h, { ...failing, failurePolicy: 'Deny' }),
        { type: 'AlwaysAllow', name: 'allow' },
      ]);
      const lenient = await chain([webhookEntry('lenient', h, failing), { type: 'AlwaysAllow', name: 'allow' }]);
      expect((await strict.authorize(healthzAttrs())).decision).to.equal('Deny');
      expect((await lenient.authorize(healthzAttrs())).decision).to.equal('Allow');
      expect(h.received).to.have.length(0);
      expect(await metricsText()).to.include(
        'apiserver_authorization_match_condition_evaluation_errors_total{type="Webhook",name="strict"} 1',
      );
      // A false condition wins over an erroring one: the webhook is skipped, not failed.
      const skipped = await chain([
        webhookEntry('skipped', h, {
          failurePolicy: 'Deny',
          matchConditions: [...failing.matchConditions, { expression: "request.user == 'nobody'" }],
        }),
        { type: 'AlwaysAllow', name: 'allow' },
      ]);
      expect((await skipped.authorize(healthzAttrs())).decision).to.equal('Allow');
    });
  });

  describe('several webhooks', () => {
    it('asks them in order, each with its own settings', async () => {
      const first = await hook(() => NO_OPINION);
      const second = await hook(() => ALLOW);
      const authz = await chain([
        webhookEntry('first', first, { subjectAccessReviewVersion: 'v1beta1' }),
        webhookEntry('second', second),
      ]);
      expect(await authz.authorize(podAttrs())).to.deep.equal({ decision: 'Allow', reason: 'hook says yes' });
      expect(first.received[0].body.apiVersion).to.equal('authorization.platform.io/v1beta1');
      expect(second.received[0].body.apiVersion).to.equal('authorization.platform.io/v1');
      expect(await metricsText()).to.include(
        'apiserver_authorization_decisions_total{type="Webhook",name="second",decision="allowed"} 1',
      );
    });

    it('does not ask the second once the first has decided', async () => {
      const first = await hook(() => DENY);
      const second = await hook(() => ALLOW);
      const authz = await chain([webhookEntry('first', first), webhookEntry('second', second)]);
      expect((await authz.authorize(podAttrs())).decision).to.equal('Deny');
      expect(second.received).to.have.length(0);
    });
  });

  describe('rules', () => {
    it('reports the union as incomplete when a webhook is configured', async () => {
      const h = await hook(() => ALLOW);
      const authz = await chain([webhookEntry('hook', h), { type: 'AlwaysDeny', name: 'deny' }]);
      const rules = await authz.rulesFor(ALICE, 'team');
      expect(rules.incomplete).to.equal(true);
      expect(rules.resourceRules).to.deep.equal([]);
      expect(rules.evaluationError).to.include('webhook authorizer does not support user rule resolution');
    });
  });
});
