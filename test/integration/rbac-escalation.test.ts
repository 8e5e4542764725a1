// The write side of RBAC over real HTTPS: escalation prevention on roles and bindings (403 unless the author holds
// the permissions, or `escalate` / `bind`), roleRef immutability and the other validation rules (422), the
// role-aggregation controller following labelled ClusterRoles.
import { expect } from 'chai';
import { createNamespace, eventually, expectFailure, MERGE } from '../helpers/api.js';
import type { TestGatehouse } from '../helpers/gatehouse.js';
import { bindingBody, RBAC, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';

describe('RBAC writes', function () {
  this.timeout(90_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startRbacGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  const as = (user: string) => ({ token: tokenOf(user) });
  const create = async (path: string, body: unknown): Promise<void> => {
    const res = await gh.request('POST', path, { body });
    expect(res.status, res.body).to.equal(201);
  };

  /** A fresh namespace where `user` holds the aggregated `admin` role, once that is effective. */
  async function adminNamespace(prefix: string, user: string): Promise<string> {
    const ns = await createNamespace(gh, prefix);
    await create(
      `${RBAC_V1}/namespaces/${ns}/rolebindings`,
      bindingBody(`${user}-admin`, 'ClusterRole', 'admin', [user]),
    );
    await eventually(
      `${user} is admin in ${ns}`,
      async () => (await gh.request('GET', `${RBAC_V1}/namespaces/${ns}/rolebindings`, as(user))).status === 200,
    );
    return ns;
  }

  describe('escalation prevention', () => {
    it("refuses a binding to a role its author does not hold, with upstream's message", async () => {
      const ns = await adminNamespace('esc-bind', 'carol');
      const res = expectFailure(
        await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
          ...as('carol'),
          body: bindingBody('bob-root', 'ClusterRole', 'cluster-admin', ['bob']),
        }),
        403,
        'Forbidden',
      );
      expect(res.message).to.match(
        /^rolebindings\.rbac\.authorization\.platform\.io "bob-root" is forbidden: user "carol" \(groups=\[[^\]]*"system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n/,
      );
      expect(res.message).to.contain('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}');
      expect(res.details).to.deep.include({ name: 'bob-root', group: RBAC, kind: 'rolebindings' });
      // Nothing was stored.
      expect((await gh.request('GET', `${RBAC_V1}/namespaces/${ns}/rolebindings/bob-root`)).status).to.equal(404);
    });

    it('allows binding a role the author holds, here edit inside admin', async () => {
      const ns = await adminNamespace('esc-edit', 'carol');
      const res = await eventually('carol may bind edit', async () => {
        const r = await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
          ...as('carol'),
          body: bindingBody('bob-edit', 'ClusterRole', 'edit', ['bob']),
        });
        return r.status === 201 ? r : undefined;
      });
      expect(res.json().roleRef.name).to.equal('edit');
    });

    it('allows binding any role with the bind verb on it', async () => {
      const ns = await adminNamespace('esc-bindverb', 'carol');
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(
          `${ns}-bind-root`,
          [{ verbs: ['bind'], apiGroups: [RBAC], resources: ['clusterroles'], resourceNames: ['cluster-admin'] }],
          'ClusterRole',
        ),
      );
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('carol-bind', 'ClusterRole', `${ns}-bind-root`, ['carol']),
      );
      await eventually(
        'carol may bind cluster-admin',
        async () =>
          (
            await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
              ...as('carol'),
              body: bindingBody('bob-root', 'ClusterRole', 'cluster-admin', ['bob']),
            })
          ).status === 201,
      );
      // The binding is namespaced: bob is all-powerful in ns only.
      await eventually(
        'bob may read secrets in ns',
        async () => (await gh.request('GET', `/api/v1/namespaces/${ns}/secrets`, as('bob'))).status === 200,
      );
      expect((await gh.request('GET', '/api/v1/secrets', as('bob'))).status).to.equal(403);
    });

    it('refuses a role granting what its author does not hold, unless escalate is held', async () => {
      const ns = await adminNamespace('esc-role', 'carol');
      const nodesRole = roleBody('node-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]);
      const res = expectFailure(
        await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, { ...as('carol'), body: nodesRole }),
        403,
        'Forbidden',
      );
      expect(res.message).to.match(
        /^roles\.rbac\.authorization\.platform\.io "node-reader" is forbidden: user "carol" .* is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}$/,
      );
      // What carol holds she may grant, and update a role within it; an update adding more is refused too.
      await eventually(
        'carol may create a configmap role',
        async () =>
          (
            await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, {
              ...as('carol'),
              body: roleBody('cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
            })
          ).status === 201,
      );
      expectFailure(
        await gh.request('PATCH', `${RBAC_V1}/namespaces/${ns}/roles/cm`, {
          ...as('carol'),
          headers: MERGE,
          body: { rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }] },
        }),
        403,
        'Forbidden',
      );

      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(`${ns}-escalate`, [{ verbs: ['escalate'], apiGroups: [RBAC], resources: ['roles'] }], 'ClusterRole'),
      );
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('carol-escalate', 'ClusterRole', `${ns}-escalate`, ['carol']),
      );
      await eventually(
        'carol may escalate',
        async () =>
          (await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, { ...as('carol'), body: nodesRole }))
            .status === 201,
      );
    });

    it('refuses a ClusterRole with an aggregationRule to anyone without full authority', async () => {
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(
          'esc-crole-writer',
          [{ verbs: ['create'], apiGroups: [RBAC], resources: ['clusterroles'] }],
          'ClusterRole',
        ),
      );
      await create(
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody('esc-crole-writer', 'ClusterRole', 'esc-crole-writer', ['dave'], 'ClusterRoleBinding'),
      );
      const body = {
        ...roleBody('esc-agg', [], 'ClusterRole'),
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { x: 'y' } }] },
      };
      const res = await eventually('dave refused by the escalation check', async () => {
        const r = await gh.request('POST', `${RBAC_V1}/clusterroles`, { ...as('dave'), body });
        return r.body.includes('aggregationRule') ? r : undefined;
      });
      expect(expectFailure(res, 403, 'Forbidden').message).to.equal(
        `clusterroles.${RBAC} "esc-agg" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
      );
    });
  });

  describe('validation', () => {
    it('makes roleRef immutable for update and patch (422)', async () => {
      const ns = await createNamespace(gh, 'rbac-roleref');
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('b', 'ClusterRole', 'view', ['bob']));
      const current = (await gh.request('GET', `${RBAC_V1}/namespaces/${ns}/rolebindings/b`)).json();
      const put = expectFailure(
        await gh.request('PUT', `${RBAC_V1}/namespaces/${ns}/rolebindings/b`, {
          body: { ...current, roleRef: { ...current.roleRef, name: 'edit' } },
        }),
        422,
        'Invalid',
      );
      expect(put.message).to.match(
        /^RoleBinding\.rbac\.authorization\.platform\.io "b" is invalid: roleRef: Invalid value: .*: cannot change roleRef$/,
      );
      expect(put.details.causes).to.deep.include({
        reason: 'FieldValueInvalid',
        message: put.message.slice(put.message.indexOf('Invalid value')),
        field: 'roleRef',
      });
      const patch = expectFailure(
        await gh.request('PATCH', `${RBAC_V1}/namespaces/${ns}/rolebindings/b`, {
          headers: MERGE,
          body: { roleRef: { kind: 'Role' } },
        }),
        422,
        'Invalid',
      );
      expect(patch.message).to.contain('cannot change roleRef');
      // Subjects may change.
      expect(
        (
          await gh.request('PATCH', `${RBAC_V1}/namespaces/${ns}/rolebindings/b`, {
            headers: MERGE,
            body: { subjects: [{ kind: 'User', name: 'carol' }] },
          })
        ).status,
      ).to.equal(200);
    });

    it('refuses bad roleRefs, subjects and rules with 422 naming the field', async () => {
      const ns = await createNamespace(gh, 'rbac-valid');
      const invalid = async (path: string, body: unknown, field: string) => {
        const s = expectFailure(await gh.request('POST', path, { body }), 422, 'Invalid');
        expect(
          s.details.causes.map((c: { field: string }) => c.field),
          JSON.stringify(s),
        ).to.include(field);
      };
      const rb = `${RBAC_V1}/namespaces/${ns}/rolebindings`;
      const crb = `${RBAC_V1}/clusterrolebindings`;
      await invalid(rb, { metadata: { name: 'x' }, subjects: [] }, 'roleRef');
      await invalid(
        rb,
        { ...bindingBody('x', 'ClusterRole', 'view', []), subjects: [{ kind: 'Robot', name: 'r' }] },
        'subjects[0].kind',
      );
      await invalid(
        rb,
        { ...bindingBody('x', 'ClusterRole', 'view', []), subjects: [{ kind: 'User', name: 'u', namespace: ns }] },
        'subjects[0].namespace',
      );
      await invalid(crb, bindingBody('x', 'Role', 'view', [], 'ClusterRoleBinding'), 'roleRef.kind');
      await invalid(
        crb,
        {
          ...bindingBody('x', 'ClusterRole', 'view', [], 'ClusterRoleBinding'),
          subjects: [{ kind: 'ServiceAccount', name: 'sa' }],
        },
        'subjects[0].namespace',
      );
      await invalid(
        rb,
        {
          ...bindingBody('x', 'ClusterRole', 'view', []),
          roleRef: { apiGroup: 'example.io', kind: 'ClusterRole', name: 'view' },
        },
        'roleRef.apiGroup',
      );
      await invalid(rb, bindingBody('a/b', 'ClusterRole', 'view', []), 'metadata.name');
      await invalid(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('r', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
        'rules[0].nonResourceURLs',
      );
      await invalid(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('r', [{ verbs: [], apiGroups: [''], resources: ['configmaps'] }]),
        'rules[0].verbs',
      );
      // The group stock kubectl writes is accepted, and subjects get their apiGroup defaulted.
      const res = await gh.request('POST', rb, {
        body: {
          ...bindingBody('k8s-group', 'ClusterRole', 'view', []),
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [
            { kind: 'User', name: 'u' },
            { kind: 'ServiceAccount', name: 'sa' },
          ],
        },
      });
      expect(res.status, res.body).to.equal(201);
      expect(res.json().subjects).to.deep.equal([
        { kind: 'User', name: 'u', apiGroup: RBAC },
        { kind: 'ServiceAccount', name: 'sa' },
      ]);
    });
  });

  describe('role aggregation', () => {
    const rulesOf = async (name: string): Promise<any[]> =>
      (await gh.request('GET', `${RBAC_V1}/clusterroles/${name}`)).json().rules ?? [];
    const widgets = { verbs: ['get', 'list'], apiGroups: ['example.io'], resources: ['widgets'] };
    const hasWidgets = (rules: any[]) => rules.some((r) => JSON.stringify(r) === JSON.stringify(widgets));

    it('adds the rules of a labelled ClusterRole to view, edit and admin, and removes them when it goes', async () => {
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody('widgets-view', [widgets], 'ClusterRole', { [`${RBAC}/aggregate-to-view`]: 'true' }),
      );
      for (const role of ['view', 'edit', 'admin'])
        await eventually(`${role} has widgets`, async () => hasWidgets(await rulesOf(role)));
      expect((await gh.request('DELETE', `${RBAC_V1}/clusterroles/widgets-view`)).status).to.equal(200);
      for (const role of ['view', 'edit', 'admin'])
        await eventually(`${role} without widgets`, async () => !hasWidgets(await rulesOf(role)));
      // The role's own rules stay.
      expect((await rulesOf('view')).some((r) => r.resources?.includes('configmaps'))).to.equal(true);
    });

    it('replaces the hand-written rules of an aggregated role', async () => {
      const agg = {
        ...roleBody('agg-custom', [{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }], 'ClusterRole'),
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'agg-custom': 'yes' } }] },
      };
      await create(`${RBAC_V1}/clusterroles`, agg);
      await eventually('hand-written rules dropped', async () => (await rulesOf('agg-custom')).length === 0);
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody('agg-custom-part', [widgets], 'ClusterRole', { 'agg-custom': 'yes' }),
      );
      await eventually(
        'part aggregated',
        async () => JSON.stringify(await rulesOf('agg-custom')) === JSON.stringify([widgets]),
      );
      // A hand edit is undone.
      expect(
        (await gh.request('PATCH', `${RBAC_V1}/clusterroles/agg-custom`, { headers: MERGE, body: { rules: [] } }))
          .status,
      ).to.equal(200);
      await eventually(
        'edit undone',
        async () => JSON.stringify(await rulesOf('agg-custom')) === JSON.stringify([widgets]),
      );
    });
  });
});
