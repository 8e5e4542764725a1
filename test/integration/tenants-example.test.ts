// The three-tenant example of deploy/examples/tenants/ is real: a gateway started with its rate-limit file, its
// manifests applied by the real kubectl, and each tenant's admins kept to their namespace by RBAC, to their quota by
// admission, to their FlowSchema's level by APF and, for the noisy tenant, to its request rate.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import yaml from 'js-yaml';
import { eventually, expectFailure, MERGE, readObject } from '../helpers/api.js';
import { ROOT } from '../helpers/deploy-files.js';
import { FC } from '../helpers/flowcontrol.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';

const EXAMPLE = path.join(ROOT, 'deploy/examples/tenants');
const TENANTS = ['tenant-a', 'tenant-b', 'tenant-c'] as const;
type Tenant = (typeof TENANTS)[number];

type Manifest = { kind: string; metadata: { name: string; namespace?: string }; spec?: any };
const manifests = yaml.loadAll(readFileSync(path.join(EXAMPLE, 'tenants.yaml'), 'utf8')) as Manifest[];
const quotaOf = (tenant: Tenant) =>
  manifests.find((m) => m.kind === 'ResourceQuota' && m.metadata.namespace === tenant) as Manifest;

/** Headers acting as one admin of a tenant: the admin token impersonating a member of the tenant's group. */
const as = (tenant: Tenant) => ({ 'Impersonate-User': `${tenant}-jane`, 'Impersonate-Group': `${tenant}-admins` });
const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

describe('the three-tenant example', function () {
  this.timeout(120_000);
  let gh: TestGatehouse;
  let kubectl: Kubectl;

  before(async () => {
    gh = await startTestGatehouse([
      '--authorization-mode=RBAC',
      '--rate-limit-config',
      path.join(EXAMPLE, 'rate-limits.yaml'),
    ]);
    kubectl = await createKubectl(gh.kubeconfigPath);
    const out = await kubectl.ok(['apply', '-f', path.join(EXAMPLE, 'tenants.yaml')]);
    for (const m of manifests) expect(out).to.include(`/${m.metadata.name} created`);
  });
  after(async () => {
    await kubectl?.cleanup();
    await gh?.close();
  });

  it("lets each tenant's admins into their own namespace and forbids the next tenant's", async () => {
    for (const [i, tenant] of TENANTS.entries()) {
      const other = TENANTS[(i + 1) % TENANTS.length];
      const own = await gh.request('GET', `/api/v1/namespaces/${tenant}/configmaps`, { headers: as(tenant) });
      expect(own.status, own.body).to.equal(200);
      const status = expectFailure(
        await gh.request('GET', `/api/v1/namespaces/${other}/configmaps`, { headers: as(tenant) }),
        403,
        'Forbidden',
      );
      expect(status.message).to.include(`"${tenant}-jane" cannot list resource "configmaps"`);
      expect(status.message).to.include(`in the namespace "${other}"`);
    }
    // A binding in one namespace reaches that namespace's own object and not the list of all of them.
    expect((await gh.request('GET', '/api/v1/namespaces/tenant-a', { headers: as('tenant-a') })).status).to.equal(200);
    expectFailure(await gh.request('GET', '/api/v1/namespaces', { headers: as('tenant-a') }), 403, 'Forbidden');
  });

  it("classifies each tenant's requests by its own FlowSchema and priority level", async () => {
    for (const tenant of TENANTS) {
      const schema = await readObject(gh, `${FC}/flowschemas/${tenant}`);
      const level = await readObject(gh, `${FC}/prioritylevelconfigurations/${tenant}`);
      // The dispatcher learns of the applied objects through its informers.
      const res = await eventually(`${tenant} classified by its FlowSchema`, async () => {
        const r = await gh.request('GET', `/api/v1/namespaces/${tenant}/configmaps`, { headers: as(tenant) });
        return r.headers['x-kubernetes-pf-flowschema-uid'] === schema.metadata.uid && r;
      });
      expect(res.headers['x-kubernetes-pf-prioritylevel-uid']).to.equal(level.metadata.uid);
    }
    // The seats docs/tenants.md works out: ceil(600 × shares / 310) of the default 600.
    const nominal = seriesOf(await scrape(gh), 'apiserver_flowcontrol_nominal_limit_seats');
    const seats = TENANTS.map((tenant) => nominal.get(labels({ priority_level: tenant })));
    expect(seats).to.deep.equal([78, 39, 10]);
  });

  it("refuses tenant-a's configmap past its quota's hard count", async () => {
    const hard = Number(quotaOf('tenant-a').spec.hard['count/configmaps']);
    const quotaPath = '/api/v1/namespaces/tenant-a/resourcequotas/tenant-a-quota';
    await eventually('the quota counted', async () => (await readObject(gh, quotaPath)).status?.hard);
    const collection = '/api/v1/namespaces/tenant-a/configmaps';
    // The administrator (never rate-limited) fills all but one, a few at a time.
    for (let start = 0; start < hard - 1; start += 10) {
      const batch = Array.from({ length: Math.min(10, hard - 1 - start) }, (_, j) => `filler-${start + j}`);
      const created = await Promise.all(batch.map((n) => gh.request('POST', collection, { body: configMap(n) })));
      for (const r of created) expect(r.status, r.body).to.equal(201);
    }
    // The tenant's admins read their quota but cannot raise it.
    const raise = { spec: { hard: { 'count/configmaps': String(hard * 2) } } };
    const patch = { body: raise, headers: { ...as('tenant-a'), ...MERGE } };
    expectFailure(await gh.request('PATCH', quotaPath, patch), 403, 'Forbidden');
    expect((await gh.request('GET', quotaPath, { headers: as('tenant-a') })).status).to.equal(200);
    const last = await gh.request('POST', collection, { body: configMap('last'), headers: as('tenant-a') });
    expect(last.status, last.body).to.equal(201);
    const status = expectFailure(
      await gh.request('POST', collection, { body: configMap('one-too-many'), headers: as('tenant-a') }),
      403,
      'Forbidden',
    );
    expect(status.message).to.equal(
      `configmaps "one-too-many" is forbidden: exceeded quota: tenant-a-quota, requested: count/configmaps=1, ` +
        `used: count/configmaps=${hard}, limited: count/configmaps=${hard}`,
    );
  });

  it('answers the noisy tenant past its burst with 429 naming its limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, () =>
        gh.request('GET', '/api/v1/namespaces/tenant-c/configmaps', { headers: as('tenant-c') }),
      ),
    );
    const refused = answers.filter((r) => r.status === 429);
    const served = answers.filter((r) => r.status === 200);
    expect(served.length + refused.length, answers.map((r) => r.status).join()).to.equal(answers.length);
    // A burst of 10, and 5 tokens a second while the 40 are answered.
    expect(refused.length).to.be.greaterThan(0);
    expect(served.length).to.be.at.most(20);
    const status = expectFailure(refused[0], 429, 'TooManyRequests');
    expect(status.message).to.match(/^rate limit tenant-c exceeded: at most 5 requests per second \(burst 10\)/);
    expect(Number(refused[0].headers['retry-after'])).to.be.at.least(1);
    const metrics = await scrape(gh);
    expect(
      seriesOf(metrics, 'gatehouse_rate_limit_rejected_requests_total').get(labels({ limit: 'tenant-c' })),
    ).to.equal(refused.length);
    // tenant-a's admins are not held back by tenant-c's bucket.
    const other = await gh.request('GET', '/api/v1/namespaces/tenant-a/configmaps', { headers: as('tenant-a') });
    expect(other.status).to.equal(200);
  });
});
