// Manifests written for Kubernetes, through the real kubectl: a stock RBAC manifest in rbac.authorization.k8s.io/v1
// applied (and applied again, unchanged), a SubjectAccessReview in authorization.k8s.io/v1 created from a file
// (which kubectl validates against /openapi/v2, the review having no PATCH operation in v3), `kubectl auth reconcile`
// run twice with nothing recreated, and names that several groups list resolving to ours; and the Python client's
// dynamic client, which finds the alias group through discovery.
import { expect } from 'chai';
import { createNamespace } from '../helpers/api.js';
import { startTestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl } from '../helpers/kubectl.js';
import { startRbacGatehouse } from '../helpers/rbac.js';
import { runPython } from '../helpers/python-client.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';
import { builtinKinds } from '../../api/register.js';
import { configMap } from '../../api/core/v1/config-map.js';
import type { KindDefinition } from '../../api/scheme.js';

const RBAC = 'rbac.authorization.platform.io';
const K8S = 'rbac.authorization.k8s.io';

function rbacManifest(ns: string, prefix: string): string {
  return [
    `apiVersion: ${K8S}/v1`,
    'kind: Role',
    'metadata:',
    `  name: ${prefix}-reader`,
    `  namespace: ${ns}`,
    'rules:',
    '- apiGroups: [""]',
    '  resources: [configmaps]',
    '  verbs: [get, list]',
    '---',
    `apiVersion: ${K8S}/v1`,
    'kind: RoleBinding',
    'metadata:',
    `  name: ${prefix}-alice`,
    `  namespace: ${ns}`,
    'roleRef:',
    `  apiGroup: ${K8S}`,
    '  kind: Role',
    `  name: ${prefix}-reader`,
    'subjects:',
    '- kind: User',
    `  apiGroup: ${K8S}`,
    '  name: alice',
    '- kind: ServiceAccount',
    '  name: robot',
    `  namespace: ${ns}`,
    '---',
    `apiVersion: ${K8S}/v1`,
    'kind: ClusterRole',
    'metadata:',
    `  name: ${ns}-${prefix}-nodes`,
    'rules:',
    '- apiGroups: [""]',
    '  resources: [nodes]',
    '  verbs: [get, list, watch]',
    '---',
    `apiVersion: ${K8S}/v1`,
    'kind: ClusterRoleBinding',
    'metadata:',
    `  name: ${ns}-${prefix}-ops`,
    'roleRef:',
    `  apiGroup: ${K8S}`,
    '  kind: ClusterRole',
    `  name: ${ns}-${prefix}-nodes`,
    'subjects:',
    '- kind: Group',
    `  apiGroup: ${K8S}`,
    '  name: ops',
    '',
  ].join('\n');
}

describe('Kubernetes manifests through the *.k8s.io aliases (kubectl)', function () {
  this.timeout(120_000);
  const env = gatehouseWithKubectl(() => startRbacGatehouse());

  const created = (ns: string, prefix: string) => [
    `role.${K8S}/${prefix}-reader`,
    `rolebinding.${K8S}/${prefix}-alice`,
    `clusterrole.${K8S}/${ns}-${prefix}-nodes`,
    `clusterrolebinding.${K8S}/${ns}-${prefix}-ops`,
  ];
  const uids = async (ns: string, prefix: string): Promise<string[]> =>
    Promise.all(
      [
        `/apis/${RBAC}/v1/namespaces/${ns}/roles/${prefix}-reader`,
        `/apis/${RBAC}/v1/namespaces/${ns}/rolebindings/${prefix}-alice`,
        `/apis/${RBAC}/v1/clusterroles/${ns}-${prefix}-nodes`,
        `/apis/${RBAC}/v1/clusterrolebindings/${ns}-${prefix}-ops`,
      ].map(async (p) => {
        const res = await env.gh.request('GET', p);
        expect(res.status, `${p}: ${res.body}`).to.equal(200);
        return res.json().metadata.uid as string;
      }),
    );

  it('applies a stock NetworkPolicy manifest (networking.k8s.io/v1) as ours, and again with nothing to change', async () => {
    const ns = await createNamespace(env.gh, 'k8s-netpol');
    const file = await env.kubectl.manifest(
      'netpol.yaml',
      [
        'apiVersion: networking.k8s.io/v1',
        'kind: NetworkPolicy',
        'metadata:',
        '  name: deny-all',
        `  namespace: ${ns}`,
        'spec:',
        '  podSelector: {}',
        '  policyTypes: [Ingress]',
        '',
      ].join('\n'),
    );
    expect(await env.kubectl.ok(['apply', '-f', file])).to.contain('networkpolicy.networking.k8s.io/deny-all created');
    expect(await env.kubectl.ok(['apply', '-f', file])).to.contain(
      'networkpolicy.networking.k8s.io/deny-all unchanged',
    );
    const ours = await env.gh.request(
      'GET',
      `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies/deny-all`,
    );
    expect(ours.status, ours.body).to.equal(200);
    expect(ours.json().apiVersion).to.equal('networking.platform.io/v1');
    // The short name still resolves to our group, listed first.
    expect(await env.kubectl.ok(['get', 'netpol', '-n', ns, '-o', 'name'])).to.equal(
      'networkpolicy.networking.platform.io/deny-all\n',
    );
  });

  it('applies a stock RBAC manifest, and again with nothing to change', async () => {
    const ns = await createNamespace(env.gh, 'k8s-manifest');
    const file = await env.kubectl.manifest('rbac.yaml', rbacManifest(ns, 'apply'));
    const first = await env.kubectl.ok(['apply', '-f', file]);
    for (const name of created(ns, 'apply')) expect(first).to.contain(`${name} created`);
    const before = await uids(ns, 'apply');
    const second = await env.kubectl.ok(['apply', '-f', file]);
    for (const name of created(ns, 'apply')) expect(second).to.contain(`${name} unchanged`);
    const diff = await env.kubectl.run(['diff', '-f', file]);
    expect([diff.code, diff.stdout]).to.deep.equal([0, '']);
    // Taken over by server-side apply: the same values, so no conflict with the client-side manager.
    const serverSide = await env.kubectl.ok(['apply', '--server-side', '-f', file]);
    for (const name of created(ns, 'apply')) expect(serverSide).to.contain(`${name} serverside-applied`);
    expect(await uids(ns, 'apply')).to.deep.equal(before);
    // Stored once, in our group; alice reads configmaps through the binding.
    const binding = JSON.parse(
      await env.kubectl.ok(['get', `rolebindings.${RBAC}`, 'apply-alice', '-n', ns, '-o', 'json']),
    );
    expect(binding.roleRef).to.deep.equal({ apiGroup: RBAC, kind: 'Role', name: 'apply-reader' });
  });

  it('creates a SubjectAccessReview from an authorization.k8s.io/v1 file and prints it in that group', async () => {
    const ns = await createNamespace(env.gh, 'k8s-review');
    await env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('review-rbac.yaml', rbacManifest(ns, 'review'))]);
    const review = (user: string) =>
      [
        'apiVersion: authorization.k8s.io/v1',
        'kind: SubjectAccessReview',
        'spec:',
        `  user: ${user}`,
        '  resourceAttributes:',
        `    namespace: ${ns}`,
        '    verb: get',
        '    resource: configmaps',
        '',
      ].join('\n');
    const allowed = await env.kubectl.ok([
      'create',
      '-f',
      await env.kubectl.manifest('sar-alice.yaml', review('alice')),
      '-o',
      'yaml',
    ]);
    expect(allowed).to.match(/^apiVersion: authorization\.k8s\.io\/v1\nkind: SubjectAccessReview\n/);
    expect(allowed).to.match(/\nstatus:\n {2}allowed: true\n/);
    const denied = await env.kubectl.ok([
      'create',
      '-f',
      await env.kubectl.manifest('sar-bob.yaml', review('bob')),
      '-o',
      'yaml',
    ]);
    expect(denied).to.match(/\nstatus:\n {2}allowed: false\n/);
    // kubectl checks the file against the /openapi/v2 definitions first, as it does upstream.
    const misspelled = await env.kubectl.run([
      'create',
      '-f',
      await env.kubectl.manifest('sar-typo.yaml', review('bob').replace('  user:', '  usr:')),
    ]);
    expect(misspelled.code).to.not.equal(0);
    expect(misspelled.stderr).to.contain(
      'unknown field "usr" in io.platform.api.authorization.v1.SubjectAccessReviewSpec',
    );
  });

  it('reconciles a stock RBAC manifest twice: the second run changes, deletes and recreates nothing', async () => {
    const ns = await createNamespace(env.gh, 'k8s-reconcile');
    const file = await env.kubectl.manifest('reconcile.yaml', rbacManifest(ns, 'rec'));
    const first = await env.kubectl.run(['auth', 'reconcile', '-f', file]);
    expect(first.code, first.stderr).to.equal(0);
    expect(first.stderr).to.contain('reconciliation required create');
    const before = await uids(ns, 'rec');
    const second = await env.kubectl.run(['auth', 'reconcile', '-f', file]);
    expect(second.code, second.stderr).to.equal(0);
    for (const name of created(ns, 'rec')) expect(second.stdout).to.contain(`${name} reconciled`);
    // kubectl reports every create, update or recreate it had to make; an unchanged object gets no such line.
    expect(second.stderr).to.not.contain('reconciliation required');
    expect(await uids(ns, 'rec')).to.deep.equal(before);
  });

  it('resolves resource names to our group, though the alias lists them too', async () => {
    const ns = await createNamespace(env.gh, 'k8s-names');
    await env.kubectl.ok(['apply', '-f', await env.kubectl.manifest('names.yaml', rbacManifest(ns, 'names'))]);
    const roles = JSON.parse(await env.kubectl.ok(['get', 'roles', '-n', ns, '-o', 'json']));
    expect(roles.items.map((r: any) => [r.apiVersion, r.metadata.name])).to.deep.equal([
      [`${RBAC}/v1`, 'names-reader'],
    ]);
    const single = JSON.parse(await env.kubectl.ok(['get', 'rolebinding', 'names-alice', '-n', ns, '-o', 'json']));
    expect(single.apiVersion).to.equal(`${RBAC}/v1`);
    // Named with the alias group, the same object answers in that group.
    const viaAlias = JSON.parse(
      await env.kubectl.ok(['get', `rolebindings.${K8S}`, 'names-alice', '-n', ns, '-o', 'json']),
    );
    expect(viaAlias).to.deep.include({
      apiVersion: `${K8S}/v1`,
      roleRef: { apiGroup: K8S, kind: 'Role', name: 'names-reader' },
    });
    expect(viaAlias.metadata.uid).to.equal(single.metadata.uid);
  });

  it('resolves a short name to our group when an alias group lists it too', async () => {
    // A kind of our own with a short name and an alias: the built-in aliased kinds have no short names.
    const widget: KindDefinition = {
      ...configMap,
      group: 'widgets.platform.io',
      kind: 'Widget',
      resource: 'widgets',
      singular: 'widget',
      shortNames: ['wdg'],
      groupAliases: ['widgets.k8s.io'],
      tableColumns: undefined,
    };
    const gh = await startTestGatehouse([], { kinds: [...builtinKinds, widget] });
    const kubectl = await createKubectl(gh.kubeconfigPath);
    try {
      const res = await gh.request('POST', '/apis/widgets.k8s.io/v1/namespaces/default/widgets', {
        body: { apiVersion: 'widgets.k8s.io/v1', kind: 'Widget', metadata: { name: 'w1' }, data: { a: 'b' } },
      });
      expect(res.status, res.body).to.equal(201);
      const out = JSON.parse(await kubectl.ok(['get', 'wdg', 'w1', '-o', 'json']));
      expect(out.apiVersion).to.equal('widgets.platform.io/v1');
      expect(JSON.parse(await kubectl.ok(['get', 'widgets', 'w1', '-o', 'json'])).apiVersion).to.equal(
        'widgets.platform.io/v1',
      );
      expect(JSON.parse(await kubectl.ok(['get', 'wdg.widgets.k8s.io', 'w1', '-o', 'json'])).apiVersion).to.equal(
        'widgets.k8s.io/v1',
      );
    } finally {
      await kubectl.cleanup();
      await gh.close();
    }
  });

  it('lets the Python dynamic client find rbac.authorization.k8s.io/v1 and answers it in that group', async () => {
    const ns = await createNamespace(env.gh, 'k8s-python');
    const result = await runPython(
      env.gh.kubeconfigPath,
      [
        'import json',
        'from kubernetes import client, config, dynamic',
        'config.load_kube_config()',
        'bindings = dynamic.DynamicClient(client.ApiClient()).resources.get(api_version="rbac.authorization.k8s.io/v1", kind="RoleBinding")',
        `made = bindings.create(namespace="${ns}", body={"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "py"},`,
        '  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"}, "subjects": [{"kind": "User", "name": "carol"}]})',
        `typed = client.RbacAuthorizationV1Api().read_namespaced_role_binding("py", "${ns}")`,
        'print(json.dumps({"apiVersion": made.apiVersion, "roleRef": made.to_dict()["roleRef"], "subjectGroup": typed.subjects[0].api_group}))',
        '',
      ].join('\n'),
    );
    expect(result.code, result.stderr).to.equal(0);
    expect(JSON.parse(result.stdout)).to.deep.equal({
      apiVersion: `${K8S}/v1`,
      roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'view' },
      subjectGroup: K8S,
    });
  });
});
