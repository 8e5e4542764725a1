// The audit webhook against a real HTTPS receiver (test/helpers/webhook-server.ts): EventLists in batch mode,
// retries after a 5xx, events counted as lost after a final refusal, and the blocking modes holding (or failing) the
// request. Batch-mode deliveries are read after the gateway closed: closing sends what is buffered.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse } from '../helpers/gatehouse.js';
import { startTestWebhook, type TestWebhook, type WebhookBehaviour } from '../helpers/webhook-server.js';

const POLICY =
  'apiVersion: audit.platform.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources: [{group: ""}]\n';
const NAMESPACES = '/api/v1/namespaces';
const ACCEPTED: WebhookBehaviour = { httpStatus: 200, body: '{}' };

interface Received {
  kind: string;
  apiVersion: string;
  items: { auditID: string; stage: string; verb: string }[];
}

describe('audit webhook', function () {
  let dir: string;
  let hook: TestWebhook;
  let policyFile: string;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-audit-webhook-'));
    policyFile = path.join(dir, 'policy.yaml');
    await writeFile(policyFile, POLICY);
    hook = await startTestWebhook(() => ACCEPTED);
  });

  after(async () => {
    await hook.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    hook.received.length = 0;
    hook.behave = () => ACCEPTED;
  });

  const start = (...flags: string[]) =>
    startTestGatehouse([
      '--audit-policy-file',
      policyFile,
      '--audit-webhook-config-file',
      hook.kubeconfigPath,
      ...flags,
    ]);
  const delivered = () => hook.received.flatMap((r) => (r.body as Received).items);

  it('sends batches of audit.k8s.io/v1 EventLists, at most max-size events each', async () => {
    const gh = await start('--audit-webhook-batch-max-size=3', '--audit-webhook-batch-max-wait=1h');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await gh.request('GET', NAMESPACES)).headers['audit-id'] as string);
    await gh.close();
    for (const { body } of hook.received) {
      expect(body).to.include({ kind: 'EventList', apiVersion: 'audit.k8s.io/v1' });
      expect((body as Received).items.length).to.be.within(1, 3);
    }
    const events = delivered().filter((e) => ids.includes(e.auditID));
    expect(events).to.have.length(8);
    expect(new Set(events.map((e) => e.stage))).to.deep.equal(new Set(['RequestReceived', 'ResponseComplete']));
  });

  it('writes the EventList and its events in the group version --audit-webhook-version names', async () => {
    const gh = await start('--audit-webhook-version=audit.platform.io/v1');
    const id = (await gh.request('GET', NAMESPACES)).headers['audit-id'] as string;
    await gh.close();
    expect(hook.received).not.to.have.length(0);
    for (const { body } of hook.received) expect(body).to.include({ apiVersion: 'audit.platform.io/v1' });
    const mine = hook.received
      .flatMap((r) => (r.body as { items: { auditID: string; apiVersion: string }[] }).items)
      .filter((e) => e.auditID === id);
    expect(mine.map((e) => e.apiVersion)).to.deep.equal(['audit.platform.io/v1', 'audit.platform.io/v1']);
  });

  it('retries a batch the receiver could not take, and counts and logs one it refused', async () => {
    let calls = 0;
    // The first delivery fails with a 503 (retried), the next ones are refused for good with a 400.
    hook.behave = () => (++calls === 1 ? { httpStatus: 503 } : calls === 2 ? ACCEPTED : { httpStatus: 400 });
    const gh = await start('--audit-webhook-batch-max-size=2', '--audit-webhook-initial-backoff=10ms');
    await gh.request('GET', `${NAMESPACES}/default`);
    await gh.request('GET', `${NAMESPACES}/default`);
    await gh.close();
    expect(hook.received.length).to.be.at.least(3);
    expect(JSON.stringify(hook.received[0].body)).to.equal(JSON.stringify(hook.received[1].body));
    expect(gh.logs.some((l) => /audit: the webhook backend lost 2 event\(s\): the audit webhook answered 400/.test(l)))
      .to.be.true;
  });

  it('holds the request until its events are delivered in blocking mode', async () => {
    const gh = await start('--audit-webhook-mode=blocking');
    try {
      const res = await gh.request('GET', NAMESPACES);
      const id = res.headers['audit-id'];
      expect(delivered().some((e) => e.auditID === id && e.stage === 'RequestReceived')).to.be.true;
    } finally {
      await gh.close();
    }
  });

  it('fails the request when its RequestReceived event cannot be delivered in blocking-strict mode', async () => {
    hook.behave = () => ({ httpStatus: 400 });
    const gh = await start('--audit-webhook-mode=blocking-strict');
    try {
      const res = await gh.request('GET', NAMESPACES);
      expect(res.status).to.equal(500);
      const metrics = await (async () => {
        hook.behave = () => ACCEPTED;
        return gh.request('GET', '/metrics');
      })();
      expect(metrics.body).to.match(/^apiserver_audit_error_total\{plugin="webhook"\} [1-9]/m);
    } finally {
      await gh.close();
    }
  });

  it('refuses a webhook configuration that is not a client configuration, naming the file', async () => {
    const bad = path.join(dir, 'bad.kubeconfig');
    await writeFile(bad, 'apiVersion: v1\nkind: Config\nclusters: []\n');
    let error: Error | undefined;
    await startTestGatehouse(['--audit-policy-file', policyFile, '--audit-webhook-config-file', bad]).then(
      (gh) => gh.close(),
      (e: Error) => {
        error = e;
      },
    );
    expect(error?.message).to.include(bad);
  });
});
