// The batch group served by a second Gatehouse behind the front (test/helpers/gatehouse-behind-gatehouse.ts); the
// real kubectl talks to the front only.
import { expect } from 'chai';
import { httpsRequest } from '../helpers/gatehouse.js';
import {
  APISERVICES,
  BATCH_SERVICE,
  startGatehouseBehindGatehouse,
  TOKENS,
  type GatehouseBehindGatehouse,
} from '../helpers/gatehouse-behind-gatehouse.js';

describe('Gatehouse behind Gatehouse: the batch group served by a second Gatehouse', function () {
  this.timeout(120_000);
  let env: GatehouseBehindGatehouse;

  const asFront = (user: string) =>
    httpsRequest(env.back.url, env.backCa, 'GET', `/apis/batch/v1/namespaces/${env.ns}/cronjobs`, {
      clientCert: env.proxyClient,
      headers: { 'x-remote-user': user },
    });

  before(async () => {
    env = await startGatehouseBehindGatehouse();
  });

  after(async () => {
    await env?.close();
  });

  it('keeps the remote APIService for the group switched off on the front', async () => {
    const obj = (await env.front.request('GET', `${APISERVICES}/v1.batch`)).json();
    expect(obj.spec.service).to.deep.include({ namespace: BATCH_SERVICE.namespace, name: BATCH_SERVICE.name });
    expect(obj.metadata.labels?.['kube-aggregator.kubernetes.io/automanaged']).to.equal(undefined);
  });

  it('kubectl create cronjob through the front lands in the second process', async () => {
    await env.kubectl.ok(['create', 'cronjob', 'nightly', '-n', env.ns, '--image=busybox', '--schedule=0 3 * * *']);
    const stored = await env.onBack('GET', `/apis/batch/v1/namespaces/${env.ns}/cronjobs/nightly`);
    expect(stored.status, stored.body).to.equal(200);
    expect(stored.json().spec.schedule).to.equal('0 3 * * *');
  });

  it('the second process serves only batch, and stores in a namespace only the front has', async () => {
    const groups = (await env.onBack('GET', '/apis')).json().groups.map((g: { name: string }) => g.name);
    expect(groups).to.deep.equal(['batch']);
    expect((await env.onBack('GET', '/api/v1/configmaps')).status).to.equal(404);
    expect((await env.onBack('GET', `/api/v1/namespaces/${env.ns}`)).status).to.equal(404);
    expect((await env.front.request('GET', `/api/v1/namespaces/${env.ns}`)).status).to.equal(200);
  });

  it('kubectl get cronjobs through the front lists what the second process stores', async () => {
    const out = await env.kubectl.ok(['get', 'cronjobs', '-n', env.ns, '-o', 'name']);
    expect(out.trim().split('\n')).to.deep.equal(['cronjob.batch/nightly']);
  });

  it('the second process asks the front: RBAC there decides who may act', async () => {
    expect((await asFront('alice')).status).to.equal(200);
    const refused = await asFront('bob');
    expect(refused.status, refused.body).to.equal(403);
    expect(refused.json().message).to.include('bob');
  });

  it('kubectl as a user the front refuses is told so; as one it allows, lists the cron job', async () => {
    const refused = await env.kubectl.run(['get', 'cronjobs', '-n', env.ns, `--token=${TOKENS.bob}`]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('User "bob" cannot list resource "cronjobs" in API group "batch"');
    const listed = await env.kubectl.ok(['get', 'cronjobs', '-n', env.ns, '-o', 'name', `--token=${TOKENS.alice}`]);
    expect(listed.trim()).to.equal('cronjob.batch/nightly');
  });
});
