import { expect } from 'chai';
import type { Attributes, AuthorizationResult, Authorizer } from '../../policies/authorizer.js';
import {
  AUTHORIZER_TYPE,
  compileCel,
  createCelAuthorizer,
  evaluateWithAuthorizer,
  type CelDecisionFunction,
} from '../../policies/cel/index.js';

const user = { name: 'alice', groups: ['dev'] };

function program(expression: string, resultTypes = ['bool']) {
  return compileCel(expression, {
    variables: { authorizer: AUTHORIZER_TYPE, request: 'map<string, dyn>' },
    resultTypes,
    runtimeCostBudget: 10_000_000,
  });
}

describe('CEL authorizer library', () => {
  it('presets authorizer.requestResource to the request it was given, which chains like any resource check', () => {
    const seen: Attributes[] = [];
    const decide: CelDecisionFunction = (a) => {
      seen.push(a);
      return { decision: a.verb === 'approve' ? 'Allow' : 'NoOpinion', reason: '' };
    };
    const request = { group: 'apps', resource: 'replicasets', subresource: 'scale', namespace: 'ns', name: 'web' };
    const authorizer = createCelAuthorizer(user, decide, request);
    expect(
      program("authorizer.requestResource.check('approve').allowed()").evaluate({ authorizer, request: {} }),
    ).to.equal(true);
    expect(seen[0]).to.include({ verb: 'approve', apiGroup: 'apps', resource: 'replicasets', subresource: 'scale' });
    expect(seen[0]).to.include({ namespace: 'ns', name: 'web', apiVersion: '*' });
    expect(
      program("authorizer.requestResource.name('other').check('get').allowed()").evaluate({ authorizer, request: {} }),
    ).to.equal(false);
    expect(seen[1]).to.include({ verb: 'get', name: 'other', resource: 'replicasets' });
  });

  it('checks a resource with its chained attributes and reads the decision', () => {
    const seen: Attributes[] = [];
    const decide: CelDecisionFunction = (a) => {
      seen.push(a);
      return a.verb === 'get' ? { decision: 'Allow', reason: 'rule 1' } : { decision: 'Deny', reason: 'no rule' };
    };
    const authorizer = createCelAuthorizer(user, decide);
    const p = program(
      'authorizer.group("apps").resource("deployments").subresource("scale").namespace("ns").name("web").check("get")',
      ['dyn'],
    );
    expect(p.evaluate({ authorizer, request: {} })).to.deep.equal({ allowed: true, reason: 'rule 1' });
    expect(seen[0]).to.deep.equal({
      user,
      verb: 'get',
      isResourceRequest: true,
      path: '',
      apiGroup: 'apps',
      apiVersion: '*',
      resource: 'deployments',
      subresource: 'scale',
      namespace: 'ns',
      name: 'web',
    });
    const denied = program('authorizer.group("").resource("pods").check("delete").reason()', ['string']);
    expect(denied.evaluate({ authorizer, request: {} })).to.equal('no rule');
    expect(
      program('authorizer.group("").resource("pods").check("delete").allowed()').evaluate({ authorizer, request: {} }),
    ).to.equal(false);
  });

  it('checks non-resource paths and asks as a service account', () => {
    const seen: Attributes[] = [];
    const authorizer = createCelAuthorizer(user, (a) => (seen.push(a), { decision: 'Allow', reason: '' }));
    const p = program('authorizer.serviceAccount("kube-system", "builder").path("/healthz").check("get").allowed()');
    expect(p.evaluate({ authorizer, request: {} })).to.equal(true);
    expect(seen[0].user).to.deep.equal({
      name: 'system:serviceaccount:kube-system:builder',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'],
    });
    expect(seen[0]).to.include({ isResourceRequest: false, path: '/healthz', verb: 'get' });
  });

  it('reports a failing decision function as an errored decision', () => {
    const authorizer = createCelAuthorizer(user, () => {
      throw new Error('webhook unreachable');
    });
    const p = program('authorizer.path("/x").check("get")', ['dyn']);
    expect(p.evaluate({ authorizer, request: {} })).to.deep.equal({ allowed: false, reason: '' });
    expect(program('authorizer.path("/x").check("get").errored()').evaluate({ authorizer, request: {} })).to.equal(
      true,
    );
    expect(
      program('authorizer.path("/x").check("get").error()', ['string']).evaluate({ authorizer, request: {} }),
    ).to.equal('webhook unreachable');
  });

  it('works inside all() on every evaluation, not only the first (synchronous checks)', () => {
    const authorizer = createCelAuthorizer(user, (a) => ({
      decision: a.resource === 'forbidden' ? 'Deny' : 'Allow',
      reason: '',
    }));
    const p = program('request.resources.all(r, authorizer.group("").resource(r).check("get").allowed())');
    for (let i = 0; i < 3; i++) {
      expect(p.evaluate({ authorizer, request: { resources: ['pods', 'secrets'] } }), `evaluation ${i}`).to.equal(true);
      expect(p.evaluate({ authorizer, request: { resources: ['pods', 'forbidden'] } }), `evaluation ${i}`).to.equal(
        false,
      );
    }
  });

  it('pre-resolves the checks of an async Authorizer and then evaluates with them', async () => {
    const asked: string[] = [];
    const asyncAuthorizer: Authorizer = {
      name: 'test',
      async authorize(a): Promise<AuthorizationResult> {
        asked.push(`${a.user.name}:${a.verb}:${a.resource}`);
        return { decision: a.resource === 'secrets' ? 'Deny' : 'Allow', reason: `about ${a.resource}` };
      },
    };
    const p = program('request.resources.all(r, authorizer.group("").resource(r).check("list").allowed())');
    const allowed = await evaluateWithAuthorizer(asyncAuthorizer, user, (authorizer) =>
      p.evaluate({ authorizer, request: { resources: ['pods', 'configmaps'] } }),
    );
    expect(allowed).to.equal(true);
    expect(asked.sort()).to.deep.equal(['alice:list:configmaps', 'alice:list:pods']);
    const denied = await evaluateWithAuthorizer(asyncAuthorizer, user, (authorizer) =>
      p.evaluate({ authorizer, request: { resources: ['pods', 'secrets'] } }),
    );
    expect(denied).to.equal(false);
    // A check that depends on an earlier decision is reached in a later round.
    const chained = program(
      'authorizer.group("").resource("pods").check("get").allowed() ? authorizer.group("").resource("nodes").check("get").reason() : "no"',
      ['string'],
    );
    expect(
      await evaluateWithAuthorizer(asyncAuthorizer, user, (authorizer) =>
        chained.evaluate({ authorizer, request: {} }),
      ),
    ).to.equal('about nodes');
  });

  it('does not let an error caused by a not yet answered check decide', async () => {
    const allowAll: Authorizer = { name: 'all', authorize: async () => ({ decision: 'Allow', reason: '' }) };
    const p = program('authorizer.path("/a").check("get").allowed() ? "ok" : string(int("not a number"))', ['string']);
    expect(
      await evaluateWithAuthorizer(allowAll, user, (authorizer) => p.evaluate({ authorizer, request: {} })),
    ).to.equal('ok');
    const denyAll: Authorizer = { name: 'none', authorize: async () => ({ decision: 'Deny', reason: '' }) };
    let failure: unknown;
    await evaluateWithAuthorizer(denyAll, user, (authorizer) => p.evaluate({ authorizer, request: {} })).catch((e) => {
      failure = e;
    });
    expect(failure).to.be.instanceOf(Error).with.property('message', 'int conversion error');
  });

  it('turns a failing async authorizer into errored decisions', async () => {
    const failing: Authorizer = {
      name: 'down',
      authorize: async () => {
        throw new Error('timeout');
      },
    };
    const p = program('authorizer.path("/metrics").check("get").errored()');
    expect(
      await evaluateWithAuthorizer(failing, user, (authorizer) => p.evaluate({ authorizer, request: {} })),
    ).to.equal(true);
  });
});
