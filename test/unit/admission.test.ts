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
    await storage.close();
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
