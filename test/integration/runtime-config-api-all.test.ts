// A server switched down to one group (`--runtime-config=api/all=false,batch/v1=true`) and without the namespace
// rules (`--disable-admission-plugins=NamespaceLifecycle`): what a Gatehouse serving one group behind another runs
// with (docs/aggregation.md).
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';

const cronJob = (name: string) => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: {
    schedule: '0 3 * * *',
    jobTemplate: {
      spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    },
  },
});

describe('--runtime-config=api/all=false with one group on, and --disable-admission-plugins', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;

  before(async () => {
    gh = await startTestGatehouse([
      '--storage-backend=memory',
      '--runtime-config=api/all=false,batch/v1=true',
      '--disable-admission-plugins=NamespaceLifecycle',
      '--enable-admission-plugins=LimitRanger',
    ]);
  });

  after(async () => {
    await gh?.close();
  });

  it('serves that group, and of the core group the namespaces only', async () => {
    const groups = (await gh.request('GET', '/apis')).json().groups.map((g: { name: string }) => g.name);
    expect(groups).to.deep.equal(['batch']);
    const core = (await gh.request('GET', '/api/v1')).json().resources.map((r: { name: string }) => r.name);
    expect(core).to.deep.equal(['namespaces', 'namespaces/status']);
    expect((await gh.request('GET', '/apis/batch/v1/cronjobs')).status).to.equal(200);
    for (const off of ['/api/v1/configmaps', '/apis/apps/v1/deployments', '/apis/rbac.authorization.k8s.io/v1/roles'])
      expect((await gh.request('GET', off)).status, off).to.equal(404);
    const openapi = Object.keys((await gh.request('GET', '/openapi/v3')).json().paths);
    expect(openapi).to.deep.equal(['api/v1', 'apis/batch/v1']);
  });

  it('switches the review resources off with their groups', async () => {
    const review = await gh.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      body: { spec: { resourceAttributes: { verb: 'get', resource: 'pods' } } },
    });
    expect(review.status, review.body).to.equal(404);
  });

  it('keeps the health endpoints', async () => {
    for (const p of ['/healthz', '/livez', '/readyz', '/version'])
      expect((await gh.request('GET', p)).status, p).to.equal(200);
  });

  it('admits a write to a namespace this server does not have when NamespaceLifecycle is disabled', async () => {
    const res = await gh.request('POST', '/apis/batch/v1/namespaces/elsewhere/cronjobs', { body: cronJob('nightly') });
    expect(res.status, res.body).to.equal(201);
    expect(res.json().metadata.namespace).to.equal('elsewhere');
    expect((await gh.request('GET', '/apis/batch/v1/namespaces/elsewhere/cronjobs/nightly')).status).to.equal(200);
  });

  it('warns at start about an enabled plugin it does not implement', () => {
    expect(gh.logs.join('\n')).to.include('admission plugin LimitRanger is not implemented by Gatehouse');
  });

  it('with the namespace rules (the default), refuses that write', async () => {
    const strict = await startTestGatehouse([
      '--storage-backend=memory',
      '--runtime-config=api/all=false,batch/v1=true',
    ]);
    try {
      const res = await strict.request('POST', '/apis/batch/v1/namespaces/elsewhere/cronjobs', { body: cronJob('x') });
      expect(res.status, res.body).to.equal(404);
      expect(res.json().message).to.equal('namespaces "elsewhere" not found');
    } finally {
      await strict.close();
    }
  });
});
