// kubectl's own command tests for `kubectl get` (upstream test/cmd/get.sh: run_kubectl_get_tests,
// run_kubectl_sort_by_tests, run_kubectl_all_namespace_tests, run_retrieve_multiple_tests; discovery.sh:
// run_RESTMapper_evaluation_tests, run_assert_categories_tests, run_kubectl_explain_tests), asserting what they
// assert, on the kinds Gatehouse serves: ConfigMaps and ReplicaSets stand in for their Pods.
import { expect } from 'chai';
import { createNamespace } from '../helpers/api.js';
import { parseColumns } from '../helpers/kubectl.js';
import { gatehouseWithKubectl, yamlManifest as manifest } from '../helpers/kubectl-suite.js';

const configMap = (ns: string, name: string, labels?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns, labels },
  data: { name },
});

const replicaSet = (
  ns: string,
  name: string,
  opts: { labels?: Record<string, string>; container?: string; memory?: string } = {},
) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name, namespace: ns, labels: opts.labels },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        containers: [
          {
            name: opts.container ?? 'c',
            image: 'registry.k8s.io/pause:3.10',
            resources: { requests: { memory: opts.memory ?? '64Mi' } },
          },
        ],
      },
    },
  },
});

describe('kubectl test/cmd: get', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const kubectl = (...args: string[]) => env.kubectl.run(args);
  const ok = (...args: string[]) => env.kubectl.ok(args);
  const post = async (path: string, body: unknown): Promise<void> => {
    const res = await env.gh.request('POST', path, { body });
    expect(res.status, `POST ${path}: ${res.body}`).to.equal(201);
  };
  const postConfigMap = (ns: string, name: string, labels?: Record<string, string>) =>
    post(`/api/v1/namespaces/${ns}/configmaps`, configMap(ns, name, labels));

  it('a missing object is NotFound in every output format, and no empty List is printed for it', async () => {
    const ns = await createNamespace(env.gh, 'get-missing');
    for (const format of [[], ['-o', 'name'], ['-o', 'json']]) {
      const r = await kubectl('get', 'configmaps', 'abc', '-n', ns, ...format);
      expect(r.code, format.join(' ')).to.equal(1);
      expect(r.stderr).to.contain('configmaps "abc" not found');
      expect(r.stdout).to.not.contain('List');
    }
  });

  it('an empty list says "No resources found" for human-readable output only, and an unknown type is an error', async () => {
    const ns = await createNamespace(env.gh, 'get-empty');
    for (const format of [
      'json',
      'yaml',
      'name',
      'jsonpath={.items}',
      'go-template={{.items}}',
      'custom-columns=NAME:.metadata.name',
    ]) {
      const r = await kubectl('get', 'configmaps', '-n', ns, '-o', format);
      expect(r.code, format).to.equal(0);
      expect(r.stdout + r.stderr, format).to.not.contain('No resources found');
    }
    expect(JSON.parse(await ok('get', 'configmaps', '-n', ns, '-o', 'json'))).to.deep.include({
      kind: 'List',
      items: [],
    });
    for (const wide of [[], ['-o', 'wide']]) {
      const r = await kubectl('get', 'secrets', '-n', ns, ...wide);
      expect(r.code).to.equal(0);
      expect(r.stderr).to.equal(`No resources found in ${ns} namespace.\n`);
    }
    const ignored = await kubectl('get', 'secrets', '-n', ns, '--ignore-not-found');
    expect([ignored.code, ignored.stdout, ignored.stderr]).to.deep.equal([0, '', '']);
    const unknown = await kubectl('get', 'foobar', '-n', ns);
    expect(unknown.code).to.equal(1);
    expect(unknown.stderr)
      .to.contain('the server doesn\'t have a resource type "foobar"')
      .and.not.contain('No resources found');
  });

  it('pages with --chunk-size (limit, then continue), asks limit=500 by default, and prints every page', async () => {
    const chunked = await kubectl('get', 'clusterroles', '--chunk-size=10', '-v=6');
    expect(chunked.code, chunked.stderr).to.equal(0);
    // The helper's --request-timeout adds a timeout parameter to every URL.
    expect(chunked.stderr)
      .to.match(/\/clusterroles\?limit=10&timeout=10s 200 OK/)
      .and.match(/\/v1\/clusterroles\?continue=\S+&limit=10&timeout=10s 200 OK/);
    const defaults = await kubectl('get', 'clusterroles', '-v=6');
    expect(defaults.stderr).to.match(/\/clusterroles\?limit=500&timeout=10s 200 OK/);
    const names = (await ok('get', 'namespaces', '--chunk-size=1', '--no-headers'))
      .split('\n')
      .map((l) => l.split(/\s+/)[0]);
    expect(names).to.include.members(['default', 'platform-public', 'platform-system']);
  });

  it('watches a list read in chunks with --watch and --watch-only', async () => {
    const ns = await createNamespace(env.gh, 'get-chunk-watch');
    for (const name of ['one', 'two', 'three'])
      expect(await ok('create', 'cm', name, '-n', ns)).to.equal(`configmap/${name} created\n`);
    const watched = await env.kubectl.run(['get', 'configmap', '-n', ns, '--chunk-size=1', '--watch'], {
      requestTimeout: '1s',
    });
    expect(watched.stderr).to.not.contain('watch is only supported on individual resources');
    expect(parseColumns(watched.stdout).map((r) => r.NAME)).to.have.members(['one', 'three', 'two']);
    const watchOnly = await env.kubectl.run(['get', 'configmap', '-n', ns, '--chunk-size=1', '--watch-only'], {
      requestTimeout: '1s',
    });
    expect(watchOnly.stderr).to.not.contain('watch is only supported on individual resources');
    expect(watchOnly.stdout).to.equal('');
  });

  it('templates: missing keys pass by default and fail with --allow-missing-template-keys=false; --template alone is a go-template', async () => {
    const ns = await createNamespace(env.gh, 'get-templates');
    await postConfigMap(ns, 'valid');
    const cm = ['cm', 'valid', '-n', ns];
    expect(await ok('get', ...cm, '-o', 'jsonpath={.missing}')).to.equal('');
    expect(await ok('get', ...cm, '-o', 'go-template={{.missing}}')).to.equal('<no value>');
    expect(await ok('get', ...cm, '--template={{.metadata.name}}:')).to.equal('valid:');
    const jsonpath = await kubectl('get', ...cm, '--allow-missing-template-keys=false', '-o', 'jsonpath={.missing}');
    expect(jsonpath.code).to.equal(1);
    expect(jsonpath.stderr).to.contain('missing is not found');
    const goTemplate = await kubectl(
      'get',
      ...cm,
      '--allow-missing-template-keys=false',
      '-o',
      'go-template={{.missing}}',
    );
    expect(goTemplate.code).to.equal(1);
    expect(goTemplate.stderr).to.contain('map has no entry for key "missing"');
  });

  it('--subresource=status reads through /status, and a subresource the kind lacks is NotFound', async () => {
    const ns = await createNamespace(env.gh, 'get-subresource');
    await postConfigMap(ns, 'plain');
    const status = parseColumns(await ok('get', 'namespace', ns, '--subresource=status'));
    expect(status).to.deep.equal([{ NAME: ns, STATUS: 'Active', AGE: status[0].AGE }]);
    const missing = await kubectl('get', 'cm', 'plain', '-n', ns, '--subresource=status');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('the server could not find the requested resource');
  });

  it('watches one object: a table with headers, -o name and -o yaml without; a missing one is NotFound', async () => {
    const ns = await createNamespace(env.gh, 'get-watch-one');
    await postConfigMap(ns, 'watched');
    const watch = (...args: string[]) => env.kubectl.run(['get', ...args, '-n', ns, '-w'], { requestTimeout: '1s' });
    const table = await watch('configmaps');
    expect(table.stdout)
      .to.match(/^NAME\s+DATA\s+AGE\n/)
      .and.match(/^watched\s+1\s/m);
    const name = await watch('configmaps/watched', '-o', 'name');
    expect(name.stdout).to.equal('configmap/watched\n');
    const asYaml = await watch('configmaps/watched', '-o', 'yaml');
    expect(asYaml.stdout).to.contain('name: watched');
    expect(asYaml.stdout).to.not.contain('DATA');
    const missing = await watch('configmaps/invalid');
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.contain('"invalid" not found');
  });

  it('get -f prints every object of the file, and one command gets objects of several kinds', async () => {
    const ns = await createNamespace(env.gh, 'get-file');
    const file = await env.kubectl.manifest(
      'get-file.yaml',
      manifest(configMap(ns, 'from-file'), replicaSet(ns, 'also-from-file')),
    );
    await ok('create', '-f', file);
    expect(await ok('get', '-f', file, '-o', 'jsonpath={..metadata.name}')).to.equal('from-file also-from-file');
    expect(
      await ok(
        'get',
        'configmaps/from-file',
        'replicasets/also-from-file',
        '-n',
        ns,
        '-o',
        'go-template={{range.items}}{{.metadata.name}}:{{end}}',
      ),
    ).to.equal('from-file:also-from-file:');
    const kinds = await ok('get', 'cm,rs', '-n', ns, '--show-kind');
    expect(kinds)
      .to.match(/^configmap\/from-file\s/m)
      .and.match(/^replicaset\.apps\/also-from-file\s/m);
    expect(await ok('get', 'cm,rs', '-n', ns, '-o', 'name')).to.equal(
      'configmap/from-file\nreplicaset.apps/also-from-file\n',
    );
    const columns = parseColumns(
      await ok(
        'get',
        'configmaps',
        '-n',
        ns,
        '-o',
        'custom-columns=NAME:.metadata.name,RSRC:.metadata.resourceVersion',
      ),
    );
    expect(columns).to.have.length(1);
    expect(columns[0]).to.include({ NAME: 'from-file' }).and.have.property('RSRC').that.matches(/^\d+$/);
  });

  it('--sort-by orders server-printed Tables by any field of the object (includeObject=Object), also without server printing', async () => {
    const ns = await createNamespace(env.gh, 'get-sort');
    // name order 1 2 3; label order 3 2 1; container name order 2 1 3; memory order 3 1 2.
    await post(
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      replicaSet(ns, 'sorted-rs1', { labels: { name: 'c' }, container: 'b', memory: '200Mi' }),
    );
    await post(
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      replicaSet(ns, 'sorted-rs2', { labels: { name: 'b' }, container: 'a', memory: '300Mi' }),
    );
    await post(
      `/apis/apps/v1/namespaces/${ns}/replicasets`,
      replicaSet(ns, 'sorted-rs3', { labels: { name: 'a' }, container: 'c', memory: '100Mi' }),
    );
    const order = async (key: string, ...extra: string[]) =>
      parseColumns(await ok('get', 'rs', '-n', ns, `--sort-by=${key}`, ...extra))
        .map((r) => r.NAME.replace('sorted-rs', ''))
        .join('');
    expect(await order('{metadata.name}')).to.equal('123');
    expect(await order('{metadata.labels.name}')).to.equal('321');
    expect(await order('{spec.template.spec.containers[0].name}')).to.equal('213');
    expect(await order('{.spec.template.spec.containers[0].resources.requests.memory}')).to.equal('312');
    expect(await order('{spec.template.spec.containers[0].name}', '--server-print=false')).to.equal('213');
    const traced = await kubectl('get', 'rs', '-n', ns, '--sort-by={metadata.name}', '-v=8');
    expect(traced.stderr).to.contain('as=Table').and.contain('includeObject=Object');
    const clientPrinted = await kubectl(
      'get',
      'rs',
      '-n',
      ns,
      '--sort-by={metadata.name}',
      '--server-print=false',
      '-v=8',
    );
    expect(clientPrinted.stdout + clientPrinted.stderr).to.not.contain('Table');
  });

  it('--all-namespaces adds the NAMESPACE column to namespaced kinds only, and refuses a name', async () => {
    const [ns1, ns2] = [await createNamespace(env.gh, 'all-ns-1'), await createNamespace(env.gh, 'all-ns-2')];
    for (const ns of [ns1, ns2])
      expect(await ok('create', 'serviceaccount', 'test', '-n', ns)).to.equal('serviceaccount/test created\n');
    for (const flag of ['--all-namespaces', '-A']) {
      const rows = parseColumns(await ok('get', 'serviceaccounts', flag, '--namespace=default'));
      expect(rows.filter((r) => r.NAME === 'test').map((r) => r.NAMESPACE)).to.include.members([ns1, ns2]);
    }
    await post('/api/v1/nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: `${ns1}-node` } });
    expect((await ok('get', 'nodes', '--all-namespaces')).split('\n')[0]).to.not.contain('NAMESPACE');
    const byName = await kubectl('get', 'serviceaccount', 'test', '--all-namespaces');
    expect(byName.code).to.equal(1);
    expect(byName.stderr).to.contain('a resource cannot be retrieved by name across all namespaces');
  });

  it('get all lists the kinds discovery puts in category "all": ReplicaSets and CronJobs', async () => {
    const ns = await createNamespace(env.gh, 'get-all');
    await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet(ns, 'member'));
    expect(await ok('create', 'cronjob', 'nightly', '--image=busybox', '--schedule=0 3 * * *', '-n', ns)).to.equal(
      'cronjob.batch/nightly created\n',
    );
    await postConfigMap(ns, 'not-a-member');
    const r = await kubectl('get', 'all', '-n', ns, '--chunk-size=0', '-v=6');
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stderr)
      .to.contain(`/apis/apps/v1/namespaces/${ns}/replicasets?timeout=10s 200 OK`)
      .and.contain(`/apis/batch/v1/namespaces/${ns}/cronjobs?timeout=10s 200 OK`);
    expect(r.stdout)
      .to.match(/^replicaset\.apps\/member\s/m)
      .and.match(/^cronjob\.batch\/nightly\s/m);
    expect(r.stdout).to.not.contain('not-a-member');
    for (const [path, resource] of [
      ['/apis/apps/v1', 'replicasets'],
      ['/apis/batch/v1', 'cronjobs'],
    ]) {
      const listed = JSON.parse(await ok('get', '--raw', path)).resources.find(
        (x: { name: string }) => x.name === resource,
      );
      expect(listed.categories, resource).to.deep.equal(['all']);
    }
  });

  it('resource names qualified by their group or a prefix of it (upstream save-config.sh)', async () => {
    const ns = await createNamespace(env.gh, 'get-group-prefix');
    await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, replicaSet(ns, 'grouped'));
    for (const resource of ['replicasets.apps', 'rs.apps', 'rs.ap', 'replicasets.v1.apps']) {
      expect(await ok('get', resource, '-n', ns, '-o=jsonpath={.items[0].apiVersion}'), resource).to.equal('apps/v1');
    }
    expect(await ok('get', 'clusterroles.rbac', '-o=jsonpath={.items[0].apiVersion}')).to.equal(
      'rbac.authorization.platform.io/v1',
    );
  });

  it('api-resources lists the verbs of each resource: namespaces cannot be deleted as a collection', async () => {
    const rows = parseColumns(await ok('api-resources', '-o', 'wide'));
    expect(rows.find((r) => r.NAME === 'namespaces')!.VERBS).to.equal('create,delete,get,list,patch,update,watch');
    expect(rows.find((r) => r.NAME === 'configmaps')!.VERBS).to.equal(
      'create,delete,deletecollection,get,list,patch,update,watch',
    );
    expect(await ok('api-resources', '--verbs=deletecollection', '--api-group=', '-o', 'name')).to.not.match(
      /^namespaces$/m,
    );
    const refused = await kubectl('delete', '--raw', '/api/v1/namespaces');
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain(
      'Error from server (MethodNotAllowed): the server does not allow this method on the requested resource',
    );
  });

  it('explain works by short name and field path', async () => {
    expect(await ok('explain', 'rs'))
      .to.match(/^GROUP:\s+apps$/m)
      .and.match(/^KIND:\s+ReplicaSet$/m);
    expect(await ok('explain', 'cronjob')).to.match(/^KIND:\s+CronJob$/m);
    expect(await ok('explain', 'cm.data')).to.match(/^FIELD:\s+data\s+<map\[string\]string>$/m);
    expect(await ok('explain', 'ns.status.phase')).to.match(/^ENUM:\n\s+Active\n\s+Terminating$/m);
  });
});
