// ResourceQuota over real HTTPS: the controller fills status (hard = spec.hard, used = what the namespace holds) and
// follows creates and deletes; admission refuses a create past the limit with kube-apiserver's 403, charges the
// quota before the object is stored so racing creates cannot overrun it, and lets dry runs check without charging.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';

const RBAC = 'rbac.authorization.platform.io';

describe('ResourceQuota status and enforcement', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const quotaPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/resourcequotas${name ? `/${name}` : ''}`;
  const cmPath = (ns: string, name = '') => `/api/v1/namespaces/${ns}/configmaps${name ? `/${name}` : ''}`;

  async function createQuota(
    ns: string,
    name: string,
    hard: Record<string, string>,
    spec: Record<string, unknown> = {},
  ): Promise<void> {
    const res = await gh.request('POST', quotaPath(ns), {
      body: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard, ...spec } },
    });
    expect(res.status, res.body).to.equal(201);
  }

  async function getQuota(ns: string, name: string): Promise<any> {
    const res = await gh.request('GET', quotaPath(ns, name));
    expect(res.status, res.body).to.equal(200);
    return res.json();
  }

  /** Waits until the controller has written status.used equal to `used`. */
  function usedBecomes(ns: string, name: string, used: Record<string, string>): Promise<any> {
    return eventually(`quota ${ns}/${name} used ${JSON.stringify(used)}`, async () => {
      const q = await getQuota(ns, name);
      try {
        expect(q.status?.used).to.deep.equal(used);
        return q;
      } catch {
        return undefined;
      }
    });
  }

  const createConfigMap = (ns: string, name: string, query = '') =>
    gh.request('POST', `${cmPath(ns)}${query}`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } },
    });

  it('fills status.hard from spec.hard and status.used from the namespace, following creates and deletes', async () => {
    const ns = await createNamespace(gh, 'quota-status');
    expect((await createConfigMap(ns, 'before')).status).to.equal(201);
    await createQuota(ns, 'q', {
      'count/configmaps': '10',
      configmaps: '10',
      'count/secrets': '2',
      'count/resourcequotas': '3',
      [`count/roles.${RBAC}`]: '1k',
      cpu: '2',
      'requests.memory': '1Gi',
      pods: '4',
      services: '1',
      'count/widgets.example.com': '5',
    });
    const q = await usedBecomes(ns, 'q', {
      'count/configmaps': '1',
      configmaps: '1',
      'count/secrets': '0',
      'count/resourcequotas': '1',
      [`count/roles.${RBAC}`]: '0',
      cpu: '0',
      'requests.memory': '0',
      pods: '0',
      services: '0',
    });
    // status.hard is spec.hard, quantities in canonical form; a name nothing measures stays out of used.
    expect(q.status.hard).to.deep.equal({
      'count/configmaps': '10',
      configmaps: '10',
      'count/secrets': '2',
      'count/resourcequotas': '3',
      [`count/roles.${RBAC}`]: '1k',
      cpu: '2',
      'requests.memory': '1Gi',
      pods: '4',
      services: '1',
      'count/widgets.example.com': '5',
    });

    // A create is charged before it is stored: the next read of the quota already counts it.
    expect((await createConfigMap(ns, 'after')).status).to.equal(201);
    expect((await getQuota(ns, 'q')).status.used).to.include({ 'count/configmaps': '2', configmaps: '2' });
    const role = await gh.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r' }, rules: [] },
    });
    expect(role.status, role.body).to.equal(201);
    expect((await getQuota(ns, 'q')).status.used).to.include({ [`count/roles.${RBAC}`]: '1' });

    // Deletes give quota back once the controller recounts.
    expect((await gh.request('DELETE', cmPath(ns, 'before'))).status).to.equal(200);
    expect((await gh.request('DELETE', cmPath(ns, 'after'))).status).to.equal(200);
    await usedBecomes(ns, 'q', {
      'count/configmaps': '0',
      configmaps: '0',
      'count/secrets': '0',
      'count/resourcequotas': '1',
      [`count/roles.${RBAC}`]: '1',
      cpu: '0',
      'requests.memory': '0',
      pods: '0',
      services: '0',
    });

    // Raising spec.hard is reflected in status.hard.
    const patched = await gh.request('PATCH', quotaPath(ns, 'q'), {
      body: { spec: { hard: { 'count/secrets': '7' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status, patched.body).to.equal(200);
    await eventually(
      'status.hard follows spec.hard',
      async () => (await getQuota(ns, 'q')).status.hard['count/secrets'] === '7',
    );
  });

  it("refuses a create past the limit with kube-apiserver's 403, until a delete frees a slot", async () => {
    const ns = await createNamespace(gh, 'quota-deny');
    await createQuota(ns, 'q', { 'count/configmaps': '2' });
    await usedBecomes(ns, 'q', { 'count/configmaps': '0' });
    expect((await createConfigMap(ns, 'c1')).status).to.equal(201);
    expect((await createConfigMap(ns, 'c2')).status).to.equal(201);
    const status = expectFailure(await createConfigMap(ns, 'c3'), 403, 'Forbidden');
    expect(status.message).to.equal(
      'configmaps "c3" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2',
    );
    expect(status.details).to.deep.equal({ name: 'c3', kind: 'configmaps' });
    expect((await gh.request('GET', cmPath(ns, 'c3'))).status).to.equal(404);

    expect((await gh.request('DELETE', cmPath(ns, 'c1'))).status).to.equal(200);
    await usedBecomes(ns, 'q', { 'count/configmaps': '1' });
    expect((await createConfigMap(ns, 'c3')).status).to.equal(201);
  });

  it('charges nothing for a create that storage refuses because the name is taken', async () => {
    const ns = await createNamespace(gh, 'quota-taken');
    await createQuota(ns, 'q', { 'count/configmaps': '3' });
    await usedBecomes(ns, 'q', { 'count/configmaps': '0' });
    expect((await createConfigMap(ns, 'same')).status).to.equal(201);
    expectFailure(await createConfigMap(ns, 'same'), 409, 'AlreadyExists');
    expect((await getQuota(ns, 'q')).status.used).to.deep.equal({ 'count/configmaps': '1' });
  });

  it('names only the exceeded resources, legacy names and other groups included', async () => {
    const ns = await createNamespace(gh, 'quota-names');
    await createQuota(ns, 'legacy', { configmaps: '1', 'count/configmaps': '5' });
    await createQuota(ns, 'roles', { [`count/roles.${RBAC}`]: '0' });
    await usedBecomes(ns, 'legacy', { configmaps: '0', 'count/configmaps': '0' });
    await usedBecomes(ns, 'roles', { [`count/roles.${RBAC}`]: '0' });
    expect((await createConfigMap(ns, 'a')).status).to.equal(201);
    const cm = expectFailure(await createConfigMap(ns, 'b'), 403, 'Forbidden');
    expect(cm.message).to.equal(
      'configmaps "b" is forbidden: exceeded quota: legacy, requested: configmaps=1, used: configmaps=1, limited: configmaps=1',
    );
    const role = await gh.request('POST', `/apis/${RBAC}/v1/namespaces/${ns}/roles`, {
      body: { apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name: 'r' }, rules: [] },
    });
    expect(expectFailure(role, 403, 'Forbidden').message).to.equal(
      `roles.${RBAC} "r" is forbidden: exceeded quota: roles, requested: count/roles.${RBAC}=1, used: count/roles.${RBAC}=0, limited: count/roles.${RBAC}=0`,
    );
  });

  it('lets exactly the free slots go to creates racing for them', async () => {
    const ns = await createNamespace(gh, 'quota-race');
    await createQuota(ns, 'q', { 'count/configmaps': '5' });
    await usedBecomes(ns, 'q', { 'count/configmaps': '0' });
    expect((await createConfigMap(ns, 'pre-1')).status).to.equal(201);
    expect((await createConfigMap(ns, 'pre-2')).status).to.equal(201);
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => createConfigMap(ns, `race-${i}`)));
    const codes = results.map((r) => r.status);
    expect(
      codes.filter((c) => c === 201),
      codes.join(','),
    ).to.have.length(3);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(expectFailure(r, 403, 'Forbidden').message).to.match(
        /exceeded quota: q, requested: count\/configmaps=1, used: count\/configmaps=5, limited: count\/configmaps=5$/,
      );
    }
    const list = (await gh.request('GET', cmPath(ns))).json();
    expect(list.items).to.have.length(5);
    expect((await getQuota(ns, 'q')).status.used).to.deep.equal({ 'count/configmaps': '5' });
  });

  it('checks dry-run creates without charging them', async () => {
    const ns = await createNamespace(gh, 'quota-dry');
    await createQuota(ns, 'q', { 'count/configmaps': '1' });
    await usedBecomes(ns, 'q', { 'count/configmaps': '0' });
    const dry = await createConfigMap(ns, 'd', '?dryRun=All');
    expect(dry.status, dry.body).to.equal(201);
    const after = await getQuota(ns, 'q');
    expect(after.status.used).to.deep.equal({ 'count/configmaps': '0' });
    expect((await createConfigMap(ns, 'real')).status).to.equal(201);
    const refused = expectFailure(await createConfigMap(ns, 'd2', '?dryRun=All'), 403, 'Forbidden');
    expect(refused.message).to.equal(
      'configmaps "d2" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=1, limited: count/configmaps=1',
    );
  });

  it("counts nothing against a scoped quota, as upstream's object-count evaluators support no scopes", async () => {
    const ns = await createNamespace(gh, 'quota-scoped');
    expect((await createConfigMap(ns, 'x')).status).to.equal(201);
    await createQuota(ns, 'q', { 'count/configmaps': '1' }, { scopes: ['NotTerminating'] });
    await usedBecomes(ns, 'q', { 'count/configmaps': '0' });
    expect((await createConfigMap(ns, 'y')).status).to.equal(201);
  });
});
