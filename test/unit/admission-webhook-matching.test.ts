// Which writes admission webhooks are called for (rules, matchPolicy through the k8s.io aliases, selectors,
// matchConditions, the exempt kinds), how they are reached (service clientConfig, caBundle), the review versions and
// groups, and the metrics, against real HTTPS webhooks in the test process.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { KObject } from '../../api/meta/types.js';
import { startEndpointsFileResolver } from '../../gateway/aggregator/service-resolver.js';
import { makeCA } from '../helpers/pki.js';
import { answer, deny, webhookEntry } from '../helpers/admission-webhook.js';
import { configMap, create, defOf, refusal, webhookHarness } from '../helpers/admission-webhook-harness.js';

describe('admission webhook matching and reviews', function () {
  this.timeout(20_000);
  const h = webhookHarness();
  const { validate, mutate } = h;

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

    it('matchPolicy Exact matches only the group the client wrote to; Equivalent matches through the k8s.io alias', async () => {
      await validate(
        [webhookEntry('exact.example.com', h.hook, { rules: roleRules, matchPolicy: 'Exact' })],
        create(role(), { def: ROLE }),
      );
      expect(h.hook.received).to.have.length(0);
      await validate(
        [webhookEntry('equivalent.example.com', h.hook, { rules: roleRules, matchPolicy: 'Equivalent' })],
        create(role(), { def: ROLE }),
      );
      expect(h.hook.received).to.have.length(1);
      const r = h.hook.received[0].body.request;
      expect(r.kind).to.deep.equal({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' });
      expect(r.resource.group).to.equal('rbac.authorization.k8s.io');
      expect(r.requestKind.group).to.equal('rbac.authorization.platform.io');
      expect(r.object.apiVersion).to.equal('rbac.authorization.k8s.io/v1');
      // Exact matches the group the client wrote to: a write through the alias is called in the alias.
      const alias = 'rbac.authorization.k8s.io';
      await validate(
        [webhookEntry('exact.example.com', h.hook, { rules: roleRules, matchPolicy: 'Exact' })],
        create(role(), {
          def: ROLE,
          requestKind: { group: alias, version: 'v1', kind: 'Role' },
          requestResource: { group: alias, version: 'v1', resource: 'roles' },
        }),
      );
      expect(h.hook.received).to.have.length(2);
      expect(h.hook.received[1].body.request.kind.group).to.equal(alias);
    });

    it('filters by namespace and object selectors', async () => {
      const hooks = [
        webhookEntry('ns.example.com', h.hook, { namespaceSelector: { matchLabels: { env: 'prod' } } }),
        webhookEntry('obj.example.com', h.other, {
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
      expect(h.hook.received).to.have.length(1);
      expect(h.other.received).to.have.length(1);
    });

    it('skips on a false matchCondition; an error refuses under Fail and skips under Ignore', async () => {
      const conditions = (expression: string) => [{ name: 'c', expression }];
      await validate(
        [webhookEntry('c.example.com', h.hook, { matchConditions: conditions("request.userInfo.username == 'bob'") })],
        create(configMap('cm')),
      );
      expect(h.hook.received).to.have.length(0);
      await validate(
        [webhookEntry('c.example.com', h.hook, { matchConditions: conditions("object.metadata.name == 'cm'") })],
        create(configMap('cm')),
      );
      expect(h.hook.received).to.have.length(1);
      const broken = conditions('object.data.missing == "x"');
      const e = await refusal(
        validate([webhookEntry('c.example.com', h.hook, { matchConditions: broken })], create(configMap('cm'))),
      );
      expect(e.code).to.equal(403);
      expect(e.message).to.match(
        /^configmaps "cm" is forbidden: expression 'object.data.missing == "x"' resulted in error/,
      );
      await validate(
        [webhookEntry('c.example.com', h.hook, { matchConditions: broken, failurePolicy: 'Ignore' })],
        create(configMap('cm')),
      );
      expect(h.hook.received).to.have.length(1);
    });

    it('never calls webhooks for admissionregistration kinds or the server’s own writes', async () => {
      const def = defOf('admissionregistration.platform.io', 'ValidatingWebhookConfiguration');
      const all = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];
      await validate(
        [webhookEntry('all.example.com', h.hook, { rules: all })],
        create(
          { ...configMap('x'), apiVersion: 'admissionregistration.platform.io/v1', kind: def.kind },
          { def, namespace: '' },
        ),
      );
      await validate(
        [webhookEntry('all.example.com', h.hook, { rules: all })],
        create(configMap('cm'), { user: undefined }),
      );
      expect(h.hook.received).to.have.length(0);
    });
  });

  describe('reviews', () => {
    it('speaks v1beta1 to a webhook that accepts only it, whose answer need not carry the uid', async () => {
      h.hook.behave = (r) => answer(r, { uid: undefined });
      await validate(
        [webhookEntry('beta.example.com', h.hook, { admissionReviewVersions: ['v2', 'v1beta1'] })],
        create(configMap('cm')),
      );
      expect(h.hook.received[0].body.apiVersion).to.equal('admission.k8s.io/v1beta1');
    });

    it('sends admission.platform.io under --admission-review-api-group platform.io and reads either group', async () => {
      h.hook.behave = (r) => ({
        answer: { ...(answer(r) as { answer: object }).answer, apiVersion: 'admission.k8s.io/v1' },
      });
      await h.plugins([], [webhookEntry('ours.example.com', h.hook)], 'platform.io').validating.validate!(
        create(configMap('cm')),
      );
      expect(h.hook.received[0].body.apiVersion).to.equal('admission.platform.io/v1');
    });

    it('reaches a service clientConfig at its --aggregator-endpoints-file address, verified for the service name', async () => {
      const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-webhook-endpoints-'));
      const file = path.join(dir, 'endpoints.yaml');
      const base = new URL(h.hook.url);
      await writeFile(file, `- {namespace: webhooks, name: hook, port: 443, url: "https://127.0.0.1:${base.port}"}\n`);
      h.resolver = startEndpointsFileResolver(file, { log: () => {} });
      const service = { namespace: 'webhooks', name: 'hook', path: '/admit', port: 443 };
      await validate(
        [webhookEntry('svc.example.com', h.hook, { clientConfig: { service, caBundle: h.hook.caBundle } })],
        create(configMap('cm')),
      );
      expect(h.hook.received).to.have.length(1);
      const e = await refusal(
        validate(
          [
            webhookEntry('svc.example.com', h.hook, {
              clientConfig: { service: { ...service, name: 'nope' }, caBundle: h.hook.caBundle },
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
          [webhookEntry('tls.example.com', h.hook, { clientConfig: { url: h.hook.url, caBundle: stranger } })],
          create(configMap('cm')),
        ),
      );
      expect(e.code).to.equal(500);
      expect(e.message).to.include('x509: certificate signed by unknown authority');
      expect(h.hook.received).to.have.length(0);
    });
  });

  describe('metrics', () => {
    it('counts calls, rejections and their latency by webhook, type and operation', async () => {
      h.hook.behave = (r) => deny(r, { code: 409 });
      await refusal(validate([webhookEntry('m.example.com', h.hook)], create(configMap('cm'))));
      await mutate([webhookEntry('a.example.com', h.other)], create(configMap('cm')));
      const text = await h.metrics.registry.metrics();
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
