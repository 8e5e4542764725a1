// A full chain from --authorization-config (Node, RBAC, then a real local HTTPS webhook with a match condition) over
// real HTTPS: NodeRestriction follows the Node entry of the file; RBAC and the webhook both decide; the rules review
// lists RBAC's rules but is incomplete because of the webhook (kubectl auth can-i and --list included); /metrics after
// real traffic has decisions per authorizer, webhook latency, failures, cache hits and match-condition exclusions, and
// the reload counters and timestamps; a match condition of excessive estimated cost stops start-up and is refused on
// reload, naming the field. Apart: NodeRestriction follows a reload that adds the Node authorizer; the periodic
// reload catches a change no file event reports.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Attributes } from '../../policies/authorizer.js';
import { startAuthorization } from '../../policies/build-authorizer.js';
import { RELOAD_INTERVAL_MS } from '../../policies/config/authorization-chain.js';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { bindingBody, RBAC_V1, roleBody } from '../helpers/rbac.js';
import { startTestWebhook, webhookEntry, type TestWebhook, type WebhookBehaviour } from '../helpers/webhook-server.js';

const TOKENS: Record<string, string> = {
  erin: 'erin-token-0123456789',
  frank: 'frank-token-0123456789',
  skip: 'skip-token-0123456789',
  node: 'node-n1-token-0123456789',
};
const EXPENSIVE = "request.groups.exists(g, request.groups.exists(h, g.matches('^(a|b)+x$')))";

/** The webhook: erin may get and list resourcequotas; frank's reviews get garbage back; everyone else no opinion. */
function policy(review: any): WebhookBehaviour {
  const { user, resourceAttributes: ra } = review?.spec ?? {};
  if (user === 'frank') return 'garbage';
  if (user === 'erin' && ra?.resource === 'resourcequotas' && ['get', 'list'].includes(ra.verb))
    return { status: { allowed: true, reason: 'erin reads quotas' } };
  return { status: { allowed: false } };
}

const configText = (hook: TestWebhook, conditions: string[] = ["request.user != 'skip'"]) =>
  JSON.stringify({
    apiVersion: 'apiserver.config.platform.io/v1',
    kind: 'AuthorizationConfiguration',
    authorizers: [
      { type: 'Node', name: 'node' },
      { type: 'RBAC', name: 'rbac' },
      webhookEntry('people', hook, {
        authorizedTTL: '5m',
        unauthorizedTTL: '30s',
        matchConditions: conditions.map((expression) => ({ expression })),
      }),
    ],
  });

/** `name{labels} value` of one series, or undefined. */
function sample(metrics: string, series: string): number | undefined {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('authorization chain from --authorization-config: Node, RBAC and a webhook', function () {
  this.timeout(90_000);
  let dir: string;
  let hook: TestWebhook;
  let gh: TestGatehouse;
  let file: string;
  let ns: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-chain-'));
    hook = await startTestWebhook(policy);
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(
      tokens,
      [
        `${TOKENS.erin},erin,1`,
        `${TOKENS.frank},frank,2`,
        `${TOKENS.skip},skip,3`,
        `${TOKENS.node},system:node:n1,4,system:nodes`,
        '',
      ].join('\n'),
    );
    file = path.join(dir, 'authz.json');
    await writeFile(file, configText(hook));
    gh = await startTestGatehouse(['--authorization-config', file, '--token-auth-file', tokens]);
    ns = await createNamespace(gh, 'chain');
    await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, {
      body: roleBody('cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
    });
    await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
      body: bindingBody('erin-cm', 'Role', 'cm-reader', ['erin']),
    });
    await eventually(
      'erin may list configmaps',
      async () =>
        (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, { token: TOKENS.erin })).status === 200,
    );
  });
  after(async () => {
    await gh?.close();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const as = (who: string) => ({ token: TOKENS[who] });

  it('applies NodeRestriction because the file has a Node authorizer', async () => {
    const nodeBody = (name: string) => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });
    const own = await gh.request('POST', '/api/v1/nodes', { ...as('node'), body: nodeBody('n1') });
    expect(own.status, own.body).to.equal(201);
    expect((await gh.request('POST', '/api/v1/nodes', { body: nodeBody('n2') })).status).to.equal(201);
    const other = expectFailure(
      await gh.request('POST', '/api/v1/nodes', { ...as('node'), body: nodeBody('n3') }),
      403,
      'Forbidden',
    );
    expect(other.message).to.equal('nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    const patch = await gh.request('PATCH', '/api/v1/nodes/n2', {
      ...as('node'),
      body: { metadata: { labels: { a: 'b' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(expectFailure(patch, 403, 'Forbidden').message).to.contain(
      'User "system:node:n1" cannot patch resource "nodes" in API group "" at the cluster scope',
    );
  });

  it('lets RBAC and then the webhook decide, in order', async () => {
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('erin'))).status).to.equal(200);
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas`, as('erin'))).status).to.equal(200);
    const denied = expectFailure(
      await gh.request('GET', `/api/v1/namespaces/${ns}/secrets`, as('erin')),
      403,
      'Forbidden',
    );
    expect(denied.message).to.equal(
      `secrets is forbidden: User "erin" cannot list resource "secrets" in API group "" in the namespace "${ns}"`,
    );
    // The garbage answer falls to failurePolicy NoOpinion: 403, not a 500.
    expectFailure(await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas`, as('frank')), 403, 'Forbidden');
    // The match condition is false for `skip`: the webhook is not called at all.
    const calls = hook.received.length;
    expectFailure(await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas`, as('skip')), 403, 'Forbidden');
    expect(hook.received).to.have.length(calls);
  });

  it("answers rules reviews with RBAC's rules, incomplete because of the webhook; kubectl auth can-i agrees", async () => {
    const res = await gh.request('POST', '/apis/authorization.platform.io/v1/selfsubjectrulesreviews', {
      ...as('erin'),
      body: { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } },
    });
    expect(res.status, res.body).to.equal(201);
    const { status } = res.json();
    expect(status.incomplete).to.equal(true);
    expect(status.evaluationError).to.contain('webhook authorizer does not support user rule resolution');
    expect(status.resourceRules).to.deep.include({
      verbs: ['get', 'list'],
      apiGroups: [''],
      resources: ['configmaps'],
    });

    const kubectl: Kubectl = await createKubectl(gh.kubeconfigPath);
    try {
      const asErin = ['--token', TOKENS.erin, '-n', ns];
      expect((await kubectl.ok(['auth', 'can-i', 'get', 'resourcequotas', ...asErin])).trim()).to.equal('yes');
      expect((await kubectl.ok(['auth', 'can-i', 'list', 'configmaps', ...asErin])).trim()).to.equal('yes');
      const no = await kubectl.run(['auth', 'can-i', 'delete', 'configmaps', ...asErin]);
      expect([no.stdout.trim(), no.code]).to.deep.equal(['no', 1]);
      const list = await kubectl.run(['auth', 'can-i', '--list', ...asErin]);
      expect(list.code, list.stderr).to.equal(0);
      expect(list.stdout).to.match(/^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
    } finally {
      await kubectl.cleanup();
    }
  });

  it('exposes decisions, webhook latency, failures, cache hits and exclusions on /metrics after real traffic', async () => {
    // Same review twice: the second is a cache hit.
    for (let i = 0; i < 2; i++)
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/web`, as('erin'))).status).to.be.oneOf([
        200, 404,
      ]);
    const res = await gh.request('GET', '/metrics');
    expect(res.status).to.equal(200);
    const m = res.body;
    expect(
      sample(m, 'apiserver_authorization_decisions_total{type="RBAC",name="rbac",decision="allowed"}'),
    ).to.be.greaterThan(0);
    expect(
      sample(m, 'apiserver_authorization_decisions_total{type="Node",name="node",decision="allowed"}'),
    ).to.be.greaterThan(0);
    expect(
      sample(m, 'apiserver_authorization_decisions_total{type="Webhook",name="people",decision="allowed"}'),
    ).to.be.greaterThan(0);
    const latencyCount = sample(
      m,
      'apiserver_authorization_webhook_duration_seconds_count{name="people",result="success"}',
    );
    expect(latencyCount).to.be.greaterThan(0);
    const latencySum = sample(
      m,
      'apiserver_authorization_webhook_duration_seconds_sum{name="people",result="success"}',
    )!;
    expect(latencySum)
      .to.be.greaterThan(0)
      .and.lessThan(latencyCount! * 3);
    expect(
      sample(m, 'apiserver_authorization_webhook_evaluations_fail_open_total{name="people",result="malformed"}'),
    ).to.be.greaterThan(0);
    expect(sample(m, 'apiserver_authorization_webhook_cache_total{name="people",result="hit"}')).to.be.greaterThan(0);
    expect(sample(m, 'apiserver_authorization_webhook_cache_total{name="people",result="miss"}')).to.be.greaterThan(0);
    expect(
      sample(m, 'apiserver_authorization_match_condition_exclusions_total{type="Webhook",name="people"}'),
    ).to.be.greaterThan(0);
    // Labels carry authorizer names and outcomes only: no user, no token.
    for (const secret of [...Object.values(TOKENS), gh.adminToken]) expect(m).to.not.contain(secret);
    expect(m).to.not.match(/erin|frank/);
  });

  it('reports reloads: success with a timestamp, and a failure that keeps the chain and /readyz green', async () => {
    const t0 = Date.now() / 1000;
    await writeFile(file, configText(hook, ["request.user != 'skip'", "request.user != 'nobody'"]));
    const ok = await eventually('a successful reload', async () => {
      const m = (await gh.request('GET', '/metrics')).body;
      return sample(
        m,
        'apiserver_authorization_config_controller_automatic_reloads_total{status="success",apiserver_id_hash=""}',
      )
        ? m
        : undefined;
    });
    const stamp = sample(
      ok,
      'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status="success",apiserver_id_hash=""}',
    )!;
    expect(stamp)
      .to.be.at.least(Math.floor(t0))
      .and.at.most(Date.now() / 1000 + 1);

    // An expression of excessive estimated cost: refused, named, counted; the previous chain stays.
    await writeFile(file, configText(hook, ["request.user != 'skip'", EXPENSIVE]));
    const failed = await eventually('a failed reload', async () => {
      const m = (await gh.request('GET', '/metrics')).body;
      return sample(
        m,
        'apiserver_authorization_config_controller_automatic_reloads_total{status="failure",apiserver_id_hash=""}',
      )
        ? m
        : undefined;
    });
    expect(
      sample(
        failed,
        'apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds{status="failure",apiserver_id_hash=""}',
      ),
    ).to.be.at.least(Math.floor(t0));
    expect(gh.logs.join('\n')).to.contain('authorizers[2].webhook.matchConditions[1].expression');
    expect((await gh.request('GET', '/readyz')).status).to.equal(200);
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas`, as('erin'))).status).to.equal(200);
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('erin'))).status).to.equal(200);
  });

  it('refuses to start with a match condition of excessive estimated cost, naming the field', async () => {
    const bad = path.join(dir, 'expensive.json');
    await writeFile(bad, configText(hook, ["request.user != 'skip'", EXPENSIVE]));
    const error = await startTestGatehouse(['--authorization-config', bad]).then(
      async (other) => {
        await other.close();
        return undefined;
      },
      (e: Error) => e,
    );
    expect(error?.message).to.match(
      /authorizers\[2\]\.webhook\.matchConditions\[1\]\.expression: Invalid value: ".*": compilation failed: estimated cost \d+ exceeds the limit of 1000000/,
    );
    // The ordinary condition alone starts.
    const fine = path.join(dir, 'fine.json');
    await writeFile(fine, configText(hook, ["request.groups.exists(g, g.matches('^team-[a-z]+$'))"]));
    const other = await startTestGatehouse(['--authorization-config', fine]);
    await other.close();
  });
});

describe('NodeRestriction follows a reloaded --authorization-config', function () {
  this.timeout(60_000);
  let dir: string;
  let gh: TestGatehouse | undefined;
  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('holds node agents to their own Node once a reload adds the Node authorizer', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-node-reload-'));
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, `${TOKENS.node},system:node:n1,4,system:nodes\n`);
    const file = path.join(dir, 'authz.json');
    const doc = (authorizers: unknown[]) =>
      JSON.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers,
      });
    await writeFile(file, doc([{ type: 'RBAC', name: 'rbac' }]));
    gh = await startTestGatehouse(['--authorization-config', file, '--token-auth-file', tokens]);
    const create = (name: string) =>
      gh!.request('POST', '/api/v1/nodes', {
        token: TOKENS.node,
        body: { apiVersion: 'v1', kind: 'Node', metadata: { name } },
      });
    expectFailure(await create('n1'), 403, 'Forbidden');

    await writeFile(
      file,
      doc([
        { type: 'Node', name: 'node' },
        { type: 'RBAC', name: 'rbac' },
      ]),
    );
    await eventually('the Node authorizer in force', async () => (await create('n1')).status === 201);
    const other = expectFailure(await create('n9'), 403, 'Forbidden');
    expect(other.message).to.equal('nodes "n9" is forbidden: node "n1" is not allowed to modify node "n9"');
  });
});

describe('periodic reload of --authorization-config', () => {
  let dir: string;
  let close: (() => void) | undefined;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-poll-'));
  });
  after(async () => {
    close?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('picks up a change that the directory watch cannot see, by polling (every 60 s by default)', async () => {
    expect(RELOAD_INTERVAL_MS).to.equal(60_000);
    // The configured path is a symlink into another directory: a write to the target raises no event where the
    // watch looks, so only the poll can notice it.
    const real = path.join(dir, 'real');
    const linked = path.join(dir, 'linked');
    await Promise.all([mkdir(real), mkdir(linked)]);
    const target = path.join(real, 'authz.json');
    const doc = (type: string) =>
      JSON.stringify({
        apiVersion: 'apiserver.config.platform.io/v1',
        kind: 'AuthorizationConfiguration',
        authorizers: [{ type, name: 'only' }],
      });
    await writeFile(target, doc('AlwaysDeny'));
    await symlink(target, path.join(linked, 'authz.json'));
    let reloaded: ((r: { ok: boolean }) => void) | undefined;
    const next = new Promise<{ ok: boolean }>((resolve) => {
      reloaded = resolve;
    });
    const chain = startAuthorization(
      { configFile: path.join(linked, 'authz.json'), modes: [] },
      {},
      { intervalMs: 100, onReload: (r) => reloaded?.(r) },
    );
    close = () => chain.close();
    const attrs: Attributes = {
      user: { name: 'u', groups: [] },
      verb: 'get',
      isResourceRequest: true,
      path: '',
      apiGroup: '',
      apiVersion: 'v1',
      resource: 'configmaps',
      subresource: '',
      namespace: 'default',
      name: 'x',
    };
    expect((await chain.authorizer.authorize(attrs)).decision).to.equal('Deny');
    await writeFile(target, doc('AlwaysAllow'));
    expect(await next).to.deep.equal({ ok: true });
    expect((await chain.authorizer.authorize(attrs)).decision).to.equal('Allow');
    expect(chain.types()).to.deep.equal(['AlwaysAllow']);
  });
});
