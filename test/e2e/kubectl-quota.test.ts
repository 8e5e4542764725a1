// `kubectl create quota` and `kubectl get quota` with the stock kubectl: the controller fills the quota's status,
// the REQUEST column shows used/hard per resource as kube-apiserver's printer does, and a create past the limit
// fails in kubectl with the server's quota message.
import { expect } from 'chai';
import { parseColumns } from '../helpers/kubectl.js';
import { eventually, uniqueName } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

describe('kubectl and ResourceQuota', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  it('create quota, then get quota shows the usage following creates and deletes', async () => {
    const ns = uniqueName('kquota');
    await env.kubectl.ok(['create', 'namespace', ns]);
    expect(await env.kubectl.ok(['create', 'quota', 'q', '--hard=count/configmaps=2,secrets=5', '-n', ns])).to.match(
      /resourcequota\/q created/,
    );
    const row = async (): Promise<Record<string, string>> => {
      const rows = parseColumns(await env.kubectl.ok(['get', 'quota', '-n', ns]));
      expect(rows).to.have.length(1);
      return rows[0];
    };
    await eventually(
      'the controller fills status',
      async () => (await row()).REQUEST === 'count/configmaps: 0/2, secrets: 0/5',
    );
    const first = await row();
    expect(first).to.include({ NAME: 'q', LIMIT: '' });
    expect(first.AGE).to.match(/^\d+s$/);

    await env.kubectl.ok(['create', 'configmap', 'a', '-n', ns, '--from-literal=k=v']);
    // Admission charged the create: no wait for the controller.
    expect((await row()).REQUEST).to.equal('count/configmaps: 1/2, secrets: 0/5');
    await env.kubectl.ok(['create', 'configmap', 'b', '-n', ns]);
    const refused = await env.kubectl.run(['create', 'configmap', 'c', '-n', ns]);
    expect(refused.code).to.not.equal(0);
    expect(refused.stderr).to.include(
      'configmaps "c" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2',
    );

    await env.kubectl.ok(['delete', 'configmap', 'a', '-n', ns]);
    await eventually(
      'a delete gives quota back',
      async () => (await row()).REQUEST === 'count/configmaps: 1/2, secrets: 0/5',
    );
    const described = await env.kubectl.ok(['describe', 'quota', 'q', '-n', ns]);
    expect(described).to.match(/count\/configmaps\s+1\s+2/);
  });
});
