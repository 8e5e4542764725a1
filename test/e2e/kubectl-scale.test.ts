// The stock kubectl 1.32 on the ReplicaSet scale subresource: `kubectl scale` (found through discovery's
// replicasets/scale entry, written as a merge patch or, with --resource-version, a read and a PUT of the Scale) and
// `kubectl get --subresource=scale`.
import { expect } from 'chai';
import yaml from 'js-yaml';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { parseColumns } from '../helpers/kubectl.js';
import { uniqueName } from '../helpers/api.js';

describe('kubectl scale', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  let ns: string;

  before(async () => {
    ns = uniqueName('scale');
    await env.kubectl.ok(['create', 'namespace', ns]);
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'x', namespace: ns },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'x' } },
        template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    };
    await env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('rs.yaml', yaml.dump(rs))]);
  });

  const replicas = async (): Promise<number> =>
    (await env.gh.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/x`)).json().spec.replicas;

  it('kubectl scale rs x --replicas=3 sets spec.replicas', async () => {
    expect(await env.kubectl.ok(['scale', 'rs', 'x', '--replicas=3', '-n', ns])).to.equal('replicaset.apps/x scaled\n');
    expect(await replicas()).to.equal(3);
  });

  it("kubectl scale with --resource-version compares it with the Scale's and then PUTs the Scale", async () => {
    const stale = await env.kubectl.run(['scale', 'rs', 'x', '--replicas=4', '--resource-version=1', '-n', ns]);
    expect(stale.code).to.not.equal(0);
    expect(stale.stderr).to.match(/Expected resource version to be 1, was \d+/);
    const current = (await env.gh.request('GET', `/apis/apps/v1/namespaces/${ns}/replicasets/x`)).json().metadata
      .resourceVersion;
    await env.kubectl.ok(['scale', 'rs', 'x', '--replicas=4', `--resource-version=${current}`, '-n', ns]);
    expect(await replicas()).to.equal(4);
  });

  it('kubectl get rs x --subresource=scale prints the Scale table: desired and available replicas', async () => {
    const rows = parseColumns(await env.kubectl.ok(['get', 'rs', 'x', '--subresource=scale', '-n', ns]));
    expect(rows).to.deep.equal([{ NAME: 'x', DESIRED: String(await replicas()), AVAILABLE: '0' }]);
  });

  it('kubectl get rs x --subresource=scale -o json prints the autoscaling/v1 Scale', async () => {
    const scale = JSON.parse(await env.kubectl.ok(['get', 'rs', 'x', '--subresource=scale', '-o', 'json', '-n', ns]));
    expect(scale).to.deep.include({ kind: 'Scale', apiVersion: 'autoscaling/v1' });
    expect(scale.metadata.name).to.equal('x');
    expect(scale.spec).to.deep.equal({ replicas: await replicas() });
    expect(scale.status).to.deep.equal({ replicas: 0, selector: 'app=x' });
  });
});
