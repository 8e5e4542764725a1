// RBAC driven by the real kubectl: Role and RoleBinding applied from YAML (JSON on the wire, the platform group;
// `kubectl create role/rolebinding` would POST protobuf to the rbac.authorization.k8s.io aliases), then a user's
// access through kubectl before and after the binding is deleted, and the default roles as kubectl lists them.
import { expect } from 'chai';
import { createNamespace, eventually } from '../helpers/api.js';
import { RBAC, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

describe('RBAC through kubectl', function () {
  this.timeout(90_000);
  const env = gatehouseWithKubectl(() => startRbacGatehouse());

  it('lists the default roles', async () => {
    const out = await env.kubectl.ok(['get', 'clusterroles']);
    for (const name of [
      'cluster-admin',
      'admin',
      'edit',
      'view',
      'system:basic-user',
      'system:discovery',
      'system:public-info-viewer',
    ]) {
      expect(out).to.match(new RegExp(`^${name}\\s`, 'm'));
    }
  });

  it('applies a Role and RoleBinding from YAML, after which the user may read and nothing more', async () => {
    const ns = await createNamespace(env.gh, 'rbac-kubectl');
    const file = await env.kubectl.manifest(
      'rbac.yaml',
      [
        `apiVersion: ${RBAC}/v1`,
        'kind: Role',
        'metadata:',
        '  name: cm-reader',
        `  namespace: ${ns}`,
        'rules:',
        '- apiGroups: [""]',
        '  resources: [configmaps]',
        '  verbs: [get, list]',
        '---',
        `apiVersion: ${RBAC}/v1`,
        'kind: RoleBinding',
        'metadata:',
        '  name: alice-cm',
        `  namespace: ${ns}`,
        'roleRef:',
        `  apiGroup: ${RBAC}`,
        '  kind: Role',
        '  name: cm-reader',
        'subjects:',
        '- kind: User',
        '  name: alice',
        '',
      ].join('\n'),
    );
    const out = await env.kubectl.ok(['apply', '-f', file]);
    expect(out).to.contain('role.rbac.authorization.platform.io/cm-reader created');
    expect(out).to.contain('rolebinding.rbac.authorization.platform.io/alice-cm created');
    const asAlice = ['--token', tokenOf('alice'), '-n', ns];
    await eventually(
      'alice lists configmaps',
      async () => (await env.kubectl.run(['get', 'configmaps', ...asAlice])).code === 0,
    );
    const denied = await env.kubectl.run(['get', 'secrets', ...asAlice]);
    expect(denied.code).to.not.equal(0);
    expect(denied.stderr).to.contain(
      `Error from server (Forbidden): secrets is forbidden: User "alice" cannot list resource "secrets" in API group "" in the namespace "${ns}"`,
    );
    expect(await env.kubectl.ok(['get', 'rolebindings', '-n', ns, '-o', 'wide'])).to.match(
      /alice-cm\s+Role\/cm-reader/,
    );

    await env.kubectl.ok(['delete', 'rolebinding', 'alice-cm', '-n', ns]);
    await eventually('alice refused again', async () =>
      (await env.kubectl.run(['get', 'configmaps', ...asAlice])).stderr.includes('Forbidden'),
    );
  });
});
