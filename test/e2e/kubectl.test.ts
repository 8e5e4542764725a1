// End to end with the stock kubectl 1.32: every command here is one an operator types, run against a real Gatehouse,
// with the outcome checked both in kubectl's output and in the server state read back over HTTP. One gateway serves
// the whole file; each test works in its own namespace so the tests stay independent.
import { expect } from 'chai';
import yaml from 'js-yaml';
import { parseColumns } from '../helpers/kubectl.js';
import { everyType } from '../helpers/every-type.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const RBAC = 'rbac.authorization.platform.io';
const K8S = 'rbac.authorization.k8s.io';

const manifest = (...objs: unknown[]): string => objs.map((o) => yaml.dump(o)).join('---\n');

describe('kubectl end to end', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl();

  const get = async (path: string): Promise<any> => {
    const res = await env.gh.request('GET', path);
    expect(res.status, `GET ${path}: ${res.body}`).to.equal(200);
    return res.json();
  };
  const post = async (path: string, body: unknown): Promise<any> => {
    const res = await env.gh.request('POST', path, { body });
    expect(res.status, `POST ${path}: ${res.body}`).to.equal(201);
    return res.json();
  };
  const createNamespace = (name: string) =>
    post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const createConfigMap = (ns: string, name: string, data: Record<string, string>, labels?: Record<string, string>) =>
    post(`/api/v1/namespaces/${ns}/configmaps`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, labels },
      data,
    });
  const configMapNames = async (ns: string): Promise<string[]> =>
    (await get(`/api/v1/namespaces/${ns}/configmaps`)).items.map((i: any) => i.metadata.name).sort();

  it('get ns lists the built-in namespaces', async () => {
    const rows = parseColumns(await env.kubectl.ok(['get', 'ns']));
    expect(rows.map((r) => r.NAME)).to.include.members(['default', 'platform-system', 'platform-public']);
    const served = (await get('/api/v1/namespaces')).items.map((n: any) => n.metadata.name);
    expect(rows.map((r) => r.NAME).sort()).to.deep.equal([...served].sort());
  });

  it('version reports the server as v1.32', async () => {
    expect(await env.kubectl.ok(['version'])).to.match(/^Server Version: v1\.32\.\d+/m);
    const v = JSON.parse(await env.kubectl.ok(['version', '-o', 'json']));
    expect(v.serverVersion).to.include({ major: '1', minor: '32' });
  });

  it('api-resources and api-versions list every served resource and group version', async () => {
    const rows = parseColumns(await env.kubectl.ok(['api-resources']));
    const expected: [string, string, string, string][] = [
      ['configmaps', 'v1', 'true', 'ConfigMap'],
      ['namespaces', 'v1', 'false', 'Namespace'],
      ['nodes', 'v1', 'false', 'Node'],
      ['resourcequotas', 'v1', 'true', 'ResourceQuota'],
      ['secrets', 'v1', 'true', 'Secret'],
      ['serviceaccounts', 'v1', 'true', 'ServiceAccount'],
      ['events', 'v1', 'true', 'Event'],
      ['events', 'events.platform.io/v1', 'true', 'Event'],
      ['replicasets', 'apps/v1', 'true', 'ReplicaSet'],
      ['cronjobs', 'batch/v1', 'true', 'CronJob'],
      ['networkpolicies', 'networking.platform.io/v1', 'true', 'NetworkPolicy'],
      ['roles', `${RBAC}/v1`, 'true', 'Role'],
      ['clusterroles', `${RBAC}/v1`, 'false', 'ClusterRole'],
      ['rolebindings', `${RBAC}/v1`, 'true', 'RoleBinding'],
      ['clusterrolebindings', `${RBAC}/v1`, 'false', 'ClusterRoleBinding'],
      ['apiservices', 'apiregistration.platform.io/v1', 'false', 'APIService'],
      [
        'validatingwebhookconfigurations',
        'admissionregistration.platform.io/v1',
        'false',
        'ValidatingWebhookConfiguration',
      ],
      [
        'mutatingwebhookconfigurations',
        'admissionregistration.platform.io/v1',
        'false',
        'MutatingWebhookConfiguration',
      ],
      ['validatingadmissionpolicies', 'admissionregistration.platform.io/v1', 'false', 'ValidatingAdmissionPolicy'],
      [
        'validatingadmissionpolicybindings',
        'admissionregistration.platform.io/v1',
        'false',
        'ValidatingAdmissionPolicyBinding',
      ],
      ['customresourcedefinitions', 'apiextensions.platform.io/v1', 'false', 'CustomResourceDefinition'],
      ['flowschemas', 'flowcontrol.apiserver.platform.io/v1', 'false', 'FlowSchema'],
      ['prioritylevelconfigurations', 'flowcontrol.apiserver.platform.io/v1', 'false', 'PriorityLevelConfiguration'],
      // The create-only virtual resource.
      ['selfsubjectreviews', 'authentication.platform.io/v1', 'false', 'SelfSubjectReview'],
      // The access reviews.
      ['selfsubjectaccessreviews', 'authorization.platform.io/v1', 'false', 'SelfSubjectAccessReview'],
      ['subjectaccessreviews', 'authorization.platform.io/v1', 'false', 'SubjectAccessReview'],
      ['localsubjectaccessreviews', 'authorization.platform.io/v1', 'true', 'LocalSubjectAccessReview'],
      ['selfsubjectrulesreviews', 'authorization.platform.io/v1', 'false', 'SelfSubjectRulesReview'],
      // The *.k8s.io aliases existing manifests name, listed too (kubectl shows each group's preferred version).
      ['roles', `${K8S}/v1`, 'true', 'Role'],
      ['clusterroles', `${K8S}/v1`, 'false', 'ClusterRole'],
      ['rolebindings', `${K8S}/v1`, 'true', 'RoleBinding'],
      ['clusterrolebindings', `${K8S}/v1`, 'false', 'ClusterRoleBinding'],
      ['selfsubjectreviews', 'authentication.k8s.io/v1', 'false', 'SelfSubjectReview'],
      ['selfsubjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectAccessReview'],
      ['subjectaccessreviews', 'authorization.k8s.io/v1', 'false', 'SubjectAccessReview'],
      ['localsubjectaccessreviews', 'authorization.k8s.io/v1', 'true', 'LocalSubjectAccessReview'],
      ['selfsubjectrulesreviews', 'authorization.k8s.io/v1', 'false', 'SelfSubjectRulesReview'],
      ['events', 'events.k8s.io/v1', 'true', 'Event'],
      ['networkpolicies', 'networking.k8s.io/v1', 'true', 'NetworkPolicy'],
      ['apiservices', 'apiregistration.k8s.io/v1', 'false', 'APIService'],
      ['validatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingWebhookConfiguration'],
      ['mutatingwebhookconfigurations', 'admissionregistration.k8s.io/v1', 'false', 'MutatingWebhookConfiguration'],
      ['validatingadmissionpolicies', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicy'],
      [
        'validatingadmissionpolicybindings',
        'admissionregistration.k8s.io/v1',
        'false',
        'ValidatingAdmissionPolicyBinding',
      ],
      ['customresourcedefinitions', 'apiextensions.k8s.io/v1', 'false', 'CustomResourceDefinition'],
      ['flowschemas', 'flowcontrol.apiserver.k8s.io/v1', 'false', 'FlowSchema'],
      ['prioritylevelconfigurations', 'flowcontrol.apiserver.k8s.io/v1', 'false', 'PriorityLevelConfiguration'],
    ];
    expect(rows.map((r) => [r.NAME, r.APIVERSION, r.NAMESPACED, r.KIND])).to.have.deep.members(expected);
    expect(rows.find((r) => r.NAME === 'configmaps')!.SHORTNAMES).to.equal('cm');
    expect(rows.find((r) => r.NAME === 'replicasets')!.SHORTNAMES).to.equal('rs');

    const versions = (await env.kubectl.ok(['api-versions'])).trim().split('\n');
    expect(versions).to.have.members([
      'v1',
      'apps/v1',
      'batch/v1',
      'events.platform.io/v1',
      'networking.platform.io/v1',
      `${RBAC}/v1`,
      'apiregistration.platform.io/v1',
      'admissionregistration.platform.io/v1',
      'apiextensions.platform.io/v1',
      'flowcontrol.apiserver.platform.io/v1',
      'authentication.platform.io/v1',
      'authorization.platform.io/v1',
      `${K8S}/v1`,
      'apiregistration.k8s.io/v1',
      'admissionregistration.k8s.io/v1',
      'apiextensions.k8s.io/v1',
      'flowcontrol.apiserver.k8s.io/v1',
      'authentication.k8s.io/v1',
      'authentication.k8s.io/v1beta1',
      'authorization.k8s.io/v1',
      'events.k8s.io/v1',
      'networking.k8s.io/v1',
    ]);
  });

  it('get --raw /readyz?verbose prints every check and the verdict', async () => {
    const lines = (await env.kubectl.ok(['get', '--raw', '/readyz?verbose'])).trimEnd().split('\n');
    expect(lines.at(-1)).to.equal('healthz check passed');
    expect(lines).to.include('[+]ping ok');
    for (const line of lines.slice(0, -1)) expect(line).to.match(/^\[\+\][\w/.-]+ ok$/);
  });

  it('create -f makes one object of every served type, and get -A -o yaml shows each', async () => {
    const ns = 'e2e-create';
    const objects = everyType(ns);
    const file = await env.kubectl.manifest('every-type.yaml', manifest(...objects.map((o) => o.obj)));
    const out = await env.kubectl.ok(['create', '-f', file]);
    expect(out.trim().split('\n')).to.deep.equal(objects.map((o) => `${o.printed}/${o.obj.metadata.name} created`));

    for (const o of objects) {
      const stored = await get(o.path);
      expect(stored.kind).to.equal(o.obj.kind);
      expect(o.check(stored), `${o.path}: ${JSON.stringify(stored)}`).to.equal(true);
      const listed = yaml.load(await env.kubectl.ok(['get', o.resource, '-A', '-o', 'yaml'])) as any;
      expect(listed.kind).to.equal('List');
      const item = listed.items.find((i: any) => i.metadata.name === o.obj.metadata.name);
      expect(item, `${o.resource} in get -A -o yaml`).to.not.equal(undefined);
      expect(item).to.include({ apiVersion: o.obj.apiVersion, kind: o.obj.kind });
      expect(item.metadata.namespace).to.equal((o.obj.metadata as { namespace?: string }).namespace);
      expect(item.metadata.uid).to.equal(stored.metadata.uid);
      expect(o.check(item), `${o.resource} item: ${JSON.stringify(item)}`).to.equal(true);
    }
  });

  it('get -w prints the existing state and then a change made over HTTP', async () => {
    const ns = 'e2e-watch';
    await createNamespace(ns);
    await createConfigMap(ns, 'existing', { a: '1' });
    const watch = env.kubectl.stream(['get', 'cm', '-w', '-n', ns]);
    try {
      // Rows are matched on the NAME column only: which other columns a ConfigMap table has is not what this tests.
      const listed = await watch.waitForLine(/^existing\s/);
      await createConfigMap(ns, 'arrived', { a: '1' });
      const added = await watch.waitForLine(/^arrived\s/, { from: listed + 1 });
      const res = await env.gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/arrived`, {
        body: { data: { b: '2' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(res.status, res.body).to.equal(200);
      // Without --output-watch-events a modification is printed as the object's row again.
      await watch.waitForLine(/^arrived\s/, { from: added + 1 });
      expect(watch.running()).to.equal(true);
      expect(watch.lines.filter((l) => /^existing\s/.test(l))).to.have.length(1);
    } finally {
      const done = await watch.stop();
      expect(done.stderr).to.equal('');
    }
  });

  it('get -w --output-watch-events reports ADDED, MODIFIED and DELETED', async () => {
    const ns = 'e2e-watch-events';
    await createNamespace(ns);
    await createConfigMap(ns, 'listed', { a: '1' });
    const watch = env.kubectl.stream(['get', 'cm', '-w', '--output-watch-events', '-n', ns]);
    try {
      // The listed object is printed as ADDED; once it is there the watch is established.
      const listed = await watch.waitForLine(/^ADDED\s+listed\s/);
      await createConfigMap(ns, 'short-lived', { a: '1' });
      const added = await watch.waitForLine(/^ADDED\s+short-lived\s/, { from: listed + 1 });
      const patched = await env.gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/short-lived`, {
        body: { metadata: { labels: { touched: 'yes' } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status, patched.body).to.equal(200);
      const modified = await watch.waitForLine(/^MODIFIED\s+short-lived\s/, { from: added + 1 });
      expect((await env.gh.request('DELETE', `/api/v1/namespaces/${ns}/configmaps/short-lived`)).status).to.equal(200);
      await watch.waitForLine(/^DELETED\s+short-lived\s/, { from: modified + 1 });
      expect(watch.lines.filter((l) => /\slisted\s/.test(l))).to.have.length(1);
    } finally {
      await watch.stop();
    }
  });

  it('get --chunk-size=2 pages through a larger list with continue tokens', async () => {
    const ns = 'e2e-chunks';
    await createNamespace(ns);
    const names = Array.from({ length: 7 }, (_, i) => `item-${i}`);
    for (const n of names) await createConfigMap(ns, n, { n });
    const r = await env.kubectl.run(['get', 'cm', '-n', ns, '--chunk-size=2', '-v=6']);
    expect(r.code, r.stderr).to.equal(0);
    expect(
      parseColumns(r.stdout)
        .map((row) => row.NAME)
        .sort(),
    )
      .to.deep.equal(await configMapNames(ns))
      .and.include.members(names);
    const pageRequests = r.stderr
      .split('\n')
      .filter((l) => l.includes(`/namespaces/${ns}/configmaps?`) && l.includes('limit=2'));
    expect(pageRequests.filter((l) => l.includes('continue='))).to.have.length.at.least(3);
  });

  it('label and annotate add, refuse to overwrite, overwrite and remove', async () => {
    const ns = 'e2e-label';
    await createNamespace(ns);
    await createConfigMap(ns, 'tagged', { a: '1' });
    const meta = async () => (await get(`/api/v1/namespaces/${ns}/configmaps/tagged`)).metadata;
    const cm = ['cm', 'tagged', '-n', ns];

    expect(await env.kubectl.ok(['label', ...cm, 'tier=web'])).to.equal('configmap/tagged labeled\n');
    expect((await meta()).labels).to.deep.equal({ tier: 'web' });
    const refused = await env.kubectl.run(['label', ...cm, 'tier=db']);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.contain("'tier' already has a value (web), and --overwrite is false");
    await env.kubectl.ok(['label', ...cm, 'tier=db', '--overwrite']);
    expect((await meta()).labels).to.deep.equal({ tier: 'db' });
    expect(
      parseColumns(await env.kubectl.ok(['get', 'cm', '-n', ns, '-l', 'tier=db'])).map((r) => r.NAME),
    ).to.deep.equal(['tagged']);
    expect(await env.kubectl.ok(['label', ...cm, 'tier-'])).to.equal('configmap/tagged unlabeled\n');
    expect((await meta()).labels ?? {}).to.deep.equal({});

    expect(await env.kubectl.ok(['annotate', ...cm, 'owner=team-a'])).to.equal('configmap/tagged annotated\n');
    expect((await meta()).annotations).to.deep.equal({ owner: 'team-a' });
    const refusedNote = await env.kubectl.run(['annotate', ...cm, 'owner=team-b']);
    expect(refusedNote.code).to.equal(1);
    expect(refusedNote.stderr).to.contain("'owner' already has a value (team-a)");
    await env.kubectl.ok(['annotate', ...cm, 'owner=team-b', '--overwrite']);
    expect((await meta()).annotations).to.deep.equal({ owner: 'team-b' });
    await env.kubectl.ok(['annotate', ...cm, 'owner-']);
    expect((await meta()).annotations ?? {}).to.deep.equal({});
  });

  it('delete removes one object and a set chosen by label', async () => {
    const ns = 'e2e-delete';
    await createNamespace(ns);
    await createConfigMap(ns, 'single', { a: '1' });
    for (const n of ['x-1', 'x-2', 'x-3']) await createConfigMap(ns, n, { a: '1' }, { app: 'x' });
    await createConfigMap(ns, 'keep', { a: '1' }, { app: 'y' });

    expect(await env.kubectl.ok(['delete', 'cm', 'single', '-n', ns])).to.equal('configmap "single" deleted\n');
    expect((await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/single`)).status).to.equal(404);
    const out = await env.kubectl.ok(['delete', 'cm', '-l', 'app=x', '-n', ns]);
    expect(out.trim().split('\n').sort()).to.deep.equal([
      'configmap "x-1" deleted',
      'configmap "x-2" deleted',
      'configmap "x-3" deleted',
    ]);
    expect(await configMapNames(ns)).to.deep.equal(['keep']);
  });

  it('delete ns removes a namespace with content and waits until it is gone', async () => {
    const ns = 'e2e-doomed';
    const objects = everyType(ns).filter((o) => o.path.includes(`/namespaces/${ns}/`));
    await createNamespace(ns);
    for (const o of objects) await post(o.path.slice(0, o.path.lastIndexOf('/')), o.obj);
    expect(await env.kubectl.ok(['delete', 'ns', ns], { timeoutMs: 30_000, requestTimeout: '30s' })).to.equal(
      `namespace "${ns}" deleted\n`,
    );
    expect((await env.gh.request('GET', `/api/v1/namespaces/${ns}`)).status).to.equal(404);
    for (const o of objects) expect((await env.gh.request('GET', o.path)).status, o.path).to.equal(404);
  });

  it('apply -f creates, changes, leaves alone and prunes removed fields of a ConfigMap', async () => {
    const ns = 'e2e-apply-cm';
    await createNamespace(ns);
    const cm = (data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'app-config', namespace: ns },
      data,
    });
    const apply = async (obj: unknown) =>
      env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('app-config.yaml', manifest(obj))]);
    const stored = () => get(`/api/v1/namespaces/${ns}/configmaps/app-config`);

    expect(await apply(cm({ mode: 'fast', retries: '3' }))).to.equal('configmap/app-config created\n');
    const created = await stored();
    expect(created.data).to.deep.equal({ mode: 'fast', retries: '3' });
    expect(
      JSON.parse(created.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).data,
    ).to.deep.equal({ mode: 'fast', retries: '3' });
    expect(await apply(cm({ mode: 'safe', retries: '3' }))).to.equal('configmap/app-config configured\n');
    expect((await stored()).data).to.deep.equal({ mode: 'safe', retries: '3' });
    const before = (await stored()).metadata.resourceVersion;
    expect(await apply(cm({ mode: 'safe', retries: '3' }))).to.equal('configmap/app-config unchanged\n');
    expect((await stored()).metadata.resourceVersion).to.equal(before);
    expect(await apply(cm({ mode: 'safe' }))).to.equal('configmap/app-config configured\n');
    expect((await stored()).data).to.deep.equal({ mode: 'safe' });
  });

  it('apply -f of a ReplicaSet merges container lists by name and removes a dropped env var', async () => {
    const ns = 'e2e-apply-rs';
    await createNamespace(ns);
    const rs = (replicas: number, env: { name: string; value: string }[]) => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'api', namespace: ns, labels: { app: 'api' } },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'api' } },
        template: {
          metadata: { labels: { app: 'api' } },
          spec: { containers: [{ name: 'api', image: 'ghcr.io/acme/api:2.1', env }] },
        },
      },
    });
    const apply = async (obj: unknown) =>
      env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('api-rs.yaml', manifest(obj))]);
    const stored = () => get(`/apis/apps/v1/namespaces/${ns}/replicasets/api`);
    const envA = { name: 'LOG_LEVEL', value: 'info' };
    const envB = { name: 'FEATURE_X', value: 'on' };

    expect(await apply(rs(2, [envA, envB]))).to.equal('replicaset.apps/api created\n');
    expect(await apply(rs(3, [{ ...envA, value: 'debug' }, envB]))).to.equal('replicaset.apps/api configured\n');
    let spec = (await stored()).spec;
    expect(spec.replicas).to.equal(3);
    expect(spec.template.spec.containers[0].env).to.deep.equal([{ ...envA, value: 'debug' }, envB]);
    expect(await apply(rs(3, [{ ...envA, value: 'debug' }, envB]))).to.equal('replicaset.apps/api unchanged\n');
    expect(await apply(rs(3, [{ ...envA, value: 'debug' }]))).to.equal('replicaset.apps/api configured\n');
    spec = (await stored()).spec;
    expect(spec.template.spec.containers).to.have.length(1);
    expect(spec.template.spec.containers[0].env).to.deep.equal([{ ...envA, value: 'debug' }]);
  });

  it('explain nodes.spec.taints describes the field from the OpenAPI schema', async () => {
    const out = await env.kubectl.ok(['explain', 'nodes.spec.taints']);
    expect(out)
      .to.match(/^KIND:\s+Node$/m)
      .and.match(/^VERSION:\s+v1$/m)
      .and.match(/^FIELD:\s+taints\s+<\[\]Taint>$/m);
    for (const field of [
      /^\s+effect\s+<string> -required-$/m,
      /^\s+key\s+<string> -required-$/m,
      /^\s+timeAdded\s+<string>$/m,
      /^\s+value\s+<string>$/m,
    ]) {
      expect(out).to.match(field);
    }
  });

  it('get nodes and get rs -o wide print rows with their columns', async () => {
    const ns = 'e2e-wide';
    await createNamespace(ns);
    const rs = everyType(ns).find((o) => o.resource === 'replicasets')!;
    const node = everyType(ns).find((o) => o.resource === 'nodes')!;
    await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, rs.obj);
    await post('/api/v1/nodes', node.obj);

    const nodes = parseColumns(await env.kubectl.ok(['get', 'nodes']));
    expect(nodes.map((r) => r.NAME)).to.include(`${ns}-node`);
    expect(Object.values(nodes.find((r) => r.NAME === `${ns}-node`)!)).to.not.include('<unknown>');

    // kube-apiserver prints ReplicaSets as NAME DESIRED CURRENT READY AGE, and -o wide adds the priority-1 columns.
    const out = await env.kubectl.ok(['get', 'rs', '-o', 'wide', '-n', ns]);
    const wide = parseColumns(out);
    expect(wide, out).to.have.length(1);
    expect(wide[0], out).to.include({
      NAME: 'web',
      DESIRED: '2',
      CONTAINERS: 'web',
      IMAGES: 'nginx:1.27',
      SELECTOR: 'app=web',
    });
  });

  it("create -f of an invalid object shows the server's field errors and stores nothing", async () => {
    const ns = 'e2e-invalid';
    await createNamespace(ns);
    const badSchedule = {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'bad-schedule', namespace: ns },
      spec: {
        schedule: 'every minute',
        jobTemplate: {
          spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
        },
      },
    };
    const r = await env.kubectl.run([
      'create',
      '-f',
      await env.kubectl.manifest('bad-schedule.yaml', manifest(badSchedule)),
    ]);
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/The CronJob "bad-schedule" is invalid: spec\.schedule: Invalid value: "every minute"/);
    expect((await env.gh.request('GET', `/apis/batch/v1/namespaces/${ns}/cronjobs/bad-schedule`)).status).to.equal(404);

    const unknownField = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'typo', namespace: ns },
      dta: { a: '1' },
    };
    const strict = await env.kubectl.run([
      'create',
      '-f',
      await env.kubectl.manifest('typo.yaml', manifest(unknownField)),
    ]);
    expect(strict.code).to.equal(1);
    expect(strict.stderr).to.contain('Error from server (BadRequest)').and.contain('unknown field "dta"');
    expect((await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/typo`)).status).to.equal(404);
  });

  it('get of a missing object prints NotFound', async () => {
    const r = await env.kubectl.run(['get', 'cm', 'does-not-exist', '-n', 'default']);
    expect(r.code).to.equal(1);
    expect(r.stdout).to.equal('');
    expect(r.stderr.trim()).to.equal('Error from server (NotFound): configmaps "does-not-exist" not found');
  });
});
