// Moving from `kubectl apply` (client-side) to `kubectl apply --server-side` with the stock kubectl 1.32, which after
// its first server-side apply moves the client-side manager's fields into its own Apply entry (with their FieldsV1
// "." markers) and applies again: nothing may be lost or conflict, while a field someone else changed still conflicts.
import { expect } from 'chai';
import yaml from 'js-yaml';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

describe('kubectl apply: client-side, then server-side', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const ns = 'e2e-csa-ssa';

  before(async () => {
    const res = await env.gh.request('POST', '/api/v1/namespaces', {
      body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    });
    expect(res.status).to.equal(201);
  });

  const configMap = (name: string, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: ns, labels: { app: name } },
    data,
  });
  const file = async (obj: any, tag: string) =>
    env.kubectl.manifest(`${obj.metadata.name}-${tag}.yaml`, yaml.dump(obj));
  const get = async (path: string): Promise<any> => (await env.gh.request('GET', path)).json();
  const cmPath = (name: string) => `/api/v1/namespaces/${ns}/configmaps/${name}`;

  for (const flags of [['--force-conflicts'], []]) {
    it(
      `keeps data and labels re-applying the same ConfigMap with --server-side ${flags.join(' ')}`.trimEnd(),
      async () => {
        const name = `same${flags.length}`;
        const manifest = await file(configMap(name, { a: '1' }), 'v1');
        expect(await env.kubectl.ok(['apply', '-f', manifest])).to.equal(`configmap/${name} created\n`);
        expect(await env.kubectl.ok(['apply', '--server-side', ...flags, '-f', manifest])).to.equal(
          `configmap/${name} serverside-applied\n`,
        );
        const obj = await get(cmPath(name));
        expect(obj.data).to.deep.equal({ a: '1' });
        expect(obj.metadata.labels).to.deep.equal({ app: name });
        // The client-side manager is gone: its fields moved to kubectl's Apply entry, and that apply normalized them.
        const managers = obj.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`).sort();
        expect(managers).to.deep.equal(['kubectl-last-applied/Apply', 'kubectl/Apply']);
        expect(obj.metadata.managedFields.find((e: any) => e.manager === 'kubectl').fieldsV1).to.deep.equal({
          'f:data': { 'f:a': {} },
          'f:metadata': { 'f:labels': { 'f:app': {} } },
        });
        // Rewritten by the server-side apply: kubectl's client-side record carries "annotations": {}, its apply body none.
        expect(JSON.parse(obj.metadata.annotations[LAST_APPLIED])).to.deep.equal(configMap(name, { a: '1' }));
        // And from then on, applying the same manifest writes nothing.
        expect(await env.kubectl.ok(['apply', '--server-side', '-f', manifest])).to.equal(
          `configmap/${name} serverside-applied\n`,
        );
        expect((await get(cmPath(name))).metadata.resourceVersion).to.equal(obj.metadata.resourceVersion);
      },
    );
  }

  it('applies a changed manifest server-side without conflicts (a dropped key goes), after kubectl diff --server-side showed it', async () => {
    const name = 'changed';
    expect(await env.kubectl.ok(['apply', '-f', await file(configMap(name, { a: '1', b: '2' }), 'v1')])).to.equal(
      `configmap/${name} created\n`,
    );
    const changed = await file(configMap(name, { a: 'new' }), 'v2');
    const diff = await env.kubectl.run(['diff', '--server-side', '-f', changed]);
    expect(diff.code, diff.stderr).to.equal(1);
    expect(diff.stderr).to.equal('');
    expect(diff.stdout).to.match(/^- {2}a: "1"$/m);
    expect(diff.stdout).to.match(/^\+ {2}a: new$/m);
    expect(await env.kubectl.ok(['apply', '--server-side', '-f', changed])).to.equal(
      `configmap/${name} serverside-applied\n`,
    );
    // b was the client-side manager's; once kubectl has taken its fields over, the re-apply drops it.
    expect((await get(cmPath(name))).data).to.deep.equal({ a: 'new' });
  });

  it('still refuses a field whose live value another manager changed since the client-side apply', async () => {
    const name = 'edited';
    expect(await env.kubectl.ok(['apply', '-f', await file(configMap(name, { a: '1' }), 'v1')])).to.equal(
      `configmap/${name} created\n`,
    );
    await env.kubectl.ok(['patch', '-n', ns, 'configmap', name, '--type=merge', '-p', '{"data":{"a":"patched"}}']);
    const res = await env.kubectl.run([
      'apply',
      '--server-side',
      '-f',
      await file(configMap(name, { a: 'mine' }), 'v2'),
    ]);
    expect(res.code).to.equal(1);
    expect(res.stderr).to.match(
      /Apply failed with 1 conflict: conflict with "kubectl-patch" using v1 at [0-9TZ:-]+: \.data\.a/,
    );
    expect((await get(cmPath(name))).data).to.deep.equal({ a: 'patched' });
  });

  it('re-applies a ReplicaSet server-side after a client-side apply, again and again', async () => {
    const name = 'web';
    const rs = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: ns, labels: { app: name } },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'img:1' }] } },
      },
    };
    const manifest = await file(rs, 'v1');
    expect(await env.kubectl.ok(['apply', '-f', manifest])).to.equal(`replicaset.apps/${name} created\n`);
    for (let round = 0; round < 2; round++) {
      expect(await env.kubectl.ok(['apply', '--server-side', '--force-conflicts', '-f', manifest])).to.equal(
        `replicaset.apps/${name} serverside-applied\n`,
      );
      const obj = await get(`/apis/apps/v1/namespaces/${ns}/replicasets/${name}`);
      expect(obj.spec.template.metadata.labels).to.deep.equal({ app: name });
      expect(obj.spec.selector).to.deep.equal({ matchLabels: { app: name } });
      expect(obj.metadata.labels).to.deep.equal({ app: name });
    }
  });
});
