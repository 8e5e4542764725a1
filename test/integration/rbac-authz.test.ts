// RBAC authorization over real HTTPS (--authorization-mode=RBAC, static-token users): the default policy
// (discovery, health and self reviews for everyone), roles and bindings allowing and not allowing, a RoleBinding
// to a ClusterRole granting only in its namespace, the aggregated `view` role without Secrets, decisions following
// binding changes through the watch, the 403 wording, and the Node authorizer alone.
import { expect } from 'chai';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import type { TestGatehouse } from '../helpers/gatehouse.js';
import { bindingBody, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';

describe('RBAC authorization', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startRbacGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const as = (user: string | null) => ({ token: user === null ? null : tokenOf(user) });
  const status = async (user: string | null, method: string, path: string, body?: unknown): Promise<number> =>
    (await gh.request(method, path, { ...as(user), body })).status;
  const create = async (path: string, body: unknown): Promise<void> => {
    const res = await gh.request('POST', path, { body });
    expect(res.status, res.body).to.equal(201);
  };

  describe('default policy', () => {
    it('is in place before the server reports ready', async () => {
      const res = await gh.request('GET', '/readyz?verbose');
      expect(res.status).to.equal(200);
      expect(res.body).to.contain('[+]poststarthook/rbac/bootstrap-roles ok');
      const crb = (await gh.request('GET', `${RBAC_V1}/clusterrolebindings/cluster-admin`)).json();
      expect(crb.subjects).to.deep.equal([
        { kind: 'Group', apiGroup: 'rbac.authorization.platform.io', name: 'system:masters' },
      ]);
      expect(crb.metadata.annotations).to.include({ 'rbac.authorization.platform.io/autoupdate': 'true' });
    });

    it('lets anyone read health and version, authenticated users discovery and self reviews', async () => {
      for (const p of ['/healthz', '/livez', '/readyz', '/version']) {
        expect(await status(null, 'GET', p), p).to.equal(200);
        expect(await status('bob', 'GET', p), p).to.equal(200);
      }
      expect(await status('bob', 'GET', '/api')).to.equal(200);
      expect(await status('bob', 'GET', '/apis/rbac.authorization.platform.io/v1')).to.equal(200);
      const anon = expectFailure(await gh.request('GET', '/apis', as(null)), 403, 'Forbidden');
      expect(anon.message).to.equal('forbidden: User "system:anonymous" cannot get path "/apis"');
      expect(
        await status('bob', 'POST', '/apis/authentication.platform.io/v1/selfsubjectreviews', {
          kind: 'SelfSubjectReview',
        }),
      ).to.equal(201);
    });

    it("refuses everything else with kube-apiserver's 403 message", async () => {
      const ns = await createNamespace(gh, 'rbac-deny');
      const res = expectFailure(
        await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('bob')),
        403,
        'Forbidden',
      );
      expect(res.message).to.equal(
        `configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      expect(res.details).to.deep.equal({ kind: 'configmaps' });
      const cluster = expectFailure(
        await gh.request('GET', `${RBAC_V1}/clusterroles/view`, as('bob')),
        403,
        'Forbidden',
      );
      expect(cluster.message).to.equal(
        'clusterroles.rbac.authorization.platform.io "view" is forbidden: User "bob" cannot get resource "clusterroles" in API group "rbac.authorization.platform.io" at the cluster scope',
      );
    });
  });

  describe('roles and bindings', () => {
    it('allow what a bound Role grants in its namespace and nothing more', async () => {
      const ns = await createNamespace(gh, 'rbac-role');
      const other = await createNamespace(gh, 'rbac-other');
      await create(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
      );
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('alice-cm', 'Role', 'cm-reader', ['alice']));
      await eventually(
        'alice may list configmaps',
        async () => (await status('alice', 'GET', `/api/v1/namespaces/${ns}/configmaps`)) === 200,
      );
      expect(await status('alice', 'GET', `/api/v1/namespaces/${other}/configmaps`)).to.equal(403);
      expect(await status('alice', 'GET', `/api/v1/namespaces/${ns}/secrets`)).to.equal(403);
      expect(
        await status('alice', 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x' } }),
      ).to.equal(403);
      expect(await status('bob', 'GET', `/api/v1/namespaces/${ns}/configmaps`)).to.equal(403);
    });

    it('restrict by resourceNames to the named objects', async () => {
      const ns = await createNamespace(gh, 'rbac-names');
      for (const name of ['a', 'b']) await create(`/api/v1/namespaces/${ns}/configmaps`, { metadata: { name } });
      await create(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('only-a', [
          { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] },
        ]),
      );
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('dave-a', 'Role', 'only-a', ['dave']));
      await eventually(
        'dave may get a',
        async () => (await status('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps/a`)) === 200,
      );
      expect(await status('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps/b`)).to.equal(403);
      expect(await status('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps`)).to.equal(403);
    });

    it("grant a ClusterRole through a RoleBinding only in the binding's namespace", async () => {
      const ns = await createNamespace(gh, 'rbac-crole');
      const other = await createNamespace(gh, 'rbac-crole-other');
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(`${ns}-secret-reader`, [{ verbs: ['list'], apiGroups: [''], resources: ['secrets'] }], 'ClusterRole'),
      );
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('alice-secrets', 'ClusterRole', `${ns}-secret-reader`, ['alice']),
      );
      await eventually(
        'alice may list secrets',
        async () => (await status('alice', 'GET', `/api/v1/namespaces/${ns}/secrets`)) === 200,
      );
      expect(await status('alice', 'GET', `/api/v1/namespaces/${other}/secrets`)).to.equal(403);
      expect(await status('alice', 'GET', '/api/v1/secrets')).to.equal(403);
    });

    it('grant cluster-wide through a ClusterRoleBinding, and stop once it is deleted', async () => {
      const ns = await createNamespace(gh, 'rbac-crb');
      const role = `${ns}-ns-reader`;
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(role, [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['namespaces'] }], 'ClusterRole'),
      );
      await create(
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody(role, 'ClusterRole', role, ['carol'], 'ClusterRoleBinding'),
      );
      await eventually(
        'carol may list namespaces',
        async () => (await status('carol', 'GET', '/api/v1/namespaces')) === 200,
      );
      expect(await status('carol', 'GET', `/api/v1/namespaces/${ns}`)).to.equal(200);
      expect((await gh.request('DELETE', `${RBAC_V1}/clusterrolebindings/${role}`)).status).to.equal(200);
      await eventually('carol refused again', async () => (await status('carol', 'GET', '/api/v1/namespaces')) === 403);
    });

    it("match service accounts by namespace and name, the namespace defaulting to the binding's", async () => {
      const robot = 'system:serviceaccount:sa-ns:robot';
      await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'sa-ns' } } });
      const ns = await createNamespace(gh, 'rbac-sa');
      await create(`${RBAC_V1}/namespaces/sa-ns/rolebindings`, {
        ...bindingBody('robot-view', 'ClusterRole', 'view', []),
        subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      });
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, {
        ...bindingBody('robot-other', 'ClusterRole', 'view', []),
        subjects: [{ kind: 'ServiceAccount', name: 'robot' }],
      });
      await eventually(
        'robot may list configmaps in its namespace',
        async () => (await status(robot, 'GET', '/api/v1/namespaces/sa-ns/configmaps')) === 200,
      );
      // In the other namespace the subject means that namespace's `robot`, which is another account.
      expect(await status(robot, 'GET', `/api/v1/namespaces/${ns}/configmaps`)).to.equal(403);
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, {
        ...bindingBody('robot-qualified', 'ClusterRole', 'view', []),
        subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'sa-ns' }],
      });
      await eventually(
        'robot may list configmaps in the other namespace',
        async () => (await status(robot, 'GET', `/api/v1/namespaces/${ns}/configmaps`)) === 200,
      );
    });

    it('gives a user bound to view read access without Secrets', async () => {
      const ns = await createNamespace(gh, 'rbac-view');
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('dave-view', 'ClusterRole', 'view', ['dave']),
      );
      await eventually(
        'dave may list configmaps',
        async () => (await status('dave', 'GET', `/api/v1/namespaces/${ns}/configmaps`)) === 200,
      );
      expect(await status('dave', 'GET', `/apis/apps/v1/namespaces/${ns}/replicasets`)).to.equal(200);
      const res = expectFailure(
        await gh.request('GET', `/api/v1/namespaces/${ns}/secrets`, as('dave')),
        403,
        'Forbidden',
      );
      expect(res.message).to.contain('User "dave" cannot list resource "secrets" in API group "" in the namespace');
      expect(await status('dave', 'POST', `/api/v1/namespaces/${ns}/configmaps`, { metadata: { name: 'x' } })).to.equal(
        403,
      );
      expect(await status('dave', 'GET', `${RBAC_V1}/namespaces/${ns}/rolebindings`)).to.equal(403);
    });

    it('answers a binding whose role is missing with 403 naming the problem, not a failure', async () => {
      const ns = await createNamespace(gh, 'rbac-missing');
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('dangling', 'Role', 'nope', ['bob']));
      const res = await eventually('the dangling roleRef reported', async () => {
        const r = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('bob'));
        return r.body.includes('not found') ? r : undefined;
      });
      expect(expectFailure(res, 403, 'Forbidden').message).to.contain(
        'RBAC: role.rbac.authorization.platform.io "nope" not found',
      );
    });
  });
});

describe('Node authorizer alone', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startRbacGatehouse('Node');
  });
  after(async () => {
    await gh?.close();
  });

  const node = { token: tokenOf('system:node:n1') };
  const nodeBody = (name: string, labels: Record<string, string> = {}) => ({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels },
  });

  it('lets a node create and change its own Node and read others, nothing more', async () => {
    expect((await gh.request('POST', '/api/v1/nodes', { ...node, body: nodeBody('n1') })).status).to.equal(201);
    expect((await gh.request('POST', '/api/v1/nodes', { body: nodeBody('n2') })).status).to.equal(201);
    const ownPatch = await gh.request('PATCH', '/api/v1/nodes/n1', {
      ...node,
      body: { metadata: { labels: { a: 'b' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(ownPatch.status, ownPatch.body).to.equal(200);
    const status = await gh.request('PATCH', '/api/v1/nodes/n1/status', {
      ...node,
      body: { status: { phase: 'Running' } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(status.status, status.body).to.equal(200);
    expect((await gh.request('GET', '/api/v1/nodes/n2', node)).status).to.equal(200);
    expect((await gh.request('GET', '/api/v1/nodes', node)).status).to.equal(200);

    const other = expectFailure(
      await gh.request('PATCH', '/api/v1/nodes/n2', {
        ...node,
        body: { metadata: { labels: { a: 'b' } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      403,
      'Forbidden',
    );
    expect(other.message).to.contain(
      'User "system:node:n1" cannot patch resource "nodes" in API group "" at the cluster scope',
    );
    expectFailure(
      await gh.request('PATCH', '/api/v1/nodes/n2/status', {
        ...node,
        body: { status: {} },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      403,
      'Forbidden',
    );
    const createOther = expectFailure(
      await gh.request('POST', '/api/v1/nodes', { ...node, body: nodeBody('n3') }),
      403,
      'Forbidden',
    );
    expect(createOther.message).to.equal('nodes "n3" is forbidden: node "n1" is not allowed to modify node "n3"');
    expectFailure(await gh.request('DELETE', '/api/v1/nodes/n1', node), 403, 'Forbidden');
    expectFailure(await gh.request('GET', '/api/v1/namespaces', node), 403, 'Forbidden');
    // Other users get no opinion from the Node authorizer, hence 403 with Node as the only mode.
    expectFailure(await gh.request('GET', '/api/v1/nodes', { token: tokenOf('alice') }), 403, 'Forbidden');
  });
});
