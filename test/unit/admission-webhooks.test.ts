// The webhook admission plugins against real HTTPS webhooks in the test process: what a webhook is sent, what its
// answers do (allow, deny, patch, warnings, audit annotations), failures under each failurePolicy, reinvocation,
// matching (rules, matchPolicy through the k8s.io aliases, selectors, matchConditions), service clientConfig, review
// versions and groups, and the metrics. The configurations are plain objects, compiled as the informers compile them.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { builtinKinds } from '../../api/register.js';
import type { KObject } from '../../api/meta/types.js';
import type { StatusError } from '../../api/meta/errors.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Registry } from '../../gateway/registry/registry.js';
import type { AdmissionRequest } from '../../gateway/registry/admission-types.js';
import { MetricsRegistry } from '../../gateway/metrics/registration.js';
import { startEndpointsFileResolver, type ServiceResolver } from '../../gateway/aggregator/service-resolver.js';
import { compileWebhooks, type CompiledWebhook } from '../../gateway/admission/webhook/webhook-config.js';
import { createWebhookClient, type WebhookClient } from '../../gateway/admission/webhook/webhook-client.js';
import { createWebhookMetrics, type WebhookMetrics } from '../../gateway/admission/webhook/webhook-metrics.js';
import {
  createMutatingWebhookAdmission,
  createValidatingWebhookAdmission,
} from '../../gateway/admission/webhook/webhook-admission.js';
import type { AdmissionReviewGroup } from '../../gateway/admission/webhook/admission-review.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { makeCA } from '../helpers/pki.js';
import { startTestWebhook, type TestWebhook } from '../helpers/webhook-server.js';
import {
  answer,
  deny,
  jsonPatch,
  nextReview,
  webhookConfiguration,
  webhookEntry,
} from '../helpers/admission-webhook.js';

const defOf = (group: string, kind: string): KindDefinition => {
  const def = builtinKinds.find((k) => k.group === group && k.kind === kind);
  if (!def) throw new Error(`no kind ${group}/${kind}`);
  return def;
};
const CONFIGMAP = defOf('', 'ConfigMap');
const USER = { name: 'alice', uid: 'u-1', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } };

const namespaces: Record<string, KObject> = {
  'team-a': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' } } },
  'team-b': { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b', labels: { env: 'dev' } } },
};
const registry = {
  byKind: (group: string, kind: string) =>
    group === '' && kind === 'Namespace' ? { get: async (_ns: string, name: string) => namespaces[name] } : undefined,
} as unknown as Registry;

function configMap(name: string, labels: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'team-a', labels }, data: { a: '1' } };
}

interface Written extends AdmissionRequest {
  warnings: string[];
  annotations: Record<string, string>;
}

function create(object: KObject, extra: Partial<AdmissionRequest> = {}): Written {
  const annotations: Record<string, string> = {};
  const def = extra.def ?? CONFIGMAP;
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  return {
    uid: 'request-uid',
    operation: 'CREATE',
    def,
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: '',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
    subresource: '',
    object,
    user: USER,
    dryRun: extra.dryRun ?? false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', ...(extra.dryRun ? { dryRun: ['All'] } : {}) },
    warnings: [],
    annotations,
    annotate: (key, value) => void (annotations[key] ??= value),
    ...extra,
  };
}

async function refusal(run: Promise<void>): Promise<StatusError> {
  try {
    await run;
  } catch (e) {
    return e as StatusError;
  }
  throw new Error('expected a refusal');
}

describe('admission webhooks', function () {
  this.timeout(20_000);
  let hook: TestWebhook;
  let other: TestWebhook;
  let clock: ManualClock;
  let client: WebhookClient;
  let metrics: MetricsRegistry;
  let webhookMetrics: WebhookMetrics;
  let resolver: ServiceResolver | undefined;

  before(async () => {
    hook = await startTestWebhook((r) => answer(r), { path: '/admit', dnsNames: ['hook.webhooks.svc'] });
    other = await startTestWebhook((r) => answer(r), { path: '/other' });
  });
  after(async () => {
    await hook.close();
    await other.close();
  });
  beforeEach(() => {
    clock = new ManualClock();
    metrics = new MetricsRegistry();
    webhookMetrics = createWebhookMetrics(metrics);
    resolver = undefined;
    client = createWebhookClient({ resolver: () => resolver, clock });
    hook.received.length = 0;
    other.received.length = 0;
    hook.behave = (r) => answer(r);
    other.behave = (r) => answer(r);
  });
  afterEach(() => {
    client.close();
    resolver?.close();
  });

  function plugins(
    mutating: Record<string, unknown>[],
    validating: Record<string, unknown>[] = [],
    reviewGroup: AdmissionReviewGroup = 'k8s.io',
  ) {
    const compiled = {
      mutating: compileWebhooks(webhookConfiguration('MutatingWebhookConfiguration', 'm', mutating), 'mutating'),
      validating: compileWebhooks(
        webhookConfiguration('ValidatingWebhookConfiguration', 'v', validating),
        'validating',
      ),
    };
    const source = {
      webhooks: (type: 'mutating' | 'validating'): readonly CompiledWebhook[] => compiled[type],
      synced: Promise.resolve(),
      stop: async () => {},
    };
    const deps = { registry, source, client, reviewGroup, metrics: webhookMetrics };
    return { mutating: createMutatingWebhookAdmission(deps), validating: createValidatingWebhookAdmission(deps) };
  }
  const validate = (hooks: Record<string, unknown>[], req: AdmissionRequest) =>
    plugins([], hooks).validating.validate!(req);
  const mutate = (hooks: Record<string, unknown>[], req: AdmissionRequest) => plugins(hooks).mutating.mutate!(req);

  describe('calls', () => {
    it('sends an admission.k8s.io/v1 AdmissionReview and lets an allowed write through', async () => {
      await validate([webhookEntry('allow.example.com', hook)], create(configMap('cm')));
      expect(hook.received).to.have.length(1);
      const { body, headers } = hook.received[0];
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
      hook.behave = (r) => deny(r, { code: 422, message: 'labels missing', reason: 'Invalid' });
      let e = await refusal(validate([webhookEntry('deny.example.com', hook)], create(configMap('cm'))));
      expect(e.code).to.equal(422);
      expect(e.reason).to.equal('Invalid');
      expect(e.message).to.equal(
        'configmaps "cm" is forbidden: admission webhook "deny.example.com" denied the request: labels missing',
      );
      hook.behave = (r) => deny(r, {});
      e = await refusal(validate([webhookEntry('deny.example.com', hook)], create(configMap('cm'))));
      expect(e.code).to.equal(403);
      expect(e.reason).to.equal('Forbidden');
      expect(e.message).to.equal(
        'configmaps "cm" is forbidden: admission webhook "deny.example.com" denied the request without explanation',
      );
    });

    it('applies a mutating webhook patch, passes on its warnings and audit annotations', async () => {
      hook.behave = (r) =>
        answer(r, {
          ...jsonPatch([{ op: 'add', path: '/metadata/labels/added', value: 'yes' }]),
          warnings: ['mind the gap'],
          auditAnnotations: { seen: 'true' },
        });
      const req = create(configMap('cm'));
      await mutate([webhookEntry('label.example.com', hook)], req);
      expect(req.object.metadata.labels).to.deep.equal({ added: 'yes' });
      expect(req.warnings).to.deep.equal(['mind the gap']);
      expect(req.annotations).to.deep.equal({ 'label.example.com/seen': 'true' });
    });

    it('a validating webhook answering with a patch fails the call', async () => {
      hook.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/b', value: '2' }]));
      const e = await refusal(validate([webhookEntry('v.example.com', hook)], create(configMap('cm'))));
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
        hook.behave = behave;
        const e = await refusal(mutate([webhookEntry('f.example.com', hook)], create(configMap('cm'))));
        expect(e.code, e.message).to.equal(500);
        expect(e.message).to.include('Internal error occurred: failed calling webhook "f.example.com": ');
        expect(e.message).to.include(words);
        const req = create(configMap('cm'));
        await mutate([webhookEntry('f.example.com', hook, { failurePolicy: 'Ignore' })], req);
        expect(req.annotations).to.deep.equal({
          'failed-open.mutation.webhook.admission.k8s.io/round_0_index_0': 'f.example.com',
        });
      });
    }

    it('times out the whole call: 500 with context deadline exceeded under Fail, counted open under Ignore', async () => {
      hook.behave = () => 'hang';
      const received = nextReview(hook);
      const failing = refusal(validate([webhookEntry('slow.example.com', hook)], create(configMap('cm'))));
      await received;
      const timer = await clock.timer();
      expect(timer.ms).to.equal(5000);
      clock.advance(5000);
      const e = await failing;
      expect(e.code).to.equal(500);
      expect(e.message).to.match(
        /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/admit\?timeout=5s": context deadline exceeded$/,
      );
      const passing = validate(
        [webhookEntry('slow.example.com', hook, { failurePolicy: 'Ignore', timeoutSeconds: 1 })],
        create(configMap('cm')),
      );
      clock.advance((await clock.timer()).ms);
      await passing;
      const text = await metrics.registry.metrics();
      expect(text).to.include(
        'apiserver_admission_webhook_fail_open_count{name="slow.example.com",type="validating"} 1',
      );
      expect(text).to.include(
        'apiserver_admission_webhook_rejection_count{name="slow.example.com",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="503"} 1',
      );
    });

    it('calls validating webhooks all at once', async () => {
      hook.behave = () => 'hang';
      other.behave = () => 'hang';
      const both = Promise.all([nextReview(hook), nextReview(other)]);
      const ignore = { failurePolicy: 'Ignore' };
      const run = validate(
        [webhookEntry('one.example.com', hook, ignore), webhookEntry('two.example.com', other, ignore)],
        create(configMap('cm')),
      );
      // Both are waiting for an answer at once: called one after the other, the second would not have been asked.
      await both;
      clock.advance(5000);
      await run;
    });
  });

  describe('mutation order', () => {
    it('reinvokes an IfNeeded webhook once after a later one changed the object', async () => {
      hook.behave = (r) => answer(r);
      other.behave = (r) =>
        r.request.object.metadata.labels?.second
          ? answer(r)
          : answer(r, jsonPatch([{ op: 'add', path: '/metadata/labels/second', value: 'x' }]));
      const req = create(configMap('cm', { first: 'y' }));
      await mutate(
        [
          webhookEntry('first.example.com', hook, { reinvocationPolicy: 'IfNeeded' }),
          webhookEntry('second.example.com', other),
        ],
        req,
      );
      expect(hook.received.map((r) => r.body.request.object.metadata.labels)).to.deep.equal([
        { first: 'y' },
        { first: 'y', second: 'x' },
      ]);
      expect(other.received).to.have.length(1);
      expect(req.object.metadata.labels).to.deep.equal({ first: 'y', second: 'x' });
    });

    it('does not reinvoke a Never webhook', async () => {
      other.behave = (r) => answer(r, jsonPatch([{ op: 'add', path: '/data/b', value: '2' }]));
      await mutate(
        [webhookEntry('first.example.com', hook), webhookEntry('second.example.com', other)],
        create(configMap('cm')),
      );
      expect(hook.received).to.have.length(1);
    });
  });

  describe('dry run', () => {
    it('calls a side-effect-free webhook with dryRun true, refuses one with side effects', async () => {
      const req = create(configMap('cm'), { dryRun: true });
      await validate([webhookEntry('dry.example.com', hook, { sideEffects: 'NoneOnDryRun' })], req);
      expect(hook.received[0].body.request.dryRun).to.equal(true);
      expect(hook.received[0].body.request.options).to.deep.equal({
        apiVersion: 'meta.k8s.io/v1',
        kind: 'CreateOptions',
        dryRun: ['All'],
      });
      const e = await refusal(validate([webhookEntry('some.example.com', hook, { sideEffects: 'Some' })], req));
      expect(e.code).to.equal(400);
      expect(e.message).to.equal('admission webhook "some.example.com" does not support dry run');
    });
  });

  describe('matching', () => {
    const roleRules = [
      { operations: ['CREATE'], apiGroups: ['rbac.authorization.k8s.io'], apiVersions: ['v1'], resources: ['roles'] },
    ];
    const ROLE = defOf('rbac.authorization.platform.io', 'Role');
    const role = (): KObject => ({
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'Role',
      metadata: { name: 'r', namespace: 'team-a' },
      rules: [],
    });

    it('matchPolicy Exact does not match our group through its k8s.io alias; Equivalent does, in the alias', async () => {
      await validate(
        [webhookEntry('exact.example.com', hook, { rules: roleRules, matchPolicy: 'Exact' })],
        create(role(), { def: ROLE }),
      );
      expect(hook.received).to.have.length(0);
      await validate(
        [webhookEntry('equivalent.example.com', hook, { rules: roleRules, matchPolicy: 'Equivalent' })],
        create(role(), { def: ROLE }),
      );
      expect(hook.received).to.have.length(1);
      const r = hook.received[0].body.request;
      expect(r.kind).to.deep.equal({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' });
      expect(r.resource.group).to.equal('rbac.authorization.k8s.io');
      expect(r.requestKind.group).to.equal('rbac.authorization.platform.io');
      expect(r.object.apiVersion).to.equal('rbac.authorization.k8s.io/v1');
    });

    it('filters by namespace and object selectors', async () => {
      const hooks = [
        webhookEntry('ns.example.com', hook, { namespaceSelector: { matchLabels: { env: 'prod' } } }),
        webhookEntry('obj.example.com', other, {
          objectSelector: { matchExpressions: [{ key: 'skip', operator: 'DoesNotExist' }] },
        }),
      ];
      await validate(hooks, create(configMap('cm')));
      await validate(
        hooks,
        create(
          {
            ...configMap('cm', { skip: 'yes' }),
            metadata: { name: 'cm', namespace: 'team-b', labels: { skip: 'yes' } },
          },
          { namespace: 'team-b' },
        ),
      );
      expect(hook.received).to.have.length(1);
      expect(other.received).to.have.length(1);
    });

    it('skips on a false matchCondition; an error refuses under Fail and skips under Ignore', async () => {
      const conditions = (expression: string) => [{ name: 'c', expression }];
      await validate(
        [webhookEntry('c.example.com', hook, { matchConditions: conditions("request.userInfo.username == 'bob'") })],
        create(configMap('cm')),
      );
      expect(hook.received).to.have.length(0);
      await validate(
        [webhookEntry('c.example.com', hook, { matchConditions: conditions("object.metadata.name == 'cm'") })],
        create(configMap('cm')),
      );
      expect(hook.received).to.have.length(1);
      const broken = conditions('object.data.missing == "x"');
      const e = await refusal(
        validate([webhookEntry('c.example.com', hook, { matchConditions: broken })], create(configMap('cm'))),
      );
      expect(e.code).to.equal(403);
      expect(e.message).to.match(
        /^configmaps "cm" is forbidden: expression 'object.data.missing == "x"' resulted in error/,
      );
      await validate(
        [webhookEntry('c.example.com', hook, { matchConditions: broken, failurePolicy: 'Ignore' })],
        create(configMap('cm')),
      );
      expect(hook.received).to.have.length(1);
    });

    it('never calls webhooks for admissionregistration kinds or the server’s own writes', async () => {
      const def = defOf('admissionregistration.platform.io', 'ValidatingWebhookConfiguration');
      const all = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];
      await validate(
        [webhookEntry('all.example.com', hook, { rules: all })],
        create(
          { ...configMap('x'), apiVersion: 'admissionregistration.platform.io/v1', kind: def.kind },
          { def, namespace: '' },
        ),
      );
      await validate(
        [webhookEntry('all.example.com', hook, { rules: all })],
        create(configMap('cm'), { user: undefined }),
      );
      expect(hook.received).to.have.length(0);
    });
  });

  describe('reviews', () => {
    it('speaks v1beta1 to a webhook that accepts only it, whose answer need not carry the uid', async () => {
      hook.behave = (r) => answer(r, { uid: undefined });
      await validate(
        [webhookEntry('beta.example.com', hook, { admissionReviewVersions: ['v2', 'v1beta1'] })],
        create(configMap('cm')),
      );
      expect(hook.received[0].body.apiVersion).to.equal('admission.k8s.io/v1beta1');
    });

    it('sends admission.platform.io under --admission-review-api-group platform.io and reads either group', async () => {
      hook.behave = (r) => ({
        answer: { ...(answer(r) as { answer: object }).answer, apiVersion: 'admission.k8s.io/v1' },
      });
      await plugins([], [webhookEntry('ours.example.com', hook)], 'platform.io').validating.validate!(
        create(configMap('cm')),
      );
      expect(hook.received[0].body.apiVersion).to.equal('admission.platform.io/v1');
    });

    it('reaches a service clientConfig at its --aggregator-endpoints-file address, verified for the service name', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-webhook-endpoints-'));
      const file = path.join(dir, 'endpoints.yaml');
      const base = new URL(hook.url);
      await writeFile(file, `- {namespace: webhooks, name: hook, port: 443, url: "https://127.0.0.1:${base.port}"}\n`);
      resolver = startEndpointsFileResolver(file, { log: () => {} });
      const service = { namespace: 'webhooks', name: 'hook', path: '/admit', port: 443 };
      await validate(
        [webhookEntry('svc.example.com', hook, { clientConfig: { service, caBundle: hook.caBundle } })],
        create(configMap('cm')),
      );
      expect(hook.received).to.have.length(1);
      const e = await refusal(
        validate(
          [
            webhookEntry('svc.example.com', hook, {
              clientConfig: { service: { ...service, name: 'nope' }, caBundle: hook.caBundle },
            }),
          ],
          create(configMap('cm')),
        ),
      );
      expect(e.message).to.include('service "webhooks/nope" port 443 has no address');
      await rm(dir, { recursive: true, force: true });
    });

    it('refuses a server its caBundle does not verify', async () => {
      const stranger = Buffer.from((await makeCA('stranger')).certPem).toString('base64');
      const e = await refusal(
        validate(
          [webhookEntry('tls.example.com', hook, { clientConfig: { url: hook.url, caBundle: stranger } })],
          create(configMap('cm')),
        ),
      );
      expect(e.code).to.equal(500);
      expect(e.message).to.include('x509: certificate signed by unknown authority');
      expect(hook.received).to.have.length(0);
    });
  });

  describe('metrics', () => {
    it('counts calls, rejections and their latency by webhook, type and operation', async () => {
      hook.behave = (r) => deny(r, { code: 409 });
      await refusal(validate([webhookEntry('m.example.com', hook)], create(configMap('cm'))));
      await mutate([webhookEntry('a.example.com', other)], create(configMap('cm')));
      const text = await metrics.registry.metrics();
      expect(text).to.include(
        'apiserver_admission_webhook_request_total{name="m.example.com",type="validating",operation="CREATE",code="409",rejected="true"} 1',
      );
      expect(text).to.include(
        'apiserver_admission_webhook_rejection_count{name="m.example.com",type="validating",operation="CREATE",error_type="no_error",rejection_code="409"} 1',
      );
      expect(text).to.include(
        'apiserver_admission_webhook_request_total{name="a.example.com",type="admit",operation="CREATE",code="200",rejected="false"} 1',
      );
      expect(text).to.match(
        /apiserver_admission_webhook_admission_duration_seconds_count\{name="a.example.com",type="admit",operation="CREATE",rejected="false"\} 1/,
      );
    });
  });
});
