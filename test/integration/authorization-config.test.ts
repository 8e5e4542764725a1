// --authorization-config end to end: the reloading chain (a valid change swaps the chain, an invalid one keeps the
// last good configuration and is counted), a server started with a webhook configuration deciding real requests, the
// start-up errors, and /metrics and /readyz while a bad file sits on disk.
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Attributes } from '../../policies/authorizer.js';
import { startAuthorization } from '../../policies/build-authorizer.js';
import type { AuthorizationChain } from '../../policies/config/authorization-chain.js';
import { createAuthorizationMetrics } from '../../gateway/metrics/authorization-metrics.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { expectFailure } from '../helpers/api.js';
import { startTestWebhook, webhookEntry, type TestWebhook } from '../helpers/webhook-server.js';

const config = (authorizers: unknown[]) =>
  JSON.stringify({ apiVersion: 'apiserver.config.platform.io/v1', kind: 'AuthorizationConfiguration', authorizers });

const attrs: Attributes = {
  user: { name: 'alice', groups: [] },
  verb: 'list',
  isResourceRequest: true,
  path: '',
  apiGroup: '',
  apiVersion: 'v1',
  resource: 'pods',
  subresource: '',
  namespace: 'default',
  name: '',
};

describe('--authorization-config', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-authz-config-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  describe('reloading', () => {
    let chain: AuthorizationChain | undefined;
    afterEach(() => chain?.close());

    /** Starts a chain on `file` and returns a function that resolves at the next reload attempt. */
    const start = (file: string, metrics = createAuthorizationMetrics(), logs: string[] = []) => {
      let waiter: ((r: { ok: boolean; error?: string }) => void) | undefined;
      chain = startAuthorization(
        { configFile: file, modes: [] },
        { metrics, log: (l) => logs.push(l) },
        {
          onReload: (r) => waiter?.(r),
        },
      );
      const next = () =>
        new Promise<{ ok: boolean; error?: string }>((resolve) => {
          waiter = resolve;
        });
      return { authorizer: chain.authorizer, next, metrics, logs };
    };

    it('swaps the whole chain when the file changes to a valid configuration (also when replaced by rename)', async () => {
      const file = path.join(dir, 'authz.yaml');
      await writeFile(file, config([{ type: 'AlwaysDeny', name: 'deny' }]));
      const { authorizer, next, metrics } = start(file);
      expect((await authorizer.authorize(attrs)).decision).to.equal('Deny');

      let reloaded = next();
      await writeFile(file, config([{ type: 'AlwaysAllow', name: 'allow' }]));
      expect(await reloaded).to.deep.equal({ ok: true });
      expect((await authorizer.authorize(attrs)).decision).to.equal('Allow');

      reloaded = next();
      await writeFile(path.join(dir, 'authz.yaml.tmp'), config([{ type: 'AlwaysDeny', name: 'deny-again' }]));
      await rename(path.join(dir, 'authz.yaml.tmp'), file);
      expect((await reloaded).ok).to.equal(true);
      expect((await authorizer.authorize(attrs)).decision).to.equal('Deny');
      const text = await metrics.registry.metrics();
      expect(text).to.include(
        'apiserver_authorization_config_controller_automatic_reloads_total{status="success",apiserver_id_hash=""} 2',
      );
      expect(text).to.match(
        /apiserver_authorization_config_controller_automatic_reload_last_timestamp_seconds\{status="success",apiserver_id_hash=""\} \d/,
      );
    });

    it('keeps the last good configuration when the new one is invalid, and reports it', async () => {
      const file = path.join(dir, 'authz.yaml');
      await writeFile(file, config([{ type: 'AlwaysAllow', name: 'allow' }]));
      const { authorizer, next, metrics, logs } = start(file);
      const reloaded = next();
      await writeFile(file, config([{ type: 'AlwaysAllow', name: 'Bad_Name' }]));
      const result = await reloaded;
      expect(result.ok).to.equal(false);
      expect(result.error).to.include('authorizers[0].name: Invalid value: "Bad_Name"');
      expect((await authorizer.authorize(attrs)).decision).to.equal('Allow');
      expect(await metrics.registry.metrics()).to.include(
        'apiserver_authorization_config_controller_automatic_reloads_total{status="failure",apiserver_id_hash=""} 1',
      );
      expect(logs.join('\n')).to.include('keeping the previous configuration');
    });

    it('fails at start-up on an invalid or missing file', async () => {
      const file = path.join(dir, 'authz.yaml');
      await writeFile(file, config([{ type: 'Webhook', name: 'w' }]));
      expect(() => startAuthorization({ configFile: file, modes: [] })).to.throw(
        'authorizers[0].webhook: Required value: required when type=Webhook',
      );
      expect(() => startAuthorization({ configFile: path.join(dir, 'none.yaml'), modes: [] })).to.throw(
        /unable to read authorization configuration .*ENOENT/,
      );
    });
  });

  describe('a server with a webhook configuration', () => {
    let gh: TestGatehouse;
    let hook: TestWebhook;
    let file: string;
    const TOKENS = { alice: 'alice-token-1234567890', bob: 'bob-token-1234567890' };

    beforeEach(async () => {
      hook = await startTestWebhook((review) =>
        review?.spec?.user === 'alice'
          ? { status: { allowed: true } }
          : { status: { allowed: false, denied: true, reason: 'bob is not welcome' } },
      );
      const tokens = path.join(dir, 'tokens.csv');
      await writeFile(tokens, `${TOKENS.alice},alice,1\n${TOKENS.bob},bob,2\n`);
      file = path.join(dir, 'authz.yaml');
      await writeFile(file, config([webhookEntry('people', hook)]));
      gh = await startTestGatehouse(['--authorization-config', file, '--token-auth-file', tokens]);
    });
    afterEach(async () => {
      await gh?.close();
      await hook?.close();
    });

    it('lets the webhook decide real requests, with its reason in the 403', async () => {
      expect((await gh.request('GET', '/api/v1/namespaces', { token: TOKENS.alice })).status).to.equal(200);
      const denied = expectFailure(
        await gh.request('GET', '/api/v1/namespaces', { token: TOKENS.bob }),
        403,
        'Forbidden',
      );
      expect(denied.message).to.equal(
        'namespaces is forbidden: User "bob" cannot list resource "namespaces" in API group "" at the cluster scope: bob is not welcome',
      );
      // The admin credential is in system:masters: the webhook is not asked.
      const before = hook.received.length;
      expect((await gh.request('GET', '/api/v1/namespaces')).status).to.equal(200);
      expect(hook.received).to.have.length(before);
    });

    it('serves /metrics to an allowed caller and keeps /readyz green while an invalid file is on disk', async () => {
      await writeFile(file, config([{ type: 'Webhook', name: 'broken' }]));
      await gh.request('GET', '/api/v1/namespaces', { token: TOKENS.alice });
      const metrics = await gh.request('GET', '/metrics');
      expect(metrics.status).to.equal(200);
      expect(metrics.headers['content-type']).to.match(/^text\/plain/);
      expect(metrics.body).to.include(
        'apiserver_authorization_webhook_duration_seconds_bucket{le="0.005",name="people",result="success"}',
      );
      expect(metrics.body).to.include(
        'apiserver_authorization_decisions_total{type="Webhook",name="people",decision="allowed"}',
      );
      expect((await gh.request('GET', '/readyz')).status).to.equal(200);
      // The old chain still answers.
      expect((await gh.request('GET', '/api/v1/namespaces', { token: TOKENS.bob })).status).to.equal(403);
      // /metrics is authorized like any non-resource path.
      expectFailure(await gh.request('GET', '/metrics', { token: TOKENS.bob }), 403, 'Forbidden');
    });

    it('refuses to start when combined with --authorization-mode', async () => {
      let error: Error | undefined;
      try {
        const other = await startTestGatehouse(['--authorization-config', file, '--authorization-mode', 'AlwaysAllow']);
        await other.close();
      } catch (e) {
        error = e as Error;
      }
      expect(error?.message).to.equal(
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
      );
    });
  });

  it('starts with the legacy flags: mode Webhook with its client file', async () => {
    const hook = await startTestWebhook(() => ({
      status: { allowed: false, denied: true, reason: 'flag webhook says no' },
    }));
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, 'carol-token-1234567890,carol,3\n');
    const gh = await startTestGatehouse([
      '--authorization-mode',
      'Webhook',
      '--authorization-webhook-config-file',
      hook.kubeconfigPath,
      '--token-auth-file',
      tokens,
    ]);
    try {
      const res = await gh.request('GET', '/api/v1/namespaces', { token: 'carol-token-1234567890' });
      expect(expectFailure(res, 403, 'Forbidden').message).to.include('flag webhook says no');
      expect(hook.received[0].body.apiVersion).to.equal('authorization.platform.io/v1beta1');
    } finally {
      await gh.close();
      await hook.close();
    }
  });

  it('serves with mode ABAC from a policy file, and refuses to start on a malformed line, naming it', async () => {
    const tokens = path.join(dir, 'tokens.csv');
    await writeFile(tokens, 'dana-token-1234567890,dana,4\n');
    const policyFile = path.join(dir, 'policy.jsonl');
    const line = (spec: unknown) =>
      JSON.stringify({ apiVersion: 'abac.authorization.kubernetes.io/v1beta1', kind: 'Policy', spec });
    await writeFile(
      policyFile,
      `# dana reads namespaces\n${line({ user: 'dana', resource: 'namespaces', apiGroup: '', namespace: '*', readonly: true })}\n`,
    );
    const gh = await startTestGatehouse([
      '--authorization-mode',
      'ABAC',
      '--authorization-policy-file',
      policyFile,
      '--token-auth-file',
      tokens,
    ]);
    try {
      expect((await gh.request('GET', '/api/v1/namespaces', { token: 'dana-token-1234567890' })).status).to.equal(200);
      const denied = expectFailure(
        await gh.request('DELETE', '/api/v1/namespaces/default', { token: 'dana-token-1234567890' }),
        403,
        'Forbidden',
      );
      expect(denied.message).to.include('No policy matched.');
    } finally {
      await gh.close();
    }
    await writeFile(
      policyFile,
      `${line({ user: 'dana', resource: '*', apiGroup: '*', namespace: '*' })}\n{"apiVersion": \n`,
    );
    let error: Error | undefined;
    try {
      await (
        await startTestGatehouse(['--authorization-mode', 'ABAC', '--authorization-policy-file', policyFile])
      ).close();
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).to.match(/^error reading policy file .*policy\.jsonl, line 2: not JSON/);
  });
});
