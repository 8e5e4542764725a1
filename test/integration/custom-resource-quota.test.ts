// ResourceQuota over the objects of a CustomResourceDefinition, over real HTTPS: `count/<plural>.<group>` is measured
// once the definition is served (not before), a create past hard is refused with kube-apiserver's 403, deletes give
// the quota back, and deleting the definition (which deletes its objects first) leaves the count at 0.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { APIEXT_K8S, crd } from '../helpers/crds.js';

const GROUP = 'quota.example.com';
const COUNT = `count/widgets.${GROUP}`;

describe('ResourceQuota over custom resources', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'crquota');
  });
  after(async () => {
    await gh?.close();
  });

  const widgets = (name = '') => `/apis/${GROUP}/v1alpha1/namespaces/${ns}/widgets${name ? `/${name}` : ''}`;
  const createWidget = (name: string) =>
    gh.request('POST', widgets(), {
      body: { apiVersion: `${GROUP}/v1alpha1`, kind: 'Widget', metadata: { name }, spec: { replicas: 2 } },
    });
  const used = async (): Promise<Record<string, string> | undefined> =>
    (await gh.request('GET', `/api/v1/namespaces/${ns}/resourcequotas/q`)).json().status?.used;
  const usedBecomes = (expected: Record<string, string>) =>
    eventually(`used ${JSON.stringify(expected)}`, async () => {
      const now = await used();
      const sorted = (list: Record<string, string> | undefined) => JSON.stringify(Object.entries(list ?? {}).sort());
      return sorted(now) === sorted(expected) ? now : undefined;
    });

  it('counts the objects of a served definition, refuses creates past hard, and follows deletes', async () => {
    const quota = await gh.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, {
      body: {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'q' },
        spec: { hard: { [COUNT]: '2', 'count/configmaps': '5' } },
      },
    });
    expect(quota.status, quota.body).to.equal(201);
    // Nothing serves widgets yet: only the name Gatehouse can measure appears.
    await usedBecomes({ 'count/configmaps': '0' });

    const defined = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, {
      body: crd('widgets', GROUP),
    });
    expect(defined.status, defined.body).to.equal(201);
    await usedBecomes({ [COUNT]: '0', 'count/configmaps': '0' });

    expect((await createWidget('w1')).status).to.equal(201);
    expect((await createWidget('w2')).status).to.equal(201);
    // Charged by admission before the object is stored: no wait for the controller.
    expect(await used()).to.deep.equal({ [COUNT]: '2', 'count/configmaps': '0' });
    const refused = expectFailure(await createWidget('w3'), 403, 'Forbidden');
    expect(refused.message).to.equal(
      `widgets.${GROUP} "w3" is forbidden: exceeded quota: q, requested: ${COUNT}=1, used: ${COUNT}=2, limited: ${COUNT}=2`,
    );
    expect(refused.details).to.deep.equal({ name: 'w3', group: GROUP, kind: 'widgets' });
    expect((await gh.request('GET', widgets('w3'))).status).to.equal(404);

    expect((await gh.request('DELETE', widgets('w1'))).status).to.equal(200);
    await usedBecomes({ [COUNT]: '1', 'count/configmaps': '0' });
    expect((await createWidget('w3')).status).to.equal(201);

    // The definition's deletion deletes its objects, then the definition: the count goes to 0 and stays there.
    const crdPath = `${APIEXT_K8S}/customresourcedefinitions/widgets.${GROUP}`;
    expect((await gh.request('DELETE', crdPath)).status).to.be.oneOf([200, 202]);
    await eventually('definition gone', async () => (await gh.request('GET', crdPath)).status === 404);
    await usedBecomes({ [COUNT]: '0', 'count/configmaps': '0' });
    // A later recount (a configmap created) measures the name of a kind no longer served as 0, not as unknown.
    const cm = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } },
    });
    expect(cm.status, cm.body).to.equal(201);
    await usedBecomes({ [COUNT]: '0', 'count/configmaps': '1' });

    // Defined again, its objects are counted and charged again.
    const again = await gh.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, { body: crd('widgets', GROUP) });
    expect(again.status, again.body).to.equal(201);
    await eventually('widgets served again', async () => (await gh.request('GET', widgets())).status === 200);
    expect((await createWidget('w4')).status).to.equal(201);
    expect((await used())?.[COUNT]).to.equal('1');
  });
});
