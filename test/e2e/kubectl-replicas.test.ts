// The stock kubectl against two gateway replicas on one PostgreSQL database, each through the admin kubeconfig its
// replica wrote: what an operator does through one replica shows in what kubectl prints through the other, a watch
// over HTTP/2 included, and paged lists walk the whole collection.
import { expect } from 'chai';
import path from 'node:path';
import yaml from 'js-yaml';
import { createKubectl, parseColumns, type Kubectl } from '../helpers/kubectl.js';
import { replicasOnPostgres } from '../helpers/replicas.js';

describe('kubectl against two replicas on one PostgreSQL database', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: ['a', 'b'] });
  let viaA: Kubectl;
  let viaB: Kubectl;

  before(async () => {
    const [a, b] = env.cluster.replicas;
    viaA = await createKubectl(path.join(a.dataDir, 'admin.kubeconfig'));
    viaB = await createKubectl(path.join(b.dataDir, 'admin.kubeconfig'));
  });

  after(async () => {
    await viaA?.cleanup();
    await viaB?.cleanup();
  });

  it('applies through A, lists through B in pages, watches on B what A writes, and deletes through B', async () => {
    const ns = 'kubectl-replicas';
    await viaA.ok(['create', 'namespace', ns]);
    const configMaps = Array.from({ length: 5 }, (_, i) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `cm-${i}`, namespace: ns },
      data: { i: String(i) },
    }));
    const file = await viaA.manifest('cms.yaml', configMaps.map((o) => yaml.dump(o)).join('---\n'));
    expect(await viaA.ok(['apply', '-f', file])).to.match(/configmap\/cm-4 created/);

    // Pages of two: kubectl follows the continue tokens B hands out until the collection is walked (-v=6 logs each
    // request it sends).
    const paged = await viaB.run(['get', 'configmaps', '-n', ns, '--chunk-size=2', '-v=6']);
    expect(paged.code, paged.stderr).to.equal(0);
    expect(
      parseColumns(paged.stdout)
        .map((r) => r.NAME)
        .filter((n) => n.startsWith('cm-')),
    ).to.deep.equal(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
    expect(paged.stderr.match(/GET \S+\/configmaps\?continue=\S+ 200 OK/g) ?? []).to.have.length.of.at.least(2);

    const watch = viaB.stream(['get', 'configmaps', '-n', ns, '--watch', '--output-watch-events']);
    try {
      await watch.waitForLine(/^ADDED\s+cm-4\s/);
      const from = watch.lines.length;
      await viaA.ok(['create', 'configmap', 'late', '-n', ns, '--from-literal=k=v']);
      await watch.waitForLine(/^ADDED\s+late\s/, { from, timeoutMs: 15_000 });
      await viaA.ok(['label', 'configmap', 'late', '-n', ns, 'seen=yes']);
      await watch.waitForLine(/^MODIFIED\s+late\s/, { from, timeoutMs: 15_000 });
    } finally {
      await watch.stop();
    }

    expect(await viaB.ok(['delete', 'configmap', 'late', '-n', ns])).to.match(/configmap "late" deleted/);
    const gone = await viaA.run(['get', 'configmap', 'late', '-n', ns]);
    expect(gone.code).to.not.equal(0);
    expect(gone.stderr).to.match(/configmaps "late" not found/);
    expect(JSON.parse(await viaA.ok(['get', 'configmap', 'cm-2', '-n', ns, '-o', 'json'])).data).to.deep.equal({
      i: '2',
    });
  });
});
