// kubectl's own command tests for apply, diff, delete and wait (upstream test/cmd/apply.sh: run_kubectl_apply_tests
// and run_kubectl_server_side_apply_tests without the client-side to server-side upgrade; diff.sh:
// run_kubectl_diff_tests; delete.sh: run_kubectl_delete_allnamespaces_tests; wait.sh: run_wait_tests), on ConfigMaps
// and ReplicaSets in place of Pods and Deployments.
//
// kubectl's default prune allow-list names kinds Gatehouse does not serve (Endpoints, Pods, Services...), so a plain
// `--prune` fails with "error retrieving RESTMappings to prune"; the prune checks here pass --prune-allowlist.
import { expect } from 'chai';
import { chmod } from 'node:fs/promises';
import { createNamespace, readObject } from '../helpers/api.js';
import { gatehouseWithKubectl, yamlManifest as manifest } from '../helpers/kubectl-suite.js';

const configMap = (
  ns: string,
  name: string,
  labels?: Record<string, string>,
  data: Record<string, string> = { k: 'v' },
) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });

const replicaSet = (ns: string, name: string, opts: { image?: string; app?: string } = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: ns, labels: { name } },
  spec: {
    selector: { matchLabels: { app: opts.app ?? name } },
    template: {
      metadata: { labels: { app: opts.app ?? name } },
      spec: { containers: [{ name: 'c', image: opts.image ?? 'registry.k8s.io/pause:3.9' }] },
    },
  },
});

const PRUNE_CONFIGMAPS = '--prune-allowlist=core/v1/ConfigMap';

describe('kubectl test/cmd: apply, diff, delete, wait', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const kubectl = (...args: string[]) => env.kubectl.run(args);
  const ok = (...args: string[]) => env.kubectl.ok(args);
  const file = (name: string, ...objs: unknown[]) => env.kubectl.manifest(name, manifest(...objs));
  const read = (urlPath: string) => readObject(env.gh, urlPath);
  const exists = async (urlPath: string) => (await env.gh.request('GET', urlPath)).status === 200;
  const configMapNames = async (ns: string) =>
    (await read(`/api/v1/namespaces/${ns}/configmaps`)).items.map((i: any) => i.metadata.name).sort();
  const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

  it('apply creates with the last-applied annotation and manager kubectl-client-side-apply; set-last-applied adds it to a created object', async () => {
    const ns = await createNamespace(env.gh, 'apply-annotation');
    const applied = await file('applied.yaml', configMap(ns, 'test-cm', { name: 'test-cm-label' }));
    expect(await ok('apply', '-f', applied)).to.equal('configmap/test-cm created\n');
    expect(await ok('get', '-f', applied, '-o', 'yaml')).to.contain(LAST_APPLIED);
    expect(
      await ok('get', '--show-managed-fields', '-f', applied, '-o=jsonpath={.metadata.managedFields[*].manager}'),
    ).to.equal('kubectl-client-side-apply');

    const created = await file('created.yaml', configMap(ns, 'created-cm'));
    await ok('create', '-f', created);
    const annotations = async () =>
      (await read(`/api/v1/namespaces/${ns}/configmaps/created-cm`)).metadata.annotations ?? {};
    expect(await annotations()).to.not.have.property(LAST_APPLIED);
    await ok('apply', 'set-last-applied', '--dry-run=client', '-f', created, '--create-annotation=true');
    expect(
      await ok('apply', 'set-last-applied', '--dry-run=server', '-f', created, '--create-annotation=true'),
    ).to.equal('configmap/created-cm configured (server dry run)\n');
    expect(await annotations()).to.not.have.property(LAST_APPLIED);
    await ok('apply', 'set-last-applied', '-f', created, '--create-annotation=true');
    expect(JSON.parse((await annotations())[LAST_APPLIED])).to.deep.include({ kind: 'ConfigMap', data: { k: 'v' } });
    expect(
      JSON.parse(await ok('apply', 'view-last-applied', 'configmap/created-cm', '-n', ns, '-o', 'json')).metadata.name,
    ).to.equal('created-cm');
  });

  it('create, edit and replace --save-config record the last-applied annotation (upstream save-config.sh)', async () => {
    const ns = await createNamespace(env.gh, 'save-config');
    const annotated = async (name: string) =>
      LAST_APPLIED in ((await read(`/api/v1/namespaces/${ns}/configmaps/${name}`)).metadata.annotations ?? {});
    await ok('create', '-f', await file('created.yaml', configMap(ns, 'created')), '--save-config');
    expect(await annotated('created')).to.equal(true);
    await ok('create', '-f', await file('edited.yaml', configMap(ns, 'edited')));
    expect(await annotated('edited')).to.equal(false);
    const editor = await env.kubectl.manifest('edit.sh', '#!/bin/sh\nsed -i "s/k: v/k: edited/" "$1"\n');
    await chmod(editor, 0o755);
    const edited = await env.kubectl.run(['edit', 'configmap', 'edited', '-n', ns, '--save-config'], {
      env: { EDITOR: editor },
    });
    expect(edited.stdout, edited.stderr).to.equal('configmap/edited edited\n');
    expect(await annotated('edited')).to.equal(true);
    const replaced = await file('replaced.yaml', configMap(ns, 'replaced'));
    await ok('create', '-f', replaced);
    await ok('replace', '-f', replaced, '--save-config');
    expect(await annotated('replaced')).to.equal(true);
  });

  it('apply -l applies only the matching objects; client and server dry runs change nothing', async () => {
    const ns = await createNamespace(env.gh, 'apply-filter');
    const filtered = await file(
      'filter.yaml',
      configMap(ns, 'selector-test', { 'unique-label': 'bingbang' }),
      configMap(ns, 'selector-test-dont-apply', { 'unique-label': 'other' }),
    );
    await ok('apply', '-l', 'unique-label=bingbang', '-f', filtered);
    expect(await configMapNames(ns)).to.deep.equal(['selector-test']);

    const initial = await file('dry.yaml', configMap(ns, 'dry', { name: 'test-label' }));
    for (const mode of ['--dry-run=client', '--dry-run=server']) await ok('apply', mode, '-f', initial);
    expect(await exists(`/api/v1/namespaces/${ns}/configmaps/dry`)).to.equal(false);
    await ok('apply', '-f', initial);
    const before = await read(`/api/v1/namespaces/${ns}/configmaps/dry`);
    const changed = await file('dry-changed.yaml', configMap(ns, 'dry', { name: 'test-label-applied' }));
    expect(await ok('apply', '--dry-run=client', '-f', changed)).to.equal('configmap/dry configured (dry run)\n');
    expect(await ok('apply', '--dry-run=server', '-f', changed)).to.equal(
      'configmap/dry configured (server dry run)\n',
    );
    const after = await read(`/api/v1/namespaces/${ns}/configmaps/dry`);
    expect(after.metadata.labels).to.deep.equal({ name: 'test-label' });
    expect(after.metadata.resourceVersion).to.equal(before.metadata.resourceVersion);
  });

  it('apply --prune deletes what left the file (by selector, or with --all), and -n must match the file', async () => {
    const ns = await createNamespace(env.gh, 'apply-prune');
    const group = { 'prune-group': 'true' };
    const a = await file('a.yaml', configMap(ns, 'a', group));
    const b = await file('b.yaml', configMap(ns, 'b', group));
    await ok('apply', '--namespace', ns, '-l', 'prune-group=true', '-f', a);
    expect(
      await ok('apply', '--namespace', ns, '--prune', PRUNE_CONFIGMAPS, '-l', 'prune-group=true', '-f', b),
    ).to.equal('configmap/b created\nconfigmap/a pruned\n');
    expect(await configMapNames(ns)).to.deep.equal(['b']);
    const unselected = await kubectl('apply', '--prune', PRUNE_CONFIGMAPS, '-f', a);
    expect(unselected.code).to.equal(1);
    expect(unselected.stderr).to.contain('all resources selected for prune without explicitly passing --all');
    expect(await ok('apply', '--all', '--prune', PRUNE_CONFIGMAPS, '-f', a, '-n', ns)).to.equal(
      'configmap/a created\nconfigmap/b pruned\n',
    );
    expect(await configMapNames(ns)).to.deep.equal(['a']);
    const mismatch = await kubectl('apply', '-n', 'foo', '-f', b);
    expect(mismatch.code).to.equal(1);
    expect(mismatch.stderr).to.contain(
      `the namespace from the provided object "${ns}" does not match the namespace "foo".`,
    );
  });

  it('apply of several objects fails only those that fail: one in a namespace made later in the file, an invalid one', async () => {
    const later = `multi-resource-ns-${process.pid}`;
    const objects = await file('multi-1.yaml', configMap(later, 'test-cm'), {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: later },
    });
    const first = await kubectl('apply', '-f', objects);
    expect(first.code).to.equal(1);
    expect(first.stderr).to.contain(`namespaces "${later}" not found`);
    expect(first.stdout).to.equal(`namespace/${later} created\n`);
    expect(await ok('apply', '-f', objects)).to.equal(`configmap/test-cm created\nnamespace/${later} unchanged\n`);

    const ns = await createNamespace(env.gh, 'apply-invalid');
    const threeOfThem = await file('multi-3.yaml', configMap(ns, 'cm-a'), configMap(ns, 'CM-B'), configMap(ns, 'cm-c'));
    const partial = await kubectl('apply', '-f', threeOfThem);
    expect(partial.code).to.equal(1);
    expect(partial.stderr).to.contain('The ConfigMap "CM-B" is invalid');
    expect(await configMapNames(ns)).to.deep.equal(['cm-a', 'cm-c']);
  });

  it('apply refuses to change an immutable field, and --force deletes and recreates the object', async () => {
    const ns = await createNamespace(env.gh, 'apply-force');
    await ok('apply', '-f', await file('rs-1.yaml', replicaSet(ns, 'a', { app: 'one' })));
    const uid = (await read(`/apis/apps/v1/namespaces/${ns}/replicasets/a`)).metadata.uid;
    const revision2 = await file('rs-2.yaml', replicaSet(ns, 'a', { app: 'two' }));
    const refused = await kubectl('apply', '-f', revision2);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain('spec.selector').and.contain('field is immutable');
    await ok('apply', '-f', revision2, '--force');
    const recreated = await read(`/apis/apps/v1/namespaces/${ns}/replicasets/a`);
    expect(recreated.spec.selector).to.deep.equal({ matchLabels: { app: 'two' } });
    expect(recreated.metadata.uid).to.not.equal(uid);
  });

  it('apply --server-side creates as manager kubectl or the one named, dry runs store nothing, and a dropped key goes', async () => {
    const ns = await createNamespace(env.gh, 'server-side');
    const applied = await file(
      'ssa.yaml',
      configMap(ns, 'test', { name: 'test-label' }, { key: 'value', legacy: 'unused' }),
    );
    expect(await ok('apply', '--server-side', '--dry-run=server', '-f', applied)).to.equal(
      'configmap/test serverside-applied (server dry run)\n',
    );
    expect(await exists(`/api/v1/namespaces/${ns}/configmaps/test`)).to.equal(false);
    expect(await ok('apply', '--server-side', '-f', applied)).to.equal('configmap/test serverside-applied\n');
    expect(
      await ok('get', '--show-managed-fields', '-f', applied, '-o=jsonpath={.metadata.managedFields[*].manager}'),
    ).to.equal('kubectl');
    const before = (await read(`/api/v1/namespaces/${ns}/configmaps/test`)).metadata.resourceVersion;
    await ok(
      'apply',
      '--server-side',
      '--dry-run=server',
      '-f',
      await file('ssa-changed.yaml', configMap(ns, 'test', { name: 'test-label-applied' })),
    );
    const unchanged = await read(`/api/v1/namespaces/${ns}/configmaps/test`);
    expect([unchanged.metadata.resourceVersion, unchanged.metadata.labels.name]).to.deep.equal([before, 'test-label']);
    await ok('apply', '--server-side', '--field-manager=my-field-manager', '--force-conflicts', '-f', applied);
    expect(
      await ok('get', '-f', applied, '-o=jsonpath={.metadata.managedFields[*].manager}', '--show-managed-fields'),
    ).to.contain('my-field-manager');
    await ok(
      'apply',
      '--server-side',
      '--field-manager=my-field-manager',
      '-f',
      await file('ssa-dropped.yaml', configMap(ns, 'test', { name: 'test-label' }, { key: 'value' })),
    );
    await ok(
      'apply',
      '--server-side',
      '-f',
      await file('ssa-dropped.yaml', configMap(ns, 'test', { name: 'test-label' }, { key: 'value' })),
    );
    expect((await read(`/api/v1/namespaces/${ns}/configmaps/test`)).data).to.deep.equal({ key: 'value' });
  });

  it('diff exits 1 with the difference (new object, changed field, pruned object), 0 without, above 1 on an error, and stores nothing', async () => {
    const ns = await createNamespace(env.gh, 'diff');
    const original = await file('diff-rs.yaml', replicaSet(ns, 'test-rs', { image: 'registry.k8s.io/pause:3.9' }));
    const changed = await file(
      'diff-rs-changed.yaml',
      replicaSet(ns, 'test-rs', { image: 'registry.k8s.io/pause:3.10' }),
    );
    const created = await kubectl('diff', '-f', original);
    expect(created.code).to.equal(1);
    expect(created.stdout).to.contain('test-rs');
    expect(await exists(`/apis/apps/v1/namespaces/${ns}/replicasets/test-rs`)).to.equal(false);

    await ok('apply', '-f', original);
    const initial = (await read(`/apis/apps/v1/namespaces/${ns}/replicasets/test-rs`)).metadata.resourceVersion;
    expect(await kubectl('diff', '-f', original)).to.include({ code: 0, stdout: '' });
    const diffed = await kubectl('diff', '-f', changed);
    expect(diffed.code).to.equal(1);
    expect(diffed.stdout).to.contain('+      - image: registry.k8s.io/pause:3.10');
    expect((await read(`/apis/apps/v1/namespaces/${ns}/replicasets/test-rs`)).metadata.resourceVersion).to.equal(
      initial,
    );
    const invalid = await kubectl(
      'diff',
      '-f',
      await file('diff-invalid.yaml', {
        ...replicaSet(ns, 'bad'),
        spec: { ...replicaSet(ns, 'bad').spec, selector: { matchLabels: { app: 'other' } } },
      }),
    );
    expect(invalid.code).to.be.greaterThan(1);

    const serverSide = await file('diff-ssa.yaml', replicaSet(ns, 'ssa-rs', { image: 'registry.k8s.io/pause:3.9' }));
    expect((await kubectl('diff', '--server-side', '-f', serverSide)).code).to.equal(1);
    await ok('apply', '--server-side', '-f', serverSide);
    expect(await kubectl('diff', '--server-side', '-f', serverSide)).to.include({ code: 0, stdout: '' });
    const ssaChanged = await kubectl(
      'diff',
      '--server-side',
      '-f',
      await file('diff-ssa-changed.yaml', replicaSet(ns, 'ssa-rs', { image: 'registry.k8s.io/pause:3.10' })),
    );
    expect(ssaChanged.code, ssaChanged.stderr).to.equal(1);
    expect(ssaChanged.stdout).to.contain('registry.k8s.io/pause:3.10');

    const group = { 'prune-group': 'true' };
    await ok('apply', '-l', 'prune-group=true', '-f', await file('diff-a.yaml', configMap(ns, 'a', group)));
    const b = await file('diff-b.yaml', configMap(ns, 'b', group));
    expect((await kubectl('diff', '-l', 'prune-group=true', '-f', b)).stdout).to.not.contain('name: a');
    const pruned = await kubectl('diff', '--prune', PRUNE_CONFIGMAPS, '-l', 'prune-group=true', '-f', b);
    expect(pruned.code).to.equal(1);
    expect(pruned.stdout).to.contain('name: a');
    await ok('apply', '--prune', PRUNE_CONFIGMAPS, '-l', 'prune-group=true', '-f', b);
    expect(await configMapNames(ns)).to.deep.equal(['b']);
    expect(await kubectl('diff', '--prune', PRUNE_CONFIGMAPS, '-l', 'prune-group=true', '-f', b)).to.include({
      code: 0,
      stdout: '',
    });
  });

  it('delete -l --all-namespaces deletes across namespaces; its dry runs delete nothing', async () => {
    const [one, two] = [await createNamespace(env.gh, 'delete-all-1'), await createNamespace(env.gh, 'delete-all-2')];
    for (const [ns, name] of [
      [one, 'one'],
      [two, 'two'],
    ] as const) {
      await ok('create', 'configmap', name, `--namespace=${ns}`);
      await ok('label', 'configmap', name, `--namespace=${ns}`, 'deletetest=true');
    }
    await ok('delete', 'configmap', '--dry-run=client', '-l', 'deletetest=true', '--all-namespaces');
    expect(await ok('delete', 'configmap', '--dry-run=server', '-l', 'deletetest=true', '--all-namespaces'))
      .to.contain('configmap "one" deleted (server dry run)')
      .and.contain('configmap "two" deleted (server dry run)');
    expect([await configMapNames(one), await configMapNames(two)]).to.deep.equal([['one'], ['two']]);
    await ok('delete', 'configmap', '-l', 'deletetest=true', '--all-namespaces');
    expect([await configMapNames(one), await configMapNames(two)]).to.deep.equal([[], []]);
  });

  it('wait: a jsonpath value that never comes times out, --for=delete --all returns as each goes, a jsonpath present succeeds', async () => {
    const ns = await createNamespace(env.gh, 'wait');
    for (const name of ['test-1', 'test-2']) await ok('apply', '-f', await file(`${name}.yaml`, replicaSet(ns, name)));
    const never = await kubectl(
      'wait',
      '-n',
      ns,
      '--for=jsonpath=.status.readyReplicas=1',
      'rs/test-1',
      '--timeout=1s',
    );
    expect(never.code).to.equal(1);
    expect(never.stderr).to.contain('timed out');
    const started = Date.now();
    const invalid = await kubectl(
      'wait',
      '-n',
      ns,
      'rs',
      '--selector=name=test-1',
      '--for=condition=InvalidCondition',
      '--timeout=1s',
    );
    expect(invalid.stderr).to.contain('timed out waiting for the condition');
    expect(Date.now() - started).to.be.lessThan(5_000);
    // A new ReplicaSet reports status.replicas 0 right away, as kube-apiserver serializes it.
    expect(await ok('wait', '-n', ns, '--for=jsonpath={.status.replicas}', 'rs/test-1', '--timeout=5s')).to.equal(
      'replicaset.apps/test-1 condition met\n',
    );
    expect(await ok('wait', '-n', ns, '--for=jsonpath={.status.replicas}=0', 'rs/test-1', '--timeout=5s')).to.equal(
      'replicaset.apps/test-1 condition met\n',
    );

    // The ReplicaSets are held by a finalizer, so they are still there, being deleted, when kubectl starts waiting.
    const holder = 'example.com/hold';
    for (const name of ['test-1', 'test-2'])
      await ok('patch', 'rs', name, '-n', ns, '--type=merge', `-p={"metadata":{"finalizers":["${holder}"]}}`);
    await ok('delete', 'replicaset', '--all', '-n', ns, '--wait=false');
    // -v=6 logs each request once answered: releasing a ReplicaSet before kubectl has listed it would drop it from
    // the --all set, so each is released only once kubectl's watch on it is open.
    const waiting = env.kubectl.stream([
      'wait',
      '-v=6',
      '-n',
      ns,
      'replicaset',
      '--for=delete',
      '--all',
      '--timeout=30s',
    ]);
    try {
      for (const name of ['test-1', 'test-2']) {
        await waiting.waitForLine(new RegExp(`replicasets\\?.*fieldSelector=metadata.name%3D${name}&.*watch=true`), {
          on: 'stderr',
        });
        await ok('patch', 'rs', name, '-n', ns, '--type=merge', '-p={"metadata":{"finalizers":null}}');
        await waiting.waitForLine(new RegExp(`^replicaset.apps/${name} condition met$`));
      }
    } finally {
      await waiting.stop();
    }
  });
});
