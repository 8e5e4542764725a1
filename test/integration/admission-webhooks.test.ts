// Admission webhooks end to end over real HTTPS: configurations written through the API take effect through the
// informers (no restart), and a real HTTPS webhook in the test process answers. Each test narrows its webhook to a
// namespace of its own and removes its configuration afterwards. What a webhook does is read back where it lands:
// the stored object, the Status, the Warning header, the audit log, /metrics, and kubectl's output.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure, uniqueName } from '../helpers/api.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { startTestWebhook, type TestWebhook } from '../helpers/webhook-server.js';
import {
  answer,
  deny,
  jsonPatch,
  postWebhookConfiguration,
  PROBE,
  untilCalled,
  webhookConfiguration,
  webhookEntry,
} from '../helpers/admission-webhook.js';
import { AR, cm, completedAuditEvent, CONFIGMAP_AUDIT_POLICY } from '../helpers/admission-policy.js';

describe('admission webhooks', function () {
  this.timeout(60_000);
  let dir: string;
  let gh: TestGatehouse;
  let hook: TestWebhook;
  let kubectl: Kubectl;
  const configurations: string[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-webhooks-'));
    hook = await startTestWebhook((r) => answer(r), { path: '/admit', dnsNames: ['hook.webhooks.svc'] });
    await writeFile(path.join(dir, 'audit.yaml'), CONFIGMAP_AUDIT_POLICY);
    await writeFile(
      path.join(dir, 'endpoints.yaml'),
      `- {namespace: webhooks, name: hook, port: 443, url: "https://127.0.0.1:${new URL(hook.url).port}"}\n`,
    );
    gh = await startTestGatehouse([
      '--audit-policy-file',
      path.join(dir, 'audit.yaml'),
      '--audit-log-path',
      path.join(dir, 'audit.log'),
      '--aggregator-endpoints-file',
      path.join(dir, 'endpoints.yaml'),
    ]);
    kubectl = await createKubectl(gh.kubeconfigPath);
  });
  after(async () => {
    await kubectl?.cleanup();
    await gh?.close();
    await hook?.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const url of configurations.splice(0)) await gh.request('DELETE', url);
    hook.behave = (r) => answer(r);
  });

  /**
   * Writes a configuration of one webhook narrowed to `ns` and waits until it is called: a dry-run create of a
   * ConfigMap named `probe` reaches the webhook (the informers see a configuration shortly after its write).
   */
  async function install(kind: 'mutating' | 'validating', ns: string, extra: Record<string, unknown> = {}) {
    const name = uniqueName(kind);
    const entry = webhookEntry(`${name}.example.com`, hook, {
      namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } },
      ...extra,
    });
    configurations.push(await postWebhookConfiguration(gh, kind, name, [entry]));
    await untilCalled(hook, `webhook ${name} in force`, () =>
      gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm(PROBE) }),
    );
    return `${name}.example.com`;
  }

  it('a mutating webhook patch is stored; its warnings and audit annotations reach the client and the audit log', async () => {
    const ns = await createNamespace(gh, 'wh-mutate');
    const webhook = await install('mutating', ns);
    hook.behave = (r) =>
      answer(r, {
        ...jsonPatch([{ op: 'add', path: '/metadata/labels/stamped', value: 'by-webhook' }]),
        warnings: ['stamped by the webhook'],
        auditAnnotations: { stamp: 'by-webhook' },
      });
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('m1', { own: 'x' }) });
    expect(res.status, res.body).to.equal(201);
    expect(res.json().metadata.labels).to.deep.equal({ own: 'x', stamped: 'by-webhook' });
    expect(String(res.headers.warning)).to.include('stamped by the webhook');
    const review = hook.received.at(-1)!.body;
    expect(review.apiVersion).to.equal('admission.k8s.io/v1');
    expect(review.request).to.include({ operation: 'CREATE', namespace: ns, name: 'm1', dryRun: false });
    expect(review.request.userInfo.username).to.be.a('string').and.not.equal('');
    const yaml = await kubectl.ok(['get', 'configmap', 'm1', '-n', ns, '-o', 'yaml']);
    expect(yaml).to.match(/stamped: by-webhook/);
    const event = await completedAuditEvent(path.join(dir, 'audit.log'), String(res.headers['audit-id']));
    expect(event.annotations[`${webhook}/stamp`]).to.equal('by-webhook');
  });

  it('a patch that breaks the schema is refused as the kind refuses it (422)', async () => {
    const ns = await createNamespace(gh, 'wh-schema');
    await install('mutating', ns);
    hook.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/count', value: 5 }]));
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('s1') });
    const status = expectFailure(res, 422, 'Invalid');
    expect(status.message).to.match(/^ConfigMap "s1" is invalid: data\[count\]/);
  });

  it('a webhook changing the object’s name is refused', async () => {
    const ns = await createNamespace(gh, 'wh-rename');
    await install('mutating', ns);
    hook.behave = (r) => answer(r, jsonPatch([{ op: 'replace', path: '/metadata/name', value: 'other' }]));
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('r1') });
    expectFailure(res, 500, 'InternalError');
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/other`)).status).to.equal(404);
  });

  it('a denying webhook’s message and code reach the client and kubectl', async () => {
    const ns = await createNamespace(gh, 'wh-deny');
    const webhook = await install('validating', ns);
    hook.behave = (r) => deny(r, { code: 403, message: 'configmaps need an owner' });
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('d1') });
    const status = expectFailure(res, 403, 'Forbidden');
    expect(status.message).to.equal(
      `configmaps "d1" is forbidden: admission webhook "${webhook}" denied the request: configmaps need an owner`,
    );
    const run = await kubectl.run(['create', 'configmap', 'd2', '-n', ns, '--from-literal=a=b']);
    expect(run.code).to.not.equal(0);
    expect(run.stderr).to.include(`admission webhook "${webhook}" denied the request: configmaps need an owner`);
  });

  it('kubectl apply --server-side --dry-run=server passes a side-effect-free webhook and stores nothing', async () => {
    const ns = await createNamespace(gh, 'wh-dry');
    await install('validating', ns, { sideEffects: 'NoneOnDryRun' });
    const manifest = await kubectl.manifest(
      'dry.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry1, namespace: ${ns}}\ndata: {a: b}\n`,
    );
    await kubectl.ok(['apply', '--server-side', '--dry-run=server', '-f', manifest]);
    const review = hook.received.at(-1)!.body.request;
    expect(review.dryRun).to.equal(true);
    expect(review.options).to.include({ kind: 'CreateOptions' });
    expect(review.options.dryRun).to.deep.equal(['All']);
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/dry1`)).status).to.equal(404);
  });

  it('reaches a service clientConfig through --aggregator-endpoints-file', async () => {
    const ns = await createNamespace(gh, 'wh-svc');
    await install('validating', ns, {
      clientConfig: {
        service: { namespace: 'webhooks', name: 'hook', path: '/admit', port: 443 },
        caBundle: hook.caBundle,
      },
    });
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('svc1') });
    expect(res.status, res.body).to.equal(201);
    expect(hook.received.at(-1)!.headers.host).to.equal(`127.0.0.1:${new URL(hook.url).port}`);
  });

  it('fails closed with a 500 naming the webhook, and counts calls in /metrics', async () => {
    const ns = await createNamespace(gh, 'wh-fail');
    const webhook = await install('validating', ns);
    hook.behave = () => 'garbage';
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('f1') });
    const status = expectFailure(res, 500, 'InternalError');
    expect(status.message).to.match(
      new RegExp(`^Internal error occurred: failed calling webhook "${webhook.replace(/\./g, '\\.')}": `),
    );
    const metrics = (await gh.request('GET', '/metrics')).body;
    expect(metrics).to.match(
      new RegExp(
        `apiserver_admission_webhook_rejection_count\\{name="${webhook}",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="503"\\} 1`,
      ),
    );
    expect(metrics).to.include(`apiserver_admission_webhook_request_total{name="${webhook}",type="validating"`);
    expect(metrics).to.include('apiserver_admission_step_admission_duration_seconds_bucket{le="0.005",type="validate"');
    expect(metrics).to.include(
      'apiserver_admission_controller_admission_duration_seconds_bucket{le="0.005",name="ValidatingAdmissionWebhook"',
    );
  });
});

describe('admission webhooks under --admission-review-api-group platform.io', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let hook: TestWebhook;

  before(async () => {
    hook = await startTestWebhook((r) => answer(r), { path: '/admit' });
    gh = await startTestGatehouse(['--admission-review-api-group', 'platform.io']);
  });
  after(async () => {
    await gh?.close();
    await hook?.close();
  });

  it('sends admission.platform.io/v1 reviews and reads the answer in that group', async () => {
    const ns = await createNamespace(gh, 'wh-ours');
    const name = uniqueName('ours');
    const config = webhookConfiguration('ValidatingWebhookConfiguration', name, [
      webhookEntry(`${name}.example.com`, hook, {
        namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } },
      }),
    ]);
    const res = await gh.request('POST', `${AR}/validatingwebhookconfigurations`, { body: config });
    expect(res.status, res.body).to.equal(201);
    hook.behave = (r) => deny(r, { message: `seen in ${String(r?.apiVersion)}` });
    const refused = await eventually('webhook in force', async () => {
      const r = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('p1') });
      return r.status === 403 ? r : undefined;
    });
    expect(refused.json().message).to.include('denied the request: seen in admission.platform.io/v1');
  });
});
