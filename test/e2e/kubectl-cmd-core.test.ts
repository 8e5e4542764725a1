// kubectl's own command tests for the core kinds (upstream test/cmd/core.sh: run_configmap_tests, the generic parts of
// run_pod_tests on ReplicaSets, run_create_secret_tests, run_secrets_test, run_service_accounts_tests,
// run_namespace_tests, run_nodes_tests; node-management.sh: run_cluster_management_tests without drain, which needs
// Pods), asserting what they assert: the output, the exit code and the object left on the server.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import yaml from 'js-yaml';
import { createNamespace, readObject } from '../helpers/api.js';
import { issueClientCert, makeCA } from '../helpers/pki.js';
import { gatehouseWithKubectl, yamlManifest as manifest } from '../helpers/kubectl-suite.js';

const replicaSet = (ns: string, name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: ns, labels: { name } },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: 'kubernetes-serve-hostname',
            image: 'registry.k8s.io/serve_hostname',
            resources: { limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } },
          },
        ],
      },
    },
  },
});

describe('kubectl test/cmd: core kinds', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const kubectl = (...args: string[]) => env.kubectl.run(args);
  const ok = (...args: string[]) => env.kubectl.ok(args);
  const read = (urlPath: string) => readObject(env.gh, urlPath);
  const absent = async (urlPath: string) =>
    expect((await env.gh.request('GET', urlPath)).status, urlPath).to.equal(404);
  const managers = (obj: any): string[] => obj.metadata.managedFields.map((m: { manager: string }) => m.manager);
  /** A fake editor: a shell script applying a sed expression to the file kubectl opens. */
  const editor = async (name: string, sedExpression: string): Promise<string> => {
    const file = path.join(env.kubectl.dir, name);
    await writeFile(file, `#!/bin/sh\nsed -i '${sedExpression}' "$1"\n`, { mode: 0o755 });
    return file;
  };

  it('configmaps: dry runs store nothing; --from-literal and a binary --from-file; kubectl-create manages them', async () => {
    const ns = await createNamespace(env.gh, 'configmaps');
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    expect(
      await ok(
        'create',
        'configmap',
        'test-configmap',
        '--dry-run=client',
        '--from-literal=key1=value1',
        `--namespace=${ns}`,
      ),
    ).to.equal('configmap/test-configmap created (dry run)\n');
    expect(
      await ok(
        'create',
        'configmap',
        'test-configmap',
        '--dry-run=server',
        '--from-literal=key1=value1',
        `--namespace=${ns}`,
      ),
    ).to.equal('configmap/test-configmap created (server dry run)\n');
    await absent(`${cms}/test-configmap`);
    await ok('create', 'configmap', 'test-configmap', '--from-literal=key1=value1', `--namespace=${ns}`);
    const binary = path.join(env.kubectl.dir, 'random.bin');
    await writeFile(binary, Buffer.concat([Buffer.from([0xff, 0xfe]), randomBytes(254)]));
    await ok('create', 'configmap', 'test-binary-configmap', `--from-file=${binary}`, `--namespace=${ns}`);
    expect(await ok('get', 'configmap/test-configmap', `--namespace=${ns}`, '-o', 'yaml')).to.contain('key1: value1');
    expect(await ok('get', 'configmap/test-binary-configmap', `--namespace=${ns}`, '-o', 'yaml')).to.contain(
      'binaryData',
    );
    expect((await read(`${cms}/test-binary-configmap`)).binaryData['random.bin']).to.equal(
      (await readFile(binary)).toString('base64'),
    );
    expect(
      await ok(
        'get',
        '--show-managed-fields',
        'configmap/test-configmap',
        `--namespace=${ns}`,
        '-o=jsonpath={.metadata.managedFields[*].manager}',
      ),
    ).to.equal('kubectl-create');
  });

  it('label and annotate: dry runs change nothing, empty values are kept, each records its manager, --record its command', async () => {
    const ns = await createNamespace(env.gh, 'label-annotate');
    await ok('create', '-f', await env.kubectl.manifest('label-rs.yaml', manifest(replicaSet(ns, 'valid-rs'))));
    const rs = ['rs', 'valid-rs', '-n', ns];
    const stored = () => read(`/apis/apps/v1/namespaces/${ns}/replicasets/valid-rs`);
    expect(await ok('label', ...rs, 'new-name=new-valid-rs', '--dry-run=client')).to.equal(
      'replicaset.apps/valid-rs labeled (dry run)\n',
    );
    expect(await ok('label', ...rs, 'new-name=new-valid-rs', '--dry-run=server')).to.equal(
      'replicaset.apps/valid-rs labeled (server dry run)\n',
    );
    expect((await stored()).metadata.labels).to.deep.equal({ name: 'valid-rs' });
    await ok('label', ...rs, 'new-name=new-valid-rs');
    await ok('label', ...rs, 'emptylabel=');
    expect((await stored()).metadata.labels).to.deep.equal({
      name: 'valid-rs',
      'new-name': 'new-valid-rs',
      emptylabel: '',
    });
    await ok('annotate', ...rs, 'emptyannotation=', '--dry-run=client');
    await ok('annotate', ...rs, 'emptyannotation=', '--dry-run=server');
    expect((await stored()).metadata.annotations).to.equal(undefined);
    await ok('annotate', ...rs, 'emptyannotation=');
    expect((await stored()).metadata.annotations).to.deep.equal({ emptyannotation: '' });
    expect(managers(await stored())).to.include.members(['kubectl-create', 'kubectl-label', 'kubectl-annotate']);
    await ok('label', ...rs, 'record-change=true', '--record=true');
    expect((await stored()).metadata.annotations['kubernetes.io/change-cause']).to.match(
      /^kubectl label .*record-change=true.*--record=true/,
    );
    await ok('label', ...rs, 'no-record-change=true', '--record=false');
    expect((await stored()).metadata.annotations['kubernetes.io/change-cause'])
      .to.contain('record-change=true')
      .and.not.contain('no-record-change');
    await ok('label', ...rs, 'new-record-change=true', '--record=true');
    expect((await stored()).metadata.annotations['kubernetes.io/change-cause']).to.contain('new-record-change=true');
    const refused = await kubectl('label', ...rs, 'name=valid-rs-super-sayan');
    expect(refused.code).to.equal(1);
    await ok('label', '--overwrite', 'rs', '--all', '-n', ns, 'name=valid-rs-super-sayan');
    expect((await stored()).metadata.labels.name).to.equal('valid-rs-super-sayan');
    const local = await ok(
      'label',
      '--local',
      '--overwrite',
      '-f',
      await env.kubectl.manifest('label-rs.yaml', manifest(replicaSet(ns, 'valid-rs'))),
      'name=localonlyvalue',
      '-o',
      'yaml',
    );
    expect(local).to.contain('localonlyvalue');
    expect((await stored()).metadata.labels.name).to.equal('valid-rs-super-sayan');
  });

  it('patch: quantities kept, --local, a wrong type refused, no change reported, JSON and YAML patches, dry run, resourceVersion precondition', async () => {
    const ns = await createNamespace(env.gh, 'patch');
    const file = await env.kubectl.manifest('patch-rs.yaml', manifest(replicaSet(ns, 'valid-rs')));
    await ok('create', '-f', file);
    const rs = ['rs', 'valid-rs', '-n', ns];
    const stored = () => read(`/apis/apps/v1/namespaces/${ns}/replicasets/valid-rs`);
    const image = async () => (await stored()).spec.template.spec.containers[0].image;
    const containerPatch = (img: string) =>
      JSON.stringify({
        spec: { template: { spec: { containers: [{ name: 'kubernetes-serve-hostname', image: img }] } } },
      });

    await ok('patch', ...rs, '-p={"metadata":{"annotations":{"patchkey": "patchvalue"}}}');
    const patched = await stored();
    expect(patched.metadata.annotations.patchkey).to.equal('patchvalue');
    expect(patched.spec.template.spec.containers[0].resources.limits).to.deep.equal({ cpu: '1', memory: '512Mi' });
    expect(await ok('patch', '--local', '-f', file, '--patch={"spec": {"replicas": 7}}', '-o', 'yaml')).to.contain(
      'replicas: 7',
    );

    const wrongType = await kubectl('patch', ...rs, '-p={"metadata":{"labels":"invalid"}}');
    expect(wrongType.code).to.equal(1);
    expect(wrongType.stderr).to.contain('metadata.labels');
    expect((await stored()).metadata.labels).to.deep.equal({ name: 'valid-rs' });
    expect(await ok('patch', ...rs, '-p={"metadata":{"labels":{"name":"valid-rs"}}}')).to.equal(
      'replicaset.apps/valid-rs patched (no change)\n',
    );

    await ok('patch', ...rs, '--record', `-p=${containerPatch('nginx')}`);
    expect(await image()).to.equal('nginx');
    expect((await stored()).metadata.annotations['kubernetes.io/change-cause']).to.match(/^kubectl patch rs valid-rs/);
    await ok(
      'patch',
      ...rs,
      '--type=json',
      '-p=[{"op": "replace", "path": "/spec/template/spec/containers/0/image", "value":"nginx2"}]',
    );
    expect(await image()).to.equal('nginx2');
    await ok('patch', ...rs, '--dry-run=server', `-p=${containerPatch('not-nginx')}`);
    expect(await image()).to.equal('nginx2');
    await ok(
      'patch',
      ...rs,
      '-p=spec:\n  template:\n    spec:\n      containers:\n      - name: kubernetes-serve-hostname\n        image: changed-with-yaml\n',
    );
    expect(await image()).to.equal('changed-with-yaml');
    await ok('patch', '-f', file, `-p=${containerPatch('registry.k8s.io/pause:3.10')}`);
    expect(await image()).to.equal('registry.k8s.io/pause:3.10');
    expect(managers(await stored())).to.include('kubectl-patch');

    const current = (await stored()).metadata.resourceVersion;
    await ok('patch', ...rs, `-p={"spec":{"replicas":2},"metadata":{"resourceVersion":"${current}"}}`);
    const stale = await kubectl(
      'patch',
      ...rs,
      `-p={"spec":{"replicas":3},"metadata":{"resourceVersion":"${Number(current) + 100}"}}`,
    );
    expect(stale.code).to.equal(1);
    expect(stale.stderr).to.contain('please apply your changes to the latest version and try again');
    expect((await stored()).spec.replicas).to.equal(2);
  });

  it('replace: --force recreates, --grace-period and --timeout need it, and resourceVersion "0" replaces a Node unconditionally', async () => {
    const ns = await createNamespace(env.gh, 'replace');
    await ok('create', '-f', await env.kubectl.manifest('replace-rs.yaml', manifest(replicaSet(ns, 'valid-rs'))));
    const live = JSON.parse(await ok('get', 'rs', 'valid-rs', '-n', ns, '-o', 'json'));
    live.spec.template.spec.containers[0].name = 'replaced-k8s-serve-hostname';
    const replacement = await env.kubectl.manifest('replaced-rs.json', JSON.stringify(live));
    expect(await ok('replace', '--force', '-f', replacement)).to.equal(
      `replicaset.apps "valid-rs" deleted\nreplicaset.apps/valid-rs replaced\n`,
    );
    const replaced = await read(`/apis/apps/v1/namespaces/${ns}/replicasets/valid-rs`);
    expect(replaced.spec.template.spec.containers[0].name).to.equal('replaced-k8s-serve-hostname');
    expect(replaced.metadata.uid).to.not.equal(live.metadata.uid);
    expect(managers(replaced)).to.include('kubectl-replace');
    expect((await kubectl('replace', '--grace-period=1', '-f', replacement)).stderr).to.contain(
      '--grace-period must have --force specified',
    );
    expect((await kubectl('replace', '--timeout=1s', '-f', replacement)).stderr).to.contain(
      '--timeout must have --force specified',
    );

    const nodeName = `${ns}-node`;
    await ok(
      'create',
      '-f',
      await env.kubectl.manifest(
        'node.json',
        JSON.stringify({ kind: 'Node', apiVersion: 'v1', metadata: { name: nodeName } }),
      ),
    );
    const annotated = await env.kubectl.manifest(
      'node-annotated.json',
      JSON.stringify({
        kind: 'Node',
        apiVersion: 'v1',
        metadata: { name: nodeName, annotations: { a: 'b' }, resourceVersion: '0' },
      }),
    );
    expect(await ok('replace', '--dry-run=server', '-f', annotated)).to.equal(
      `node/${nodeName} replaced (server dry run)\n`,
    );
    await ok('replace', '--dry-run=client', '-f', annotated);
    expect((await read(`/api/v1/nodes/${nodeName}`)).metadata.annotations).to.equal(undefined);
    expect(await ok('replace', '-f', annotated)).to.equal(`node/${nodeName} replaced\n`);
    expect((await read(`/api/v1/nodes/${nodeName}`)).metadata.annotations).to.deep.equal({ a: 'b' });
  });

  it('edit with a scripted EDITOR: --output-patch, cancelled without changes, Windows line endings, a list; create --edit', async () => {
    const ns = await createNamespace(env.gh, 'edit');
    await ok('create', '-f', await env.kubectl.manifest('edit-rs.yaml', manifest(replicaSet(ns, 'valid-rs'))));
    const toServeHostname = await editor(
      'serve-hostname.sh',
      's/registry.k8s.io\\/serve_hostname/registry.k8s.io\\/pause:3.10/g',
    );
    const edited = await env.kubectl.run(['edit', 'rs/valid-rs', '-n', ns, '--output-patch=true'], {
      env: { EDITOR: toServeHostname },
    });
    expect(edited.code, edited.stderr).to.equal(0);
    expect(edited.stdout).to.contain('Patch:').and.contain('replicaset.apps/valid-rs edited');
    const stored = await read(`/apis/apps/v1/namespaces/${ns}/replicasets/valid-rs`);
    expect(stored.spec.template.spec.containers[0].image).to.equal('registry.k8s.io/pause:3.10');
    expect(managers(stored)).to.include('kubectl-edit');

    const cat = { EDITOR: 'cat' };
    const cancelled = await env.kubectl.run(['edit', 'rs/valid-rs', '-n', ns], { env: cat });
    expect(cancelled.code).to.equal(0);
    expect(cancelled.stderr).to.contain('Edit cancelled');
    expect(cancelled.stdout).to.contain('name: valid-rs');
    expect(
      (await env.kubectl.run(['edit', '--windows-line-endings', 'rs/valid-rs', '-n', ns], { env: cat })).stdout,
    ).to.contain('\r\n');
    expect(
      (await env.kubectl.run(['edit', '--windows-line-endings=false', 'rs/valid-rs', '-n', ns], { env: cat })).stdout,
    ).to.not.contain('\r\n');
    expect((await env.kubectl.run(['edit', 'ns'], { env: cat })).stdout).to.contain('kind: List');

    const mockToModified = await editor('mock.sh', 's/mock/modified/g');
    const list = {
      kind: 'List',
      apiVersion: 'v1',
      items: [
        { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'mock', namespace: ns }, data: { k: 'mock' } },
        { ...replicaSet(ns, 'mock'), metadata: { name: 'mock', namespace: ns } },
      ],
    };
    const createEdit = await env.kubectl.run(
      ['create', '--edit', '-n', ns, '-f', await env.kubectl.manifest('multi.json', JSON.stringify(list))],
      { env: { EDITOR: mockToModified } },
    );
    expect(createEdit.stdout, createEdit.stderr).to.equal(
      'configmap/modified created\nreplicaset.apps/modified created\n',
    );
    expect(managers(await read(`/api/v1/namespaces/${ns}/configmaps/modified`))).to.deep.equal(['kubectl-create']);
    expect(managers(await read(`/apis/apps/v1/namespaces/${ns}/replicasets/modified`))).to.deep.equal([
      'kubectl-create',
    ]);
    const unchanged = await env.kubectl.run(
      [
        'create',
        '--edit',
        '-n',
        ns,
        '-f',
        await env.kubectl.manifest('cm.json', JSON.stringify(list.items[0])),
        '-o',
        'json',
      ],
      { env: cat },
    );
    expect(unchanged.stderr).to.contain('Edit cancelled');
  });

  it('create from a dumped object (uid, resourceVersion, timestamps) into another namespace, and delete in the ways kubectl offers', async () => {
    const [source, target] = [await createNamespace(env.gh, 'dump-from'), await createNamespace(env.gh, 'dump-to')];
    await ok('create', 'configmap', 'valid', '--from-literal=a=b', '-n', source);
    const dumped = yaml.load(await ok('get', 'configmap', 'valid', '-n', source, '-o', 'yaml')) as any;
    delete dumped.metadata.namespace;
    expect(
      await ok('create', '-n', target, '-f', await env.kubectl.manifest('dumped.yaml', yaml.dump(dumped))),
    ).to.equal('configmap/valid created\n');
    const copy = await read(`/api/v1/namespaces/${target}/configmaps/valid`);
    expect(copy.metadata.uid).to.not.equal(dumped.metadata.uid);
    expect(copy.data).to.deep.equal({ a: 'b' });

    expect((await kubectl('delete', 'configmaps', '-n', target)).stderr).to.contain(
      'resource(s) were provided, but no name was specified',
    );
    expect((await kubectl('delete', '--all', 'configmaps', '-l', 'name in (valid)', '-n', target)).stderr).to.contain(
      "setting 'all' parameter but found a non empty selector",
    );
    await ok('label', 'configmap', 'valid', '-n', target, 'name=valid');
    expect(
      await ok('get', 'configmaps', '-n', target, '--field-selector', 'metadata.name=valid', '-o', 'name'),
    ).to.equal('configmap/valid\n');
    expect(
      await ok('delete', 'configmaps', '-l', 'name in (valid)', '-n', target, '--grace-period=0', '--force'),
    ).to.equal('configmap "valid" force deleted\n');
    for (const name of ['a', 'b', 'c']) await ok('create', 'configmap', name, '-n', target);
    expect(await ok('delete', 'configmap', 'a', '-n', target, '--now')).to.equal('configmap "a" deleted\n');
    expect(await ok('delete', 'configmaps', 'b', 'c', '-n', target)).to.equal(
      'configmap "b" deleted\nconfigmap "c" deleted\n',
    );
    expect((await read(`/api/v1/namespaces/${target}/configmaps`)).items).to.deep.equal([]);
  });

  it('secrets: generic with a type, docker-registry, tls, stringData folded into data, and the namespace of a dry run', async () => {
    const ns = await createNamespace(env.gh, 'secrets');
    const secret = (name: string) => read(`/api/v1/namespaces/${ns}/secrets/${name}`);
    expect(
      await ok(
        'create',
        'secret',
        'generic',
        'mysecret',
        '--dry-run=client',
        '--from-literal=foo=bar',
        '-o',
        'jsonpath={.metadata.namespace}',
        '--namespace=user-specified',
      ),
    ).to.equal('user-specified');
    expect(
      await ok(
        'create',
        'secret',
        'generic',
        'mysecret',
        '--dry-run=client',
        '--from-literal=foo=bar',
        '-o',
        'jsonpath={.metadata.namespace}',
      ),
    ).to.equal('');
    await ok(
      'create',
      'secret',
      'generic',
      'test-secret',
      '--from-literal=key1=value1',
      '--type=test-type',
      `--namespace=${ns}`,
    );
    expect(await secret('test-secret')).to.deep.include({ type: 'test-type', data: { key1: 'dmFsdWUx' } });
    expect(await ok('get', 'secret/test-secret', `--namespace=${ns}`, '-o', 'yaml')).to.contain('key1: dmFsdWUx');

    await ok(
      'create',
      'secret',
      'docker-registry',
      'docker',
      '--docker-username=test-user',
      '--docker-password=test-password',
      '--docker-email=test-user@test.com',
      `--namespace=${ns}`,
    );
    const docker = await secret('docker');
    expect(docker.type).to.equal('kubernetes.io/dockerconfigjson');
    expect(
      JSON.parse(Buffer.from(docker.data['.dockerconfigjson'], 'base64').toString()).auths[
        'https://index.docker.io/v1/'
      ],
    ).to.deep.equal({
      username: 'test-user',
      password: 'test-password',
      email: 'test-user@test.com',
      auth: 'dGVzdC11c2VyOnRlc3QtcGFzc3dvcmQ=',
    });

    const pair = await issueClientCert(await makeCA('tls-ca'));
    const [cert, key] = [path.join(env.kubectl.dir, 'tls.crt'), path.join(env.kubectl.dir, 'tls.key')];
    await writeFile(cert, pair.certPem);
    await writeFile(key, pair.keyPem);
    await ok('create', 'secret', 'tls', 'tls', `--namespace=${ns}`, `--key=${key}`, `--cert=${cert}`);
    expect((await secret('tls')).type).to.equal('kubernetes.io/tls');

    const withStringData = {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 'secret-string-data' },
      data: { k1: 'djE=', k2: '' },
      stringData: { k2: 'v2' },
    };
    await ok(
      'create',
      `--namespace=${ns}`,
      '-f',
      await env.kubectl.manifest('string-data.json', JSON.stringify(withStringData)),
    );
    const folded = await secret('secret-string-data');
    expect(folded.data).to.deep.equal({ k1: 'djE=', k2: 'djI=' });
    expect(folded).to.not.have.property('stringData');
    expect(
      await ok(
        'create',
        'secret',
        'generic',
        'templated',
        `--namespace=${ns}`,
        '--from-literal=key1=value1',
        '--output=go-template',
        '--template={{.metadata.name}}:',
      ),
    ).to.equal('templated:');
  });

  it('--raw: create POSTs, replace PUTs, get GETs and delete DELETEs the path given', async () => {
    const ns = await createNamespace(env.gh, 'raw');
    const collection = `/api/v1/namespaces/${ns}/configmaps`;
    const body = (data?: Record<string, string>) =>
      env.kubectl.manifest(
        'raw.json',
        JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'tester-update-cm' }, data }),
      );
    expect(JSON.parse(await ok('create', '--raw', collection, '-f', await body())).metadata.uid).to.be.a('string');
    const replaced = await ok(
      'replace',
      '--raw',
      `${collection}/tester-update-cm`,
      '-f',
      await body({ key1: 'config1' }),
    );
    expect(replaced).to.contain('"uid"');
    expect(await ok('get', '--raw', `${collection}/tester-update-cm`)).to.contain('config1');
    expect(JSON.parse(await ok('delete', '--raw', `${collection}/tester-update-cm`))).to.include({
      kind: 'Status',
      status: 'Success',
    });
    expect((await kubectl('get', 'configmap', 'tester-update-cm', '-n', ns)).stderr).to.contain(
      'configmaps "tester-update-cm" not found',
    );
  });

  it('service accounts and quotas: dry runs store nothing, then create', async () => {
    const ns = await createNamespace(env.gh, 'sa-quota');
    expect(
      await ok('create', 'serviceaccount', 'test-service-account', '--dry-run=client', `--namespace=${ns}`),
    ).to.equal('serviceaccount/test-service-account created (dry run)\n');
    expect(
      await ok('create', 'serviceaccount', 'test-service-account', '--dry-run=server', `--namespace=${ns}`),
    ).to.equal('serviceaccount/test-service-account created (server dry run)\n');
    expect(await ok('create', 'quota', 'test-quota', '--dry-run=client', `--namespace=${ns}`)).to.equal(
      'resourcequota/test-quota created (dry run)\n',
    );
    expect(await ok('create', 'quota', 'test-quota', '--dry-run=server', `--namespace=${ns}`)).to.equal(
      'resourcequota/test-quota created (server dry run)\n',
    );
    await absent(`/api/v1/namespaces/${ns}/serviceaccounts/test-service-account`);
    await absent(`/api/v1/namespaces/${ns}/resourcequotas/test-quota`);
    await ok('create', 'serviceaccount', 'test-service-account', `--namespace=${ns}`);
    await ok('create', 'quota', 'test-quota', `--namespace=${ns}`);
    expect(
      await ok('get', 'serviceaccount/test-service-account', 'quota/test-quota', `--namespace=${ns}`, '-o', 'name'),
    ).to.equal('serviceaccount/test-service-account\nresourcequota/test-quota\n');
  });

  it('nodes: patch unschedulable, taint and untaint (with dry runs), cordon and uncordon', async () => {
    const node = `cmd-node-${process.pid}`;
    await ok(
      'create',
      '-f',
      await env.kubectl.manifest('node.yaml', manifest({ apiVersion: 'v1', kind: 'Node', metadata: { name: node } })),
    );
    const stored = () => read(`/api/v1/nodes/${node}`);
    const taints = async () =>
      ((await stored()).spec.taints ?? []).map((t: any) => `${t.key}=${t.value ?? '<no value>'}:${t.effect}`);
    await ok('patch', 'nodes', node, '-p={"spec":{"unschedulable":true}}');
    expect((await stored()).spec.unschedulable).to.equal(true);
    await ok('patch', 'nodes', node, '-p={"spec":{"unschedulable":null}}');
    expect((await stored()).spec.unschedulable).to.equal(undefined);

    expect(await ok('taint', 'node', node, '--dry-run=client', 'dedicated=foo:PreferNoSchedule')).to.equal(
      `node/${node} tainted\n`,
    );
    await ok('taint', 'node', node, '--dry-run=server', 'dedicated=foo:PreferNoSchedule');
    expect(await taints()).to.deep.equal([]);
    await ok('taint', 'node', node, 'dedicated=foo:PreferNoSchedule');
    expect(await taints()).to.deep.equal(['dedicated=foo:PreferNoSchedule']);
    expect(await ok('taint', 'node', node, 'dedicated-')).to.equal(`node/${node} untainted\n`);
    await ok('taint', 'node', node, 'dedicated:PreferNoSchedule');
    expect(await taints()).to.deep.equal(['dedicated=<no value>:PreferNoSchedule']);
    expect(managers(await stored())).to.include('kubectl-taint');
    await ok('taint', 'node', node, '--dry-run=server', 'dedicated-');
    expect(await taints()).to.deep.equal(['dedicated=<no value>:PreferNoSchedule']);
    await ok('taint', 'node', node, 'dedicated-');
    expect(await taints()).to.deep.equal([]);

    expect(await ok('cordon', node, '--dry-run=server')).to.equal(`node/${node} cordoned (server dry run)\n`);
    expect((await stored()).spec.unschedulable).to.equal(undefined);
    expect(await ok('uncordon', node, '--dry-run=server')).to.contain('already uncordoned');
    await ok('label', 'node', node, 'test=label');
    expect((await kubectl('cordon', '--selector=')).stderr).to.contain('must provide one or more resources');
    expect(await ok('cordon', '--selector', 'test=label')).to.equal(`node/${node} cordoned\n`);
    expect(await ok('cordon', '--selector', 'invalid=label')).to.not.contain('cordoned');
    expect((await stored()).spec.unschedulable).to.equal(true);
  });

  it('namespaces: dry runs, delete --wait=false then wait --for=delete; delete --all spares the system namespaces', async () => {
    const ns = `my-namespace-${process.pid}`;
    expect((await kubectl('get', `ns/${ns}`)).stderr).to.contain(' not found');
    expect(await ok('create', 'namespace', ns, '--dry-run=client')).to.equal(`namespace/${ns} created (dry run)\n`);
    expect(await ok('create', 'namespace', ns, '--dry-run=server')).to.equal(
      `namespace/${ns} created (server dry run)\n`,
    );
    expect((await kubectl('get', `ns/${ns}`)).stderr).to.contain(' not found');
    await ok('create', 'namespace', ns);
    await ok('create', 'configmap', 'content', '-n', ns);
    expect(await ok('delete', 'namespace', ns, '--wait=false')).to.equal(`namespace "${ns}" deleted\n`);
    expect(await ok('wait', '--for=delete', `ns/${ns}`, '--timeout=30s')).to.equal(`namespace/${ns} condition met\n`);
    await absent(`/api/v1/namespaces/${ns}`);

    // Last in this file: it deletes every namespace the earlier tests made.
    await ok('create', 'namespace', ns);
    const all = await kubectl('delete', 'namespace', '-n', ns, '--all', '--wait=false');
    expect(all.code).to.equal(1);
    expect(all.stderr).to.match(/warning: deleting cluster-scoped resources/i);
    expect(all.stdout).to.contain(`namespace "${ns}" deleted`);
    for (const system of ['default', 'platform-system', 'platform-public']) {
      expect(all.stderr).to.contain(`namespaces "${system}" is forbidden: this namespace may not be deleted`);
      expect((await read(`/api/v1/namespaces/${system}`)).status.phase).to.equal('Active');
    }
  });
});
