// Quota's pieces alone: quantity arithmetic and printing, the resource names a kind consumes, the status the
// controller computes, the check admission makes, and the admission plugin on two registries over one storage
// (two replicas, each with its own in-process queue) so only the resourceVersion precondition keeps racing creates
// within the limit; then the controller alone on one registry.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createRegistry } from '../../gateway/registry/registry.js';
import type { WriteContext } from '../../gateway/registry/admission-types.js';
import { admissionPlugins } from '../../gateway/admission/plugins.js';
import { chargeCreate, computeQuotaStatus, QuotaDenied } from '../../gateway/quota/evaluate.js';
import {
  addQuantities,
  compareQuantityStrings,
  countQuantity,
  prettyPrint,
  sameResourceList,
} from '../../gateway/quota/quantities.js';
import {
  countedNames,
  hasScopes,
  isUnservedEvaluatorName,
  objectCountName,
} from '../../gateway/quota/resource-names.js';
import { isStatusError } from '../../api/meta/errors.js';
import { startResourceQuotaController } from '../../gateway/controllers/resource-quota.js';
import { eventually } from '../helpers/api.js';

function quota(spec: Record<string, unknown>, status?: Record<string, unknown>): KObject {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name: 'q', namespace: 'ns' },
    spec,
    ...(status ? { status } : {}),
  };
}

describe('quota quantities', () => {
  it('prints counts as resource.NewQuantity(n, DecimalSI) does', () => {
    expect([0, 1, 999, 1000, 1500, 2000000].map(countQuantity)).to.deep.equal(['0', '1', '999', '1k', '1500', '2M']);
  });

  it("adds exactly, keeping the first operand's format", () => {
    expect(addQuantities('2', '1')).to.equal('3');
    expect(addQuantities('999', '1')).to.equal('1k');
    expect(addQuantities('1Ki', '1')).to.equal('1025');
    expect(addQuantities('1Gi', '1Gi')).to.equal('2Gi');
    expect(addQuantities('500m', '1')).to.equal('1500m');
    expect(addQuantities('-1', '1')).to.equal('0');
  });

  it('compares across suffixes and prints lists sorted', () => {
    expect(compareQuantityStrings('1k', '1000')).to.equal(0);
    expect(compareQuantityStrings('3', '2')).to.equal(1);
    expect(compareQuantityStrings('1Ki', '1k')).to.equal(1);
    expect(sameResourceList({ a: '1k' }, { a: '1000' })).to.equal(true);
    expect(sameResourceList({ a: '1' }, { a: '1', b: '0' })).to.equal(false);
    expect(prettyPrint({ 'count/secrets': '2', configmaps: '1000' })).to.equal('configmaps=1k,count/secrets=2');
  });
});

describe('quota resource names', () => {
  it('counts each kind under count/<resource>[.<group>] and the core legacy names', () => {
    expect(countedNames('', 'configmaps')).to.deep.equal(['count/configmaps', 'configmaps']);
    expect(countedNames('', 'secrets')).to.deep.equal(['count/secrets', 'secrets']);
    expect(countedNames('', 'resourcequotas')).to.deep.equal(['count/resourcequotas', 'resourcequotas']);
    expect(countedNames('', 'serviceaccounts')).to.deep.equal(['count/serviceaccounts']);
    expect(countedNames('apps', 'replicasets')).to.deep.equal(['count/replicasets.apps']);
    expect(objectCountName('batch', 'cronjobs')).to.equal('count/cronjobs.batch');
  });

  it("knows the names of upstream's pod, service and PVC evaluators", () => {
    for (const n of [
      'cpu',
      'limits.memory',
      'pods',
      'count/pods',
      'services.nodeports',
      'requests.storage',
      'hugepages-2Mi',
      'requests.hugepages-1Gi',
      'requests.example.com/gpu',
      'gold.storageclass.storage.k8s.io/requests.storage',
      'replicationcontrollers',
    ]) {
      expect(isUnservedEvaluatorName(n), n).to.equal(true);
    }
    for (const n of ['count/widgets.example.com', 'example.com/gpu', 'requests.kubernetes.io/x', 'configmaps', 'foo']) {
      expect(isUnservedEvaluatorName(n), n).to.equal(false);
    }
  });

  it('sees scopes in either field', () => {
    expect(hasScopes(quota({ hard: {} }))).to.equal(false);
    expect(hasScopes(quota({ scopes: ['BestEffort'] }))).to.equal(true);
    expect(
      hasScopes(quota({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'Exists' }] } })),
    ).to.equal(true);
  });
});

describe('quota usage computation', () => {
  const observe = (counts: Record<string, number>) => (name: string) =>
    counts[name] ?? (isUnservedEvaluatorName(name) ? 0 : undefined);

  it('copies spec.hard and measures every hard name it can, sorted', () => {
    const q = quota({ hard: { 'count/secrets': '1000', cpu: '2', configmaps: '4', 'count/widgets.example.com': '1' } });
    expect(computeQuotaStatus(q, observe({ configmaps: 3, 'count/secrets': 1000 }))).to.deep.equal({
      hard: { configmaps: '4', 'count/secrets': '1k', 'count/widgets.example.com': '1', cpu: '2' },
      used: { configmaps: '3', 'count/secrets': '1k', cpu: '0' },
    });
  });

  it('keeps a recorded value it cannot measure, and drops names hard no longer holds', () => {
    const q = quota(
      { hard: { 'count/widgets.example.com': '5' } },
      { used: { 'count/widgets.example.com': '2', configmaps: '1' } },
    );
    expect(computeQuotaStatus(q, observe({})).used).to.deep.equal({ 'count/widgets.example.com': '2' });
  });

  it('lowers used on a full recount but only raises it after a create', () => {
    const q = quota({ hard: { configmaps: '5', secrets: '5' } }, { used: { configmaps: '3', secrets: '1' } });
    expect(computeQuotaStatus(q, observe({ configmaps: 2, secrets: 2 })).used).to.deep.equal({
      configmaps: '2',
      secrets: '2',
    });
    expect(computeQuotaStatus(q, observe({ configmaps: 2, secrets: 2 }), { raiseOnly: true }).used).to.deep.equal({
      configmaps: '3',
      secrets: '2',
    });
  });

  it('counts 0 for a scoped quota', () => {
    const q = quota({ hard: { configmaps: '5' }, scopes: ['NotTerminating'] });
    expect(computeQuotaStatus(q, observe({ configmaps: 2 })).used).to.deep.equal({ configmaps: '0' });
  });
});

describe('quota admission check', () => {
  const names = countedNames('', 'configmaps');

  it('charges every restricted name and leaves other names alone', () => {
    const q = quota(
      {},
      {
        hard: { configmaps: '3', 'count/configmaps': '3', cpu: '1' },
        used: { configmaps: '1', 'count/configmaps': '1', cpu: '0' },
      },
    );
    expect(chargeCreate(q, names)).to.deep.equal({ configmaps: '2', 'count/configmaps': '2', cpu: '0' });
  });

  it('ignores quotas that do not restrict the object', () => {
    expect(chargeCreate(quota({}, { hard: { secrets: '0' }, used: { secrets: '0' } }), names)).to.equal(undefined);
    expect(
      chargeCreate(quota({ scopes: ['BestEffort'] }, { hard: { configmaps: '0' }, used: { configmaps: '0' } }), names),
    ).to.equal(undefined);
    // A quota the controller has not filled yet has no status.hard: nothing to enforce yet.
    expect(chargeCreate(quota({ hard: { configmaps: '0' } }), names)).to.equal(undefined);
  });

  it("refuses with upstream's messages", () => {
    const over = quota(
      {},
      { hard: { configmaps: '2', 'count/configmaps': '9' }, used: { configmaps: '2', 'count/configmaps': '2' } },
    );
    expect(() => chargeCreate(over, names)).to.throw(
      QuotaDenied,
      'exceeded quota: q, requested: configmaps=1, used: configmaps=2, limited: configmaps=2',
    );
    const unknown = quota({}, { hard: { configmaps: '2', 'count/configmaps': '2' }, used: { configmaps: '0' } });
    expect(() => chargeCreate(unknown, names)).to.throw(
      QuotaDenied,
      'status unknown for quota: q, resources: configmaps,count/configmaps',
    );
  });
});

describe('quota admission across replicas', function () {
  this.timeout(20_000);

  it('lets exactly the free slots through when two registries race on one storage', async () => {
    const storage = createMemoryStorage({ historyWindowMs: 60_000 });
    const replicas = [0, 1].map(() => {
      const registry = createRegistry(builtinKinds, storage, createKindValidator);
      registry.setAdmission(admissionPlugins({ registry }));
      return registry;
    });
    const ctx = (): WriteContext => ({
      dryRun: false,
      fieldValidation: 'Ignore',
      duplicateFields: [],
      warnings: [],
      user: { username: 'alice', groups: [] } as never,
    });
    const internal = (): WriteContext => ({
      dryRun: false,
      fieldValidation: 'Ignore',
      duplicateFields: [],
      warnings: [],
    });
    const [a, b] = replicas.map((r) => ({ cm: r.byKind('', 'ConfigMap')!, rq: r.byKind('', 'ResourceQuota')! }));
    await replicas[0].byKind('', 'Namespace')!.create('', { metadata: { name: 'ns' } }, internal());
    const created = await a.rq.create(
      'ns',
      { metadata: { name: 'q' }, spec: { hard: { 'count/configmaps': '4' } } },
      internal(),
    );
    await a.rq.update(
      'ns',
      'q',
      { ...structuredClone(created), status: { hard: { 'count/configmaps': '4' }, used: { 'count/configmaps': '0' } } },
      internal(),
      'status',
    );

    const attempts = Array.from({ length: 16 }, (_, i) =>
      (i % 2 === 0 ? a : b).cm.create('ns', { metadata: { name: `c${i}` } }, ctx()).then(
        () => 'ok',
        (e: unknown) => (isStatusError(e) ? `${e.code}` : String(e)),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(
      outcomes.filter((o) => o === 'ok'),
      outcomes.join(','),
    ).to.have.length(4);
    expect(
      outcomes.filter((o) => o !== 'ok').every((o) => o === '403'),
      outcomes.join(','),
    ).to.equal(true);
    expect((await storage.getList(a.cm.prefix('ns'))).items).to.have.length(4);
    expect(((await a.rq.get('ns', 'q')).status as any).used).to.deep.equal({ 'count/configmaps': '4' });
    await storage.close();
  });
});

describe('resourcequota-controller', function () {
  this.timeout(20_000);

  it('counts what the server itself creates, gives back deletes, and repairs a status that left spec', async () => {
    const storage = createMemoryStorage({ historyWindowMs: 60_000 });
    const registry = createRegistry(builtinKinds, storage, createKindValidator);
    const internal = (): WriteContext => ({
      dryRun: false,
      fieldValidation: 'Ignore',
      duplicateFields: [],
      warnings: [],
    });
    const rq = registry.byKind('', 'ResourceQuota')!;
    const secrets = registry.byKind('', 'Secret')!;
    await registry.byKind('', 'Namespace')!.create('', { metadata: { name: 'ns' } }, internal());
    const controller = startResourceQuotaController(registry, { log: () => {}, debounceMs: 5 });
    try {
      await rq.create(
        'ns',
        { metadata: { name: 'q' }, spec: { hard: { secrets: '3', 'count/secrets': '3' } } },
        internal(),
      );
      const used = async (want: Record<string, string>) =>
        eventually(`used ${JSON.stringify(want)}`, async () => {
          const status = (await rq.get('ns', 'q')).status as any;
          return JSON.stringify(status?.used) === JSON.stringify(want) ? status : undefined;
        });
      await used({ 'count/secrets': '0', secrets: '0' });
      // Internal writes are not charged by admission: the controller's recount after the ADDED event raises used.
      await secrets.create('ns', { metadata: { name: 's1' } }, internal());
      await secrets.create('ns', { metadata: { name: 's2' } }, internal());
      await used({ 'count/secrets': '2', secrets: '2' });
      await secrets.delete('ns', 's1', {}, internal());
      await used({ 'count/secrets': '1', secrets: '1' });
      // A status written by hand that disagrees with spec.hard is put back.
      const current = structuredClone(await rq.get('ns', 'q'));
      await rq.update(
        'ns',
        'q',
        { ...current, status: { hard: { secrets: '9' }, used: { secrets: '7' } } },
        internal(),
        'status',
      );
      const repaired = await used({ 'count/secrets': '1', secrets: '1' });
      expect(repaired.hard).to.deep.equal({ 'count/secrets': '3', secrets: '3' });
    } finally {
      await controller.stop();
      await storage.close();
    }
  });
});
