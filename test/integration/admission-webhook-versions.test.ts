// Which name of a group and which review version a webhook is called in, through a running server: under matchPolicy
// Exact a rule naming `rbac.authorization.k8s.io` misses a write made at `rbac.authorization.platform.io`, while
// Equivalent catches it and tells the webhook the resource in the rule's group and the request as the client made
// it; and a webhook that speaks only admission.k8s.io/v1beta1 is sent and answered in it.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';
import { startTestWebhook, type TestWebhook } from '../helpers/webhook-server.js';
import { answer, postWebhookConfiguration, PROBE, untilCalled, webhookEntry } from '../helpers/admission-webhook.js';

const ALIAS = 'rbac.authorization.k8s.io';
const OURS = 'rbac.authorization.platform.io';

describe('admission webhooks: group names and review versions', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let hook: TestWebhook;
  const configurations: string[] = [];

  before(async () => {
    hook = await startTestWebhook((r) => answer(r), { path: '/admit' });
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
    await hook?.close();
  });
  afterEach(async () => {
    for (const url of configurations.splice(0)) await gh.request('DELETE', url);
    hook.behave = (r) => answer(r);
  });

  const roles = (group: string, ns: string) => `/apis/${group}/v1/namespaces/${ns}/roles`;
  const role = (group: string, name: string) => ({
    apiVersion: `${group}/v1`,
    kind: 'Role',
    metadata: { name },
    rules: [],
  });

  /** A validating webhook on Role creates in `ns` whose rule names the k8s.io group, in force once it is called. */
  async function installRoleWebhook(ns: string, extra: Record<string, unknown>) {
    const name = uniqueName('roles');
    const entry = webhookEntry(`${name}.example.com`, hook, {
      rules: [{ operations: ['CREATE'], apiGroups: [ALIAS], apiVersions: ['v1'], resources: ['roles'] }],
      namespaceSelector: { matchLabels: { 'platform.io/metadata.name': ns } },
      ...extra,
    });
    configurations.push(await postWebhookConfiguration(gh, 'validating', name, [entry]));
    // The alias path matches under either policy.
    await untilCalled(hook, `webhook ${name} in force`, () =>
      gh.request('POST', `${roles(ALIAS, ns)}?dryRun=All`, { body: role(ALIAS, PROBE) }),
    );
  }

  it('under Exact, a rule naming the k8s.io group misses a write through our group name', async () => {
    const ns = await createNamespace(gh, 'wh-exact');
    await installRoleWebhook(ns, { matchPolicy: 'Exact' });
    const ours = await gh.request('POST', roles(OURS, ns), { body: role(OURS, 'ours') });
    expect(ours.status, ours.body).to.equal(201);
    expect(hook.received).to.have.length(0);
    const alias = await gh.request('POST', roles(ALIAS, ns), { body: role(ALIAS, 'alias') });
    expect(alias.status, alias.body).to.equal(201);
    expect(hook.received).to.have.length(1);
    const review = hook.received[0].body.request;
    expect(review.resource).to.deep.equal({ group: ALIAS, version: 'v1', resource: 'roles' });
    expect(review.requestResource).to.deep.equal({ group: ALIAS, version: 'v1', resource: 'roles' });
  });

  it('under Equivalent, the same rule catches it: the resource in the rule’s group, the request as the client’s', async () => {
    const ns = await createNamespace(gh, 'wh-equivalent');
    await installRoleWebhook(ns, { matchPolicy: 'Equivalent' });
    const res = await gh.request('POST', roles(OURS, ns), { body: role(OURS, 'ours') });
    expect(res.status, res.body).to.equal(201);
    expect(hook.received).to.have.length(1);
    const review = hook.received[0].body.request;
    expect(review.kind).to.deep.equal({ group: ALIAS, version: 'v1', kind: 'Role' });
    expect(review.resource).to.deep.equal({ group: ALIAS, version: 'v1', resource: 'roles' });
    expect(review.requestKind).to.deep.equal({ group: OURS, version: 'v1', kind: 'Role' });
    expect(review.requestResource).to.deep.equal({ group: OURS, version: 'v1', resource: 'roles' });
    expect(review.object.apiVersion).to.equal(`${ALIAS}/v1`);
  });

  it('speaks admission.k8s.io/v1beta1 to a webhook that accepts only it, and reads its answer', async () => {
    const ns = await createNamespace(gh, 'wh-v1beta1');
    await installRoleWebhook(ns, { admissionReviewVersions: ['v1beta1'] });
    // A v1beta1 answer need not carry the uid.
    hook.behave = (r) => ({
      answer: {
        apiVersion: r.apiVersion,
        kind: 'AdmissionReview',
        response: { allowed: false, status: { message: `refused in ${String(r.apiVersion)}` } },
      },
    });
    const res = await gh.request('POST', roles(ALIAS, ns), { body: role(ALIAS, 'old') });
    const status = expectFailure(res, 403, 'Forbidden');
    expect(status.message).to.match(/denied the request: refused in admission\.k8s\.io\/v1beta1$/);
    expect(hook.received.at(-1)!.body.apiVersion).to.equal('admission.k8s.io/v1beta1');
    expect(hook.received.at(-1)!.body.request).to.include({ operation: 'CREATE', name: 'old', namespace: ns });
    hook.behave = (r) => answer(r);
    const allowed = await gh.request('POST', roles(ALIAS, ns), { body: role(ALIAS, 'old') });
    expect(allowed.status, allowed.body).to.equal(201);
  });
});
