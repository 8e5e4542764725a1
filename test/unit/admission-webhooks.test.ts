// The webhook admission plugins against real HTTPS webhooks in the test process: what a webhook is sent, what its
// answers do (allow, deny, patch, warnings, audit annotations), every failure under each failurePolicy, the timeout,
// parallel validating calls, reinvocation and dry runs. Matching, addresses, review versions and metrics are in
// admission-webhook-matching.test.ts.
import { expect } from 'chai';
import { answer, deny, jsonPatch, nextReview, webhookEntry } from '../helpers/admission-webhook.js';
import { configMap, create, refusal, USER, webhookHarness } from '../helpers/admission-webhook-harness.js';

describe('admission webhooks', function () {
  this.timeout(20_000);
  const h = webhookHarness();
  const { validate, mutate } = h;

  describe('calls', () => {
    it('sends an admission.k8s.io/v1 AdmissionReview and lets an allowed write through', async () => {
      await validate([webhookEntry('allow.example.com', h.hook)], create(configMap('cm')));
      expect(h.hook.received).to.have.length(1);
      const { body, headers } = h.hook.received[0];
      expect(headers['content-type']).to.equal('application/json');
      expect(body.apiVersion).to.equal('admission.k8s.io/v1');
      expect(body.kind).to.equal('AdmissionReview');
      const r = body.request;
      // Each call has a uid of its own, not the admission request's.
      expect(r.uid).to.match(/^[0-9a-f-]{36}$/);
      expect(r.kind).to.deep.equal({ group: '', version: 'v1', kind: 'ConfigMap' });
      expect(r.resource).to.deep.equal({ group: '', version: 'v1', resource: 'configmaps' });
      expect(r.requestKind).to.deep.equal(r.kind);
      expect(r.requestResource).to.deep.equal(r.resource);
      expect(r).to.not.have.property('subResource');
      expect(r).to.include({ name: 'cm', namespace: 'team-a', operation: 'CREATE', dryRun: false });
      expect(r.userInfo).to.deep.equal({ username: 'alice', uid: 'u-1', groups: USER.groups, extra: USER.extra });
      expect(r.object.metadata.name).to.equal('cm');
      expect(r.oldObject).to.equal(null);
      expect(r.options).to.deep.equal({ apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' });
    });

    it('refuses with the webhook message and code, 403 without one', async () => {
      h.hook.behave = (r) => deny(r, { code: 422, message: 'labels missing', reason: 'Invalid' });
      let e = await refusal(validate([webhookEntry('deny.example.com', h.hook)], create(configMap('cm'))));
      expect(e.code).to.equal(422);
      expect(e.reason).to.equal('Invalid');
      expect(e.message).to.equal(
        'configmaps "cm" is forbidden: admission webhook "deny.example.com" denied the request: labels missing',
      );
      h.hook.behave = (r) => deny(r, {});
      e = await refusal(validate([webhookEntry('deny.example.com', h.hook)], create(configMap('cm'))));
      expect(e.code).to.equal(403);
      expect(e.reason).to.equal('Forbidden');
      expect(e.message).to.equal(
        'configmaps "cm" is forbidden: admission webhook "deny.example.com" denied the request without explanation',
      );
    });

    it('applies a mutating webhook patch, passes on its warnings and audit annotations', async () => {
      h.hook.behave = (r) =>
        answer(r, {
          ...jsonPatch([{ value: { b: 1, a: 2 }, path: '/metadata/labels/added', op: 'add' }]),
          warnings: ['mind the gap'],
          auditAnnotations: { seen: 'true' },
        });
      const req = create(configMap('cm'));
      await mutate([webhookEntry('label.example.com', h.hook)], req);
      expect(req.object.metadata.labels).to.deep.equal({ added: { b: 1, a: 2 } });
      expect(req.warnings).to.deep.equal(['mind the gap']);
      // The operation's keys sorted, as Go marshals a map; the value as the webhook wrote it.
      expect(req.annotations).to.deep.equal({
        'label.example.com/seen': 'true',
        'mutation.webhook.admission.k8s.io/round_0_index_0':
          '{"configuration":"m","webhook":"label.example.com","mutated":true}',
        'patch.webhook.admission.k8s.io/round_0_index_0':
          '{"configuration":"m","webhook":"label.example.com","patch":[{"op":"add","path":"/metadata/labels/added","value":{"b":1,"a":2}}],"patchType":"JSONPatch"}',
      });
    });

    it('a validating webhook answering with a patch fails the call', async () => {
      h.hook.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/b', value: '2' }]));
      const e = await refusal(validate([webhookEntry('v.example.com', h.hook)], create(configMap('cm'))));
      expect(e.code).to.equal(500);
      expect(e.message).to.equal(
        'Internal error occurred: failed calling webhook "v.example.com": received invalid webhook response: validating webhook may not return response.patch',
      );
    });
  });

  describe('failures', () => {
    const failing: [string, (r: any) => any, string][] = [
      ['an HTTP 500', () => ({ httpStatus: 500, body: 'boom' }), 'an error on the server ("boom")'],
      ['garbage', () => 'garbage', "couldn't get version/kind; json parse error"],
      ['a closed connection', () => 'crash', 'failed to call webhook: Post "https://127.0.0.1:'],
      ['an answer cut off mid-body', () => 'truncate', 'failed to call webhook: Post "https://127.0.0.1:'],
      ['10 MB', () => ({ raw: Buffer.alloc(10 * 1024 * 1024, 0x20) }), 'response body larger than 6291456 bytes'],
      ['a wrong uid', (r) => answer(r, { uid: 'not-yours' }), 'expected response.uid="'],
      ['no response', (r) => ({ answer: { apiVersion: r.apiVersion, kind: 'AdmissionReview' } }), 'absent'],
      ['a patch that is not JSON patch', (r) => answer(r, { patchType: 'JSONPatch', patch: 'e30=' }), 'undecodable'],
      [
        'an unknown patchType',
        (r) => answer(r, { ...jsonPatch([{ op: 'add', path: '/data/b', value: '2' }]), patchType: 'Merge' }),
        'unsupported patch type "Merge"',
      ],
    ];
    for (const [what, behave, words] of failing) {
      it(`${what}: 500 under Fail, the write goes on under Ignore`, async () => {
        h.hook.behave = behave;
        const e = await refusal(mutate([webhookEntry('f.example.com', h.hook)], create(configMap('cm'))));
        expect(e.code, e.message).to.equal(500);
        expect(e.message).to.include('Internal error occurred: failed calling webhook "f.example.com": ');
        expect(e.message).to.include(words);
        const req = create(configMap('cm'));
        await mutate([webhookEntry('f.example.com', h.hook, { failurePolicy: 'Ignore' })], req);
        expect(req.annotations).to.deep.equal({
          'failed-open.mutation.webhook.admission.k8s.io/round_0_index_0': 'f.example.com',
          'mutation.webhook.admission.k8s.io/round_0_index_0':
            '{"configuration":"m","webhook":"f.example.com","mutated":false}',
        });
      });
    }

    it('times out the whole call: 500 with context deadline exceeded under Fail, counted open under Ignore', async () => {
      h.hook.behave = () => 'hang';
      const received = nextReview(h.hook);
      const failing = refusal(validate([webhookEntry('slow.example.com', h.hook)], create(configMap('cm'))));
      await received;
      const timer = await h.clock.timer();
      expect(timer.ms).to.equal(5000);
      h.clock.advance(5000);
      const e = await failing;
      expect(e.code).to.equal(500);
      expect(e.message).to.match(
        /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/admit\?timeout=5s": context deadline exceeded$/,
      );
      const passing = validate(
        [webhookEntry('slow.example.com', h.hook, { failurePolicy: 'Ignore', timeoutSeconds: 1 })],
        create(configMap('cm')),
      );
      h.clock.advance((await h.clock.timer()).ms);
      await passing;
      const text = await h.metrics.registry.metrics();
      expect(text).to.include(
        'apiserver_admission_webhook_fail_open_count{name="slow.example.com",type="validating"} 1',
      );
      expect(text).to.include(
        'apiserver_admission_webhook_rejection_count{name="slow.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="503"} 1',
      );
    });

    it('calls validating webhooks all at once', async () => {
      h.hook.behave = () => 'hang';
      h.other.behave = () => 'hang';
      const both = Promise.all([nextReview(h.hook), nextReview(h.other)]);
      const ignore = { failurePolicy: 'Ignore' };
      const run = validate(
        [webhookEntry('one.example.com', h.hook, ignore), webhookEntry('two.example.com', h.other, ignore)],
        create(configMap('cm')),
      );
      // Both are waiting for an answer at once: called one after the h.other, the second would not have been asked.
      await both;
      h.clock.advance(5000);
      await run;
    });
  });

  describe('mutation order', () => {
    it('reinvokes an IfNeeded webhook once after a later one changed the object', async () => {
      h.hook.behave = (r) => answer(r);
      h.other.behave = (r) =>
        r.request.object.metadata.labels?.second
          ? answer(r)
          : answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'x' }]));
      const req = create(configMap('cm', { first: 'y' }));
      await mutate(
        [
          webhookEntry('first.example.com', h.hook, { reinvocationPolicy: 'IfNeeded' }),
          webhookEntry('second.example.com', h.other),
        ],
        req,
      );
      expect(h.hook.received.map((r) => r.body.request.object.metadata.labels)).to.deep.equal([
        { first: 'y' },
        { first: 'y', second: 'x' },
      ]);
      expect(h.other.received).to.have.length(1);
      expect(req.object.metadata.labels).to.deep.equal({ first: 'y', second: 'x' });
    });

    it('does not reinvoke a Never webhook', async () => {
      h.other.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/b', value: '2' }]));
      await mutate(
        [webhookEntry('first.example.com', h.hook), webhookEntry('second.example.com', h.other)],
        create(configMap('cm')),
      );
      expect(h.hook.received).to.have.length(1);
    });
  });

  describe('dry run', () => {
    it('calls a side-effect-free webhook with dryRun true, refuses one with side effects', async () => {
      const req = create(configMap('cm'), { dryRun: true });
      await validate([webhookEntry('dry.example.com', h.hook, { sideEffects: 'NoneOnDryRun' })], req);
      expect(h.hook.received[0].body.request.dryRun).to.equal(true);
      expect(h.hook.received[0].body.request.options).to.deep.equal({
        apiVersion: 'meta.k8s.io/v1',
        kind: 'CreateOptions',
        dryRun: ['All'],
      });
      const e = await refusal(validate([webhookEntry('some.example.com', h.hook, { sideEffects: 'Some' })], req));
      expect(e.code).to.equal(400);
      expect(e.message).to.equal('admission webhook "some.example.com" does not support dry run');
    });
  });
});
