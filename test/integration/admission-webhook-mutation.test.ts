// Mutating admission webhooks through a running server, where upstream's dispatcher does more than patch a create:
// reinvocation (an IfNeeded webhook called again once a later one changed the object), the audit annotations of
// every mutating call at Metadata and Request level, deletions (called with no object: a refusal counts, a patch is
// refused) and TokenRequests (patched, then checked again before a token is signed). Real HTTPS webhooks in the test
// process answer; each test narrows its configuration to a namespace of its own and removes it afterwards.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';
import { startTestWebhook, type TestWebhook } from '../helpers/webhook-server.js';
import {
  answer,
  deny,
  jsonPatch,
  postWebhookConfiguration,
  PROBE,
  untilCalled,
  webhookEntry,
} from '../helpers/admission-webhook.js';
import { cm, completedAuditEvent } from '../helpers/admission-policy.js';

describe('mutating admission webhooks: reinvocation, audit, deletions and tokens', function () {
  this.timeout(60_000);
  let dir: string;
  let gh: TestGatehouse;
  let first: TestWebhook;
  let second: TestWebhook;
  const configurations: string[] = [];
  // Audited at Request level (the patch annotations appear); every other namespace's ConfigMaps at Metadata.
  const requestLevelNamespace = uniqueName('wh-audit-request');

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-mutation-'));
    first = await startTestWebhook((r) => answer(r), { path: '/first' });
    second = await startTestWebhook((r) => answer(r), { path: '/second' });
    await writeFile(
      path.join(dir, 'audit.yaml'),
      [
        'apiVersion: audit.k8s.io/v1',
        'kind: Policy',
        'rules:',
        `- {level: Request, namespaces: ["${requestLevelNamespace}"], resources: [{group: "", resources: [configmaps]}]}`,
        '- {level: Metadata, resources: [{group: "", resources: [configmaps]}]}',
        '- level: None',
        '',
      ].join('\n'),
    );
    gh = await startTestGatehouse([
      '--audit-policy-file',
      path.join(dir, 'audit.yaml'),
      '--audit-log-path',
      path.join(dir, 'audit.log'),
    ]);
    const res = await gh.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: requestLevelNamespace } },
    });
    expect(res.status, res.body).to.equal(201);
  });
  after(async () => {
    await gh?.close();
    await first?.close();
    await second?.close();
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    for (const url of configurations.splice(0)) await gh.request('DELETE', url);
    for (const hook of [first, second]) hook.behave = (r) => answer(r);
  });

  /** One MutatingWebhookConfiguration of `webhooks` (in that order), in force once the first of them is called. */
  async function install(ns: string, webhooks: Record<string, unknown>[], hooks: TestWebhook[]): Promise<string> {
    const name = uniqueName('mutating');
    configurations.push(await postWebhookConfiguration(gh, 'mutating', name, webhooks));
    await untilCalled(hooks[0], `configuration ${name} in force`, () =>
      gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: cm(PROBE) }),
    );
    for (const hook of hooks) hook.received.length = 0;
    return name;
  }

  const inNamespace = (ns: string) => ({ namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } } });

  const auditEvent = (auditId: string) => completedAuditEvent(path.join(dir, 'audit.log'), auditId);

  it('calls an IfNeeded webhook once more after a later one changed the object, and audits every call', async () => {
    const ns = await createNamespace(gh, 'wh-reinvoke');
    // The first webhook stamps how many times it was called; the second adds its own label.
    let firstCalls = 0;
    first.behave = (r) =>
      r.request.name === PROBE
        ? answer(r)
        : answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels/first-call', value: String(++firstCalls) }]));
    second.behave = (r) =>
      r.request.name === PROBE
        ? answer(r)
        : answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'yes' }]));
    const configuration = await install(
      ns,
      [
        webhookEntry('first.example.com', first, { reinvocationPolicy: 'IfNeeded', ...inNamespace(ns) }),
        webhookEntry('second.example.com', second, inNamespace(ns)),
      ],
      [first, second],
    );
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('r1') });
    expect(res.status, res.body).to.equal(201);
    expect(first.received.length).to.equal(2);
    expect(second.received.length).to.equal(1);
    // The second call saw what the second webhook added, and its own change is what was stored.
    expect(first.received[1].body.request.object.metadata.labels).to.include({ 'first-call': '1', second: 'yes' });
    const stored = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/r1`);
    expect(stored.json().metadata.labels).to.deep.equal({ 'first-call': '2', second: 'yes' });

    const event = await auditEvent(String(res.headers['audit-id']));
    expect(event.level).to.equal('Metadata');
    const call = (webhook: string) => JSON.stringify({ configuration, webhook, mutated: true });
    expect(event.annotations).to.include({
      'mutation.webhook.admission.k8s.io/round_0_index_0': call('first.example.com'),
      'mutation.webhook.admission.k8s.io/round_0_index_1': call('second.example.com'),
      'mutation.webhook.admission.k8s.io/round_1_index_0': call('first.example.com'),
    });
    // The patches may carry the object's content: they are for events of Request level and above.
    expect(Object.keys(event.annotations).filter((k) => k.startsWith('patch.webhook'))).to.deep.equal([]);
  });

  it('records the patch applied in events of Request level, and a call that changed nothing as not mutated', async () => {
    const ns = requestLevelNamespace;
    first.behave = (r) =>
      r.request.name === PROBE
        ? answer(r)
        : answer(r, jsonPatch([{ path: '/metadata/labels/patched', op: 'add', value: 'x' }]));
    const configuration = await install(
      ns,
      [
        webhookEntry('first.example.com', first, inNamespace(ns)),
        webhookEntry('second.example.com', second, inNamespace(ns)),
      ],
      [first, second],
    );
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('p1') });
    expect(res.status, res.body).to.equal(201);
    const event = await auditEvent(String(res.headers['audit-id']));
    expect(event.level).to.equal('Request');
    expect(event.annotations['patch.webhook.admission.k8s.io/round_0_index_0']).to.equal(
      JSON.stringify({
        configuration,
        webhook: 'first.example.com',
        patch: [{ op: 'add', path: '/metadata/labels/patched', value: 'x' }],
        patchType: 'JSONPatch',
      }),
    );
    expect(event.annotations['mutation.webhook.admission.k8s.io/round_0_index_1']).to.equal(
      JSON.stringify({ configuration, webhook: 'second.example.com', mutated: false }),
    );
    expect(event.annotations).to.not.have.property('patch.webhook.admission.k8s.io/round_0_index_1');
  });

  it('calls mutating webhooks for a deletion with no object: a refusal stops it, a patch is a 500', async () => {
    const ns = await createNamespace(gh, 'wh-delete');
    const rules = [
      { operations: ['CREATE', 'DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
    ];
    await install(ns, [webhookEntry('deletes.example.com', first, { rules, ...inNamespace(ns) })], [first]);
    expect((await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('d1') })).status).to.equal(201);
    const url = `/api/v1/namespaces/${ns}/configmaps/d1`;

    first.behave = (r) => deny(r, { code: 403, message: 'keep it' });
    const refused = expectFailure(await gh.request('DELETE', url), 403, 'Forbidden');
    expect(refused.message).to.equal(
      'configmaps "d1" is forbidden: admission webhook "deletes.example.com" denied the request: keep it',
    );
    const review = first.received.at(-1)!.body.request;
    expect(review).to.include({ operation: 'DELETE', name: 'd1', namespace: ns });
    expect(review.object).to.equal(null);
    expect(review.oldObject.metadata.name).to.equal('d1');
    expect(review.options).to.include({ kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' });

    first.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels/x', value: 'y' }]));
    const patched = expectFailure(await gh.request('DELETE', url), 500, 'InternalError');
    expect(patched.message).to.equal(
      'Internal error occurred: admission webhook "deletes.example.com" attempted to modify the object, which is not supported for this operation',
    );
    expect((await gh.request('GET', url)).status).to.equal(200);

    first.behave = (r) => answer(r);
    expect((await gh.request('DELETE', url)).status).to.equal(200);
    expect((await gh.request('GET', url)).status).to.equal(404);
  });

  it('lets a mutating webhook patch a TokenRequest, checked again before the token is signed', async () => {
    const ns = await createNamespace(gh, 'wh-token');
    const account = await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, {
      body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } },
    });
    expect(account.status, account.body).to.equal(201);
    const rules = [
      {
        operations: ['CREATE'],
        apiGroups: [''],
        apiVersions: ['v1'],
        resources: ['configmaps', 'serviceaccounts/token'],
      },
    ];
    await install(ns, [webhookEntry('tokens.example.com', first, { rules, ...inNamespace(ns) })], [first]);
    const tokenUrl = `/api/v1/namespaces/${ns}/serviceaccounts/robot/token`;
    const tokenRequest = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: {} };
    const expiration = (seconds: number) =>
      jsonPatch([{ op: 'replace', path: '/spec/expirationSeconds', value: seconds }]);

    first.behave = (r) => answer(r, expiration(1800));
    const issued = await gh.request('POST', tokenUrl, { body: tokenRequest });
    expect(issued.status, issued.body).to.equal(201);
    expect(issued.json().spec.expirationSeconds).to.equal(1800);
    const expiresIn = Date.parse(issued.json().status.expirationTimestamp) - Date.now();
    expect(expiresIn).to.be.within(1700_000, 1801_000);
    const review = first.received.at(-1)!.body.request;
    expect(review).to.include({ operation: 'CREATE', subResource: 'token', name: 'robot', namespace: ns });
    expect(review.kind).to.deep.equal({ group: 'authentication.platform.io', version: 'v1', kind: 'TokenRequest' });
    expect(review.requestKind).to.deep.equal({ group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' });
    expect(review.object.apiVersion).to.equal('authentication.k8s.io/v1');
    expect(review.object.spec.expirationSeconds).to.equal(3600);

    first.behave = (r) => answer(r, expiration(60));
    const invalid = expectFailure(await gh.request('POST', tokenUrl, { body: tokenRequest }), 422, 'Invalid');
    expect(invalid.message).to.include(
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
    );
  });
});
