// kubectl's own command tests for RBAC, authorization and the workload kinds Gatehouse serves (upstream test/cmd/rbac.sh:
// run_clusterroles_tests without `kubectl set subject`, run_role_tests; authorization.sh: run_authorization_tests,
// run_impersonation_tests; auth_whoami.sh; the `kubectl auth reconcile` check of legacy-script.sh; apps.sh:
// run_rs_tests without scale and autoscale; batch.sh: run_job_tests for CronJobs), with served resources (configmaps,
// replicasets) in the rules where upstream names pods and deployments.
import { expect } from 'chai';
import yaml from 'js-yaml';
import { createNamespace, readObject } from '../helpers/api.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const RBAC = 'rbac.authorization.platform.io';
const K8S_RBAC = 'rbac.authorization.k8s.io';

/** A role's rules flattened as upstream's templates print them: verbs, resources, apiGroups, each joined with ':'. */
const flatten = (rules: any[], field: 'verbs' | 'resources' | 'apiGroups' | 'resourceNames' | 'nonResourceURLs') =>
  rules.map((r) => (r[field] ?? []).map((v: string) => `${v}:`).join('')).join('');

describe('kubectl test/cmd: RBAC, authorization, ReplicaSets and CronJobs', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();
  const kubectl = (...args: string[]) => env.kubectl.run(args);
  const ok = (...args: string[]) => env.kubectl.ok(args);
  const read = (urlPath: string) => readObject(env.gh, urlPath);
  const clusterRole = (name: string) => read(`/apis/${RBAC}/v1/clusterroles/${name}`);
  const subjectNames = async (path: string) =>
    (await read(path)).subjects.map((s: any) => `${s.namespace ? `${s.namespace}/` : ''}${s.name}`);

  it('the default policy is there: cluster-admin and its binding', async () => {
    expect(await ok('get', 'clusterroles/cluster-admin', '-o', 'jsonpath={.metadata.name}')).to.equal('cluster-admin');
    expect(await ok('get', 'clusterrolebindings/cluster-admin', '-o', 'jsonpath={.metadata.name}')).to.equal(
      'cluster-admin',
    );
  });

  it('create clusterrole: verbs, resources with and without group, resource names, non-resource URLs, an aggregation rule', async () => {
    expect(await ok('create', 'clusterrole', 'cm-admin', '--verb=*', '--resource=configmaps')).to.equal(
      `clusterrole.${K8S_RBAC}/cm-admin created\n`,
    );
    const deleted = await kubectl('delete', 'clusterrole', 'cm-admin', '-n', 'test');
    expect(deleted.stderr).to.match(/warning: deleting cluster-scoped resources/i);
    expect(deleted.stdout).to.match(/^clusterrole\.rbac\.authorization\.(k8s|platform)\.io "cm-admin" deleted\n$/);

    await ok('create', 'clusterrole', 'cm-admin', '--verb=*', '--resource=configmaps');
    let rules = (await clusterRole('cm-admin')).rules;
    expect([flatten(rules, 'verbs'), flatten(rules, 'resources'), flatten(rules, 'apiGroups')]).to.deep.equal([
      '*:',
      'configmaps:',
      ':',
    ]);
    await ok('create', 'clusterrole', 'resource-reader', '--verb=get,list', '--resource=configmaps,replicasets.apps');
    rules = (await clusterRole('resource-reader')).rules;
    expect([flatten(rules, 'verbs'), flatten(rules, 'resources'), flatten(rules, 'apiGroups')]).to.deep.equal([
      'get:list:get:list:',
      'configmaps:replicasets:',
      ':apps:',
    ]);
    await ok(
      'create',
      'clusterrole',
      'resourcename-reader',
      '--verb=get,list',
      '--resource=configmaps',
      '--resource-name=foo',
    );
    rules = (await clusterRole('resourcename-reader')).rules;
    expect([
      flatten(rules, 'verbs'),
      flatten(rules, 'resources'),
      flatten(rules, 'apiGroups'),
      flatten(rules, 'resourceNames'),
    ]).to.deep.equal(['get:list:', 'configmaps:', ':', 'foo:']);
    await ok(
      'create',
      'clusterrole',
      'url-reader',
      '--verb=get',
      '--non-resource-url=/logs/*',
      '--non-resource-url=/healthz/*',
    );
    rules = (await clusterRole('url-reader')).rules;
    expect([flatten(rules, 'verbs'), flatten(rules, 'nonResourceURLs')]).to.deep.equal(['get:', '/logs/*:/healthz/*:']);
    await ok('create', 'clusterrole', 'aggregation-reader', '--aggregation-rule=foo1=foo2');
    expect((await clusterRole('aggregation-reader')).aggregationRule).to.deep.equal({
      clusterRoleSelectors: [{ matchLabels: { foo1: 'foo2' } }],
    });
  });

  it('create clusterrolebinding and rolebinding: users, groups and service accounts as subjects, roleRef kind', async () => {
    const ns = await createNamespace(env.gh, 'bindings');
    const crb = (name: string) => `/apis/${RBAC}/v1/clusterrolebindings/${name}`;
    const rb = (name: string) => `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings/${name}`;
    await ok('create', 'clusterrolebinding', 'super-admin', '--clusterrole=admin', '--user=super-admin');
    expect(await subjectNames(crb('super-admin'))).to.deep.equal(['super-admin']);
    await ok('create', 'clusterrolebinding', 'multi-users', '--clusterrole=admin', '--user=user-1', '--user=user-2');
    expect(await subjectNames(crb('multi-users'))).to.deep.equal(['user-1', 'user-2']);
    await ok(
      'create',
      'clusterrolebinding',
      'multi-groups',
      '--clusterrole=admin',
      '--group=group-1',
      '--group=group-2',
    );
    expect(await subjectNames(crb('multi-groups'))).to.deep.equal(['group-1', 'group-2']);
    await ok('create', 'clusterrolebinding', 'super-sa', '--clusterrole=admin', '--serviceaccount=otherns:sa-name');
    expect(await subjectNames(crb('super-sa'))).to.deep.equal(['otherns/sa-name']);

    await ok('create', 'rolebinding', 'admin', '--clusterrole=admin', '--user=default-admin', '-n', ns);
    expect((await read(rb('admin'))).roleRef.kind).to.equal('ClusterRole');
    expect(await subjectNames(rb('admin'))).to.deep.equal(['default-admin']);
    await ok('create', 'rolebinding', 'localrole', '--role=localrole', '--group=the-group', '-n', ns);
    expect((await read(rb('localrole'))).roleRef.kind).to.equal('Role');
    expect(await subjectNames(rb('localrole'))).to.deep.equal(['the-group']);
    await ok('create', 'rolebinding', 'sarole', '--role=localrole', '--serviceaccount=otherns:sa-name', '-n', ns);
    expect(await subjectNames(rb('sarole'))).to.deep.equal(['otherns/sa-name']);
  });

  it('create role: resources checked against discovery, with groups, subresources and names', async () => {
    const ns = await createNamespace(env.gh, 'roles');
    const rules = async (name: string) => {
      const r = (await read(`/apis/${RBAC}/v1/namespaces/${ns}/roles/${name}`)).rules;
      return [flatten(r, 'verbs'), flatten(r, 'resources'), flatten(r, 'apiGroups')];
    };
    const create = (...args: string[]) => ok('create', 'role', ...args, '-n', ns);
    const refused = async (args: string[], message: string) => {
      const r = await kubectl('create', 'role', ...args, '-n', ns);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.contain(message);
    };
    await create('cm-admin', '--verb=*', '--resource=configmaps');
    expect(await rules('cm-admin')).to.deep.equal(['*:', 'configmaps:', ':']);
    await refused(
      ['invalid-cm-admin', '--verb=*', '--resource=invalid-resource'],
      'the server doesn\'t have a resource type "invalid-resource"',
    );
    await create('group-reader', '--verb=get,list', '--resource=replicasets.apps');
    expect(await rules('group-reader')).to.deep.equal(['get:list:', 'replicasets:', 'apps:']);
    await refused(
      ['invalid-group', '--verb=get,list', '--resource=replicasets.invalid-group'],
      'the server doesn\'t have a resource type "replicasets" in group "invalid-group"',
    );
    await create('subresource-reader', '--verb=get,list', '--resource=namespaces/status');
    expect(await rules('subresource-reader')).to.deep.equal(['get:list:', 'namespaces/status:', ':']);
    await create('group-subresource-reader', '--verb=get,list', '--resource=replicasets.apps/status');
    expect(await rules('group-subresource-reader')).to.deep.equal(['get:list:', 'replicasets/status:', 'apps:']);
    await refused(
      ['invalid-group', '--verb=get,list', '--resource=rs.invalid-group/scale'],
      'the server doesn\'t have a resource type "rs" in group "invalid-group"',
    );
    await create('resourcename-reader', '--verb=get,list', '--resource=configmaps', '--resource-name=foo');
    expect(
      flatten((await read(`/apis/${RBAC}/v1/namespaces/${ns}/roles/resourcename-reader`)).rules, 'resourceNames'),
    ).to.equal('foo:');
    await create('resource-reader', '--verb=get,list', '--resource=namespaces/status,replicasets.apps');
    expect(await rules('resource-reader')).to.deep.equal([
      'get:list:get:list:',
      'namespaces/status:replicasets:',
      ':apps:',
    ]);
  });

  it('auth reconcile creates roles and bindings written in rbac.authorization.k8s.io, listing what it added', async () => {
    const ns = await createNamespace(env.gh, 'reconcile');
    const objects = [
      {
        apiVersion: `${K8S_RBAC}/v1`,
        kind: 'ClusterRole',
        metadata: { name: `testing-CR-${ns}` },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
      },
      {
        apiVersion: `${K8S_RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name: `testing-CRB-${ns}` },
        roleRef: { apiGroup: K8S_RBAC, kind: 'ClusterRole', name: `testing-CR-${ns}` },
        subjects: [{ apiGroup: K8S_RBAC, kind: 'User', name: 'alice' }],
      },
      {
        apiVersion: `${K8S_RBAC}/v1`,
        kind: 'Role',
        metadata: { name: 'testing-R', namespace: ns },
        rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }],
      },
      {
        apiVersion: `${K8S_RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'testing-RB', namespace: ns },
        roleRef: { apiGroup: K8S_RBAC, kind: 'Role', name: 'testing-R' },
        subjects: [{ apiGroup: K8S_RBAC, kind: 'User', name: 'alice' }],
      },
    ];
    const file = await env.kubectl.manifest('reconcile.yaml', objects.map((o) => yaml.dump(o)).join('---\n'));
    const dryRun = await kubectl('auth', 'reconcile', '--dry-run=client', '-f', file);
    expect(dryRun.code, dryRun.stderr).to.equal(0);
    expect((await env.gh.request('GET', `/apis/${RBAC}/v1/clusterroles/testing-CR-${ns}`)).status).to.equal(404);
    const r = await kubectl('auth', 'reconcile', '-f', file);
    expect(r.code, r.stderr).to.equal(0);
    expect(r.stdout).to.equal(
      [
        `clusterrole.${K8S_RBAC}/testing-CR-${ns} reconciled`,
        `clusterrolebinding.${K8S_RBAC}/testing-CRB-${ns} reconciled`,
        `role.${K8S_RBAC}/testing-R reconciled`,
        `rolebinding.${K8S_RBAC}/testing-RB reconciled`,
        '',
      ].join('\n'),
    );
    expect(r.stderr).to.contain('missing rules added:').and.contain('missing subjects added:');
    expect((await clusterRole(`testing-CR-${ns}`)).rules).to.deep.equal([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get'] },
    ]);
    const binding = await read(`/apis/${RBAC}/v1/namespaces/${ns}/rolebindings/testing-RB`);
    expect(binding.roleRef).to.deep.equal({ apiGroup: RBAC, kind: 'Role', name: 'testing-R' });
    expect(await ok('auth', 'can-i', 'get', 'secrets', '-n', ns, '--as=alice')).to.equal('yes\n');
  });

  it('authorization: a SubjectAccessReview from a file and over HTTP; whoami; impersonating a group needs a user', async () => {
    const review = {
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.platform.io/v1',
      spec: { user: 'alice', groups: ['system:masters'], resourceAttributes: { verb: 'get', resource: 'configmaps' } },
    };
    const created = JSON.parse(
      await ok(
        'create',
        '-f',
        await env.kubectl.manifest('sar.json', JSON.stringify(review)),
        '--validate=false',
        '-o',
        'json',
      ),
    );
    expect(created.status.allowed).to.equal(true);
    const overHttp = await env.gh.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      body: { ...review, apiVersion: 'authorization.k8s.io/v1' },
      headers: { 'content-type': '' },
    });
    expect(overHttp.status, overHttp.body).to.equal(201);
    expect(overHttp.json()).to.deep.include({ apiVersion: 'authorization.k8s.io/v1' });
    expect(overHttp.json().status.allowed).to.equal(true);
    expect(JSON.parse(await ok('auth', 'whoami', '-o', 'json')).kind).to.equal('SelfSubjectReview');
    const groupOnly = await kubectl('get', 'configmaps', '--as-group=foo');
    expect(groupOnly.code).to.equal(1);
    expect(groupOnly.stderr).to.contain('without impersonating a user');
  });

  it('ReplicaSets: delete with --cascade=orphan, set image/env/resources/serviceaccount bump generation, dry runs do not', async () => {
    const ns = await createNamespace(env.gh, 'rs');
    const frontend = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'frontend', namespace: ns, labels: { app: 'guestbook', tier: 'frontend' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { tier: 'frontend' } },
        template: {
          metadata: { labels: { app: 'guestbook', tier: 'frontend' } },
          spec: {
            containers: [
              {
                name: 'php-redis',
                image: 'gcr.io/google_samples/gb-frontend:v3',
                env: [{ name: 'GET_HOSTS_FROM', value: 'dns' }],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    };
    const file = await env.kubectl.manifest('frontend.yaml', yaml.dump(frontend));
    await ok('create', '-f', file);
    expect(await ok('delete', 'rs', 'frontend', '-n', ns, '--cascade=orphan')).to.equal(
      'replicaset.apps "frontend" deleted\n',
    );
    await ok('create', '-f', file);
    const stored = () => read(`/apis/apps/v1/namespaces/${ns}/replicasets/frontend`);
    const generation = async () => (await stored()).metadata.generation;
    const rs = ['rs/frontend', '-n', ns];
    expect(await generation()).to.equal(1);
    await ok('set', 'image', ...rs, '*=registry.k8s.io/pause:test-cmd');
    expect(await generation()).to.equal(2);
    await ok('set', 'env', ...rs, 'foo=bar');
    expect(await generation()).to.equal(3);
    await ok('set', 'resources', ...rs, '--dry-run=client', '--limits=cpu=200m,memory=512Mi');
    await ok('set', 'resources', ...rs, '--dry-run=server', '--limits=cpu=200m,memory=512Mi');
    expect(await generation()).to.equal(3);
    await ok('set', 'resources', ...rs, '--limits=cpu=200m,memory=512Mi');
    expect(await generation()).to.equal(4);
    await ok('set', 'serviceaccount', ...rs, '--dry-run=client', 'serviceaccount1');
    await ok('set', 'serviceaccount', ...rs, '--dry-run=server', 'serviceaccount1');
    expect(await generation()).to.equal(4);
    await ok('set', 'serviceaccount', ...rs, 'serviceaccount1');
    expect(await generation()).to.equal(5);
    const final = await stored();
    expect(final.spec.template.spec).to.deep.include({ serviceAccountName: 'serviceaccount1' });
    expect(final.spec.template.spec.containers[0]).to.deep.include({
      image: 'registry.k8s.io/pause:test-cmd',
      env: [
        { name: 'GET_HOSTS_FROM', value: 'dns' },
        { name: 'foo', value: 'bar' },
      ],
      resources: { limits: { cpu: '200m', memory: '512Mi' } },
    });
    expect(
      await ok(
        'get',
        'rs',
        'frontend',
        '-n',
        ns,
        '--show-managed-fields',
        '-o=jsonpath={.metadata.managedFields[*].manager}',
      ),
    ).to.contain('kubectl-set');
    const second = await env.kubectl.manifest(
      'redis-slave.yaml',
      yaml.dump({ ...frontend, metadata: { ...frontend.metadata, name: 'redis-slave' } }),
    );
    await ok('create', '-f', second);
    expect(await ok('delete', 'rs', 'frontend', 'redis-slave', '-n', ns)).to.equal(
      'replicaset.apps "frontend" deleted\nreplicaset.apps "redis-slave" deleted\n',
    );
  });

  it('CronJobs: create with a command, dry runs store nothing, get prints it', async () => {
    const ns = await createNamespace(env.gh, 'cronjobs');
    const args = [
      'cronjob',
      'pi',
      '--schedule=59 23 31 2 *',
      `--namespace=${ns}`,
      '--image=perl',
      '--',
      'perl',
      '-Mbignum=bpi',
      '-wle',
      'print bpi(20)',
    ];
    expect(await ok('create', '--dry-run=client', ...args)).to.equal('cronjob.batch/pi created (dry run)\n');
    expect(await ok('create', '--dry-run=server', ...args)).to.equal('cronjob.batch/pi created (server dry run)\n');
    expect((await env.gh.request('GET', `/apis/batch/v1/namespaces/${ns}/cronjobs/pi`)).status).to.equal(404);
    await ok('create', ...args);
    expect(
      await ok(
        'get',
        'cronjob/pi',
        `--namespace=${ns}`,
        '-o',
        'go-template={{(index .spec.jobTemplate.spec.template.spec.containers 0).command}}',
      ),
    ).to.equal('[perl -Mbignum=bpi -wle print bpi(20)]');
    expect(await ok('get', 'cronjob/pi', `--namespace=${ns}`)).to.match(
      /^pi\s+59 23 31 2 \*\s+<none>\s+False\s+0\s+<none>\s+\S+\n$/m,
    );
    expect(
      await ok('create', 'job', 'test-job', '--from=cronjob/pi', `--namespace=${ns}`, '--dry-run=client', '-o', 'name'),
    ).to.equal('job.batch/test-job\n');
  });
});
