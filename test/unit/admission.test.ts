// The admission list: its order (upstream's: NamespaceLifecycle first, ResourceQuota last) and the two phases of the
// chain (every mutating step before any validating one).
import { expect } from 'chai';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createRegistry } from '../../gateway/registry/registry.js';
import { admissionPlugins } from '../../gateway/admission/plugins.js';
import { admissionChain, type AdmissionPlugin } from '../../gateway/admission/plugin.js';
import type { AdmissionRequest } from '../../gateway/registry/admission-types.js';
import { isStatusError } from '../../api/meta/errors.js';
import { startAdmissionWebhooks } from '../../gateway/admission/webhook/admission-webhooks.js';
import { createAdmissionMetrics, observeAdmission } from '../../gateway/admission/admission-metrics.js';
import { MetricsRegistry } from '../../gateway/metrics/registration.js';
import { realClock } from '../../gateway/server/clock.js';

describe('admission', () => {
  it('orders the plugins as upstream does', async () => {
    const storage = createMemoryStorage({ historyWindowMs: 60_000 });
    const registry = createRegistry(builtinKinds, storage, createKindValidator);
    const authorization = {
      authorizer: { authorize: async () => ({ decision: 'NoOpinion' as const, reason: '' }) },
      rbac: {} as never,
      modes: () => [],
    };
    const names = admissionPlugins({ registry, authorization: authorization as never }).map((p) => p.name);
    expect(names).to.deep.equal(['NamespaceLifecycle', 'RBACEscalation', 'NodeRestriction', 'ResourceQuota']);
    expect(admissionPlugins({ registry }).map((p) => p.name)).to.deep.equal(['NamespaceLifecycle', 'ResourceQuota']);
    // ValidatingAdmissionPolicy after the built-in validating plugins, before the quota charge.
    const source = {
      snapshot: () => ({ policies: new Map(), bindings: [] }),
      synced: Promise.resolve(),
      paramsOf: () => undefined,
      stop: async () => {},
    };
    const withPolicies = admissionPlugins({ registry, authorization: authorization as never, policies: { source } });
    expect(withPolicies.map((p) => p.name)).to.deep.equal([
      'NamespaceLifecycle',
      'RBACEscalation',
      'NodeRestriction',
      'ValidatingAdmissionPolicy',
      'ResourceQuota',
    ]);
    // Webhooks where upstream's AllOrderedPlugins has them: mutating after the built-in plugins, validating between
    // the policies and the quota charge.
    const webhooks = startAdmissionWebhooks({
      registry,
      resolver: () => undefined,
      clock: realClock,
      log: () => {},
      reviewGroup: 'k8s.io',
    });
    const withWebhooks = admissionPlugins({
      registry,
      authorization: authorization as never,
      policies: { source },
      webhooks,
    });
    expect(withWebhooks.map((p) => p.name)).to.deep.equal([
      'NamespaceLifecycle',
      'RBACEscalation',
      'NodeRestriction',
      'MutatingAdmissionWebhook',
      'ValidatingAdmissionPolicy',
      'ValidatingAdmissionWebhook',
      'ResourceQuota',
    ]);
    await webhooks.stop();
    await storage.close();
  });

  it('times each plugin step and each phase of a write, rejected or not', async () => {
    const plugin = (name: string, refuse = false): AdmissionPlugin => ({
      name,
      handles: () => true,
      async validate() {
        if (refuse) throw new Error('no');
      },
    });
    const metrics = new MetricsRegistry();
    const observed = observeAdmission([plugin('a'), plugin('b')], createAdmissionMetrics(metrics));
    const req = { operation: 'CREATE', def: builtinKinds[0] } as unknown as AdmissionRequest;
    await admissionChain(observed).validate(req);
    const refusing = new MetricsRegistry();
    await admissionChain(observeAdmission([plugin('c', true), plugin('d')], createAdmissionMetrics(refusing)))
      .validate(req)
      .catch(() => {});
    const text = await metrics.registry.metrics();
    const count = (line: string) => text.split('\n').find((l) => l.startsWith(line));
    expect(
      count(
        'apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="false"}',
      ),
    ).to.match(/ 1$/);
    expect(
      count(
        'apiserver_admission_controller_admission_duration_seconds_count{name="a",type="validate",operation="CREATE",rejected="false"}',
      ),
    ).to.match(/ 1$/);
    expect(count('apiserver_admission_controller_admission_duration_seconds_count{name="b",')).to.match(/ 1$/);
    const refused = await refusing.registry.metrics();
    expect(refused).to.include(
      'apiserver_admission_step_admission_duration_seconds_count{type="validate",operation="CREATE",rejected="true"} 1',
    );
    expect(refused).to.include(
      'apiserver_admission_controller_admission_duration_seconds_count{name="c",type="validate",operation="CREATE",rejected="true"} 1',
    );
    expect(refused).to.not.include('name="d"');
  });

  it('runs every mutating step, in order, before the first validating one', async () => {
    const seen: string[] = [];
    const plugin = (name: string, handles = true): AdmissionPlugin => ({
      name,
      handles: () => handles,
      async mutate() {
        seen.push(`mutate ${name}`);
      },
      async validate() {
        seen.push(`validate ${name}`);
      },
    });
    const chain = admissionChain([plugin('a'), plugin('skipped', false), plugin('b')]);
    const req = {
      operation: 'CREATE',
      def: builtinKinds[0],
      namespace: '',
      name: 'x',
      subresource: '',
      object: {},
      dryRun: false,
    } as unknown as AdmissionRequest;
    await chain.mutate(req);
    await chain.validate(req);
    expect(seen).to.deep.equal(['mutate a', 'mutate b', 'validate a', 'validate b']);
  });

  it('keeps the namespace rules on a registry the server has not given its list', async () => {
    const storage = createMemoryStorage({ historyWindowMs: 60_000 });
    const registry = createRegistry(builtinKinds, storage, createKindValidator);
    const ctx = { dryRun: false, fieldValidation: 'Ignore' as const, duplicateFields: [], warnings: [] };
    const refusal = await registry
      .byKind('', 'ConfigMap')!
      .create('missing', { metadata: { name: 'c' } }, ctx)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isStatusError(refusal) && refusal.code).to.equal(404);
    await storage.close();
  });
});
