// Security properties under --authorization-mode=RBAC (the real RBAC authorizer, no test authorizer): impersonation
// needs the `impersonate` verb granted by a role, per kind of attribute; a ClusterRoleBinding cannot hand out more
// than its author holds, nor can writes to existing bindings and roles; names of the four kinds are path segments;
// non-resource URLs are granted only through ClusterRoleBindings; SubjectAccessReview and LocalSubjectAccessReview
// ask RBAC; and the stock kubectl's `auth can-i` (SelfSubjectAccessReview) and `auth can-i --list`
// (SelfSubjectRulesReview from the RBAC rule resolver) answer what RBAC decides, complete since no webhook is asked.
import { expect } from 'chai';
import { createNamespace, eventually, expectFailure, MERGE } from '../helpers/api.js';
import { bindingBody, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { gatehouseWithKubectl } from '../helpers/kubectl-suite.js';

const SSR = '/apis/authentication.platform.io/v1/selfsubjectreviews';
const SSR_BODY = { apiVersion: 'authentication.platform.io/v1', kind: 'SelfSubjectReview' };
const SSRR = '/apis/authorization.platform.io/v1/selfsubjectrulesreviews';

describe('RBAC security', function () {
  this.timeout(90_000);
  const env = gatehouseWithKubectl(() => startRbacGatehouse());

  const as = (user: string) => ({ token: tokenOf(user) });
  const create = async (urlPath: string, body: unknown): Promise<void> => {
    const res = await env.gh.request('POST', urlPath, { body });
    expect(res.status, res.body).to.equal(201);
  };
  const review = (user: string, headers: Record<string, string>) =>
    env.gh.request('POST', SSR, { ...as(user), body: SSR_BODY, headers });

  describe('impersonation', () => {
    before(async () => {
      // carol may impersonate the user jane and the group qa, nothing else.
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(
          'impersonate-jane',
          [
            { verbs: ['impersonate'], apiGroups: [''], resources: ['users'], resourceNames: ['jane'] },
            { verbs: ['impersonate'], apiGroups: [''], resources: ['groups'], resourceNames: ['qa'] },
          ],
          'ClusterRole',
        ),
      );
      await create(
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody('carol-impersonates', 'ClusterRole', 'impersonate-jane', ['carol'], 'ClusterRoleBinding'),
      );
    });

    it("is refused without the impersonate verb, in kube-apiserver's words", async () => {
      const res = expectFailure(await review('bob', { 'Impersonate-User': 'jane' }), 403, 'Forbidden');
      expect(res.message).to.equal(
        'users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
      expect(res.details).to.deep.include({ name: 'jane', kind: 'users' });
    });

    it('is allowed by a ClusterRole granting impersonate on users and groups, for exactly what it names', async () => {
      const res = await eventually('carol may impersonate jane', async () => {
        const r = await review('carol', { 'Impersonate-User': 'jane', 'Impersonate-Group': 'qa' });
        return r.status === 201 ? r : undefined;
      });
      expect(res.json().status.userInfo).to.deep.equal({ username: 'jane', groups: ['qa', 'system:authenticated'] });

      const otherUser = expectFailure(await review('carol', { 'Impersonate-User': 'john' }), 403, 'Forbidden');
      expect(otherUser.message).to.equal(
        'users "john" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
      const otherGroup = expectFailure(
        await review('carol', { 'Impersonate-User': 'jane', 'Impersonate-Group': 'system:masters' }),
        403,
        'Forbidden',
      );
      expect(otherGroup.message).to.equal(
        'groups "system:masters" is forbidden: User "carol" cannot impersonate resource "groups" in API group "" at the cluster scope',
      );
      const uid = expectFailure(
        await review('carol', { 'Impersonate-User': 'jane', 'Impersonate-Uid': '1' }),
        403,
        'Forbidden',
      );
      expect(uid.message).to.equal(
        'uids.authentication.platform.io "1" is forbidden: User "carol" cannot impersonate resource "uids" in API group "authentication.platform.io" at the cluster scope',
      );
      const extra = expectFailure(
        await review('carol', { 'Impersonate-User': 'jane', 'Impersonate-Extra-Scopes': 'all' }),
        403,
        'Forbidden',
      );
      expect(extra.message).to.contain(
        'cannot impersonate resource "userextras/scopes" in API group "authentication.platform.io"',
      );
    });

    it("the impersonated user gets its own permissions, not the impersonator's", async () => {
      const ns = await createNamespace(env.gh, 'imp-rbac');
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('jane-view', 'ClusterRole', 'view', ['jane']),
      );
      const asJane = { ...as('carol'), headers: { 'Impersonate-User': 'jane' } };
      await eventually(
        'jane may list configmaps',
        async () => (await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, asJane)).status === 200,
      );
      const denied = expectFailure(
        await env.gh.request('GET', `/api/v1/namespaces/${ns}/secrets`, asJane),
        403,
        'Forbidden',
      );
      expect(denied.message).to.contain('User "jane" cannot list resource "secrets"');
      expectFailure(await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('carol')), 403, 'Forbidden');
    });

    it('kubectl --as works for the permitted user and is refused for bob', async () => {
      const carol = JSON.parse(
        await env.kubectl.ok([
          'auth',
          'whoami',
          '--token',
          tokenOf('carol'),
          '--as=jane',
          '--as-group=qa',
          '-o',
          'json',
        ]),
      );
      expect(carol.status.userInfo).to.deep.equal({ username: 'jane', groups: ['qa', 'system:authenticated'] });
      // whoami words any 403 as its own "not enabled or no permission", and discovery read raw reports "unknown" (a
      // client-go trait); the typed review request of can-i prints the server's Status message.
      const bob = await env.kubectl.run([
        'auth',
        'can-i',
        'list',
        'configmaps',
        '-n',
        'default',
        '--token',
        tokenOf('bob'),
        '--as=jane',
      ]);
      expect(bob.code).to.not.equal(0);
      expect(bob.stderr, bob.stderr).to.contain(
        'Error from server (Forbidden): users "jane" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
      );
    });
  });

  describe('escalation through a ClusterRoleBinding', () => {
    it('is refused to a user who may create bindings but does not hold cluster-admin', async () => {
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody(
          'binding-writer',
          [
            {
              verbs: ['create', 'get', 'list'],
              apiGroups: ['rbac.authorization.platform.io'],
              resources: ['clusterrolebindings'],
            },
          ],
          'ClusterRole',
        ),
      );
      await create(
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody('dave-binding-writer', 'ClusterRole', 'binding-writer', ['dave'], 'ClusterRoleBinding'),
      );
      await eventually(
        'dave may list clusterrolebindings',
        async () => (await env.gh.request('GET', `${RBAC_V1}/clusterrolebindings`, as('dave'))).status === 200,
      );
      const res = expectFailure(
        await env.gh.request('POST', `${RBAC_V1}/clusterrolebindings`, {
          ...as('dave'),
          body: bindingBody('dave-root', 'ClusterRole', 'cluster-admin', ['dave'], 'ClusterRoleBinding'),
        }),
        403,
        'Forbidden',
      );
      expect(res.message).to.contain(
        'clusterrolebindings.rbac.authorization.platform.io "dave-root" is forbidden: user "dave"',
      );
      expect(res.message).to.contain('is attempting to grant RBAC permissions not currently held');
      expect((await env.gh.request('GET', `${RBAC_V1}/clusterrolebindings/dave-root`)).status).to.equal(404);
      // Still nothing more than before.
      expectFailure(await env.gh.request('GET', '/api/v1/secrets', as('dave')), 403, 'Forbidden');
      // Binding a role dave does hold (his own) is fine.
      const own = await env.gh.request('POST', `${RBAC_V1}/clusterrolebindings`, {
        ...as('dave'),
        body: bindingBody('dave-again', 'ClusterRole', 'binding-writer', ['bob'], 'ClusterRoleBinding'),
      });
      expect(own.status, own.body).to.equal(201);
    });
  });

  describe('escalation through writes to existing objects', () => {
    it('refuses a namespace admin adding herself to a cluster-admin RoleBinding, by patch, put or apply, and widening a Role', async () => {
      const ns = await createNamespace(env.gh, 'esc-update');
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('carol-admin', 'ClusterRole', 'admin', ['carol']),
      );
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('bob-root', 'ClusterRole', 'cluster-admin', ['bob']),
      );
      await eventually(
        'carol is admin',
        async () =>
          (await env.gh.request('GET', `${RBAC_V1}/namespaces/${ns}/rolebindings`, as('carol'))).status === 200,
      );
      const item = `${RBAC_V1}/namespaces/${ns}/rolebindings/bob-root`;
      const grant = /is attempting to grant RBAC permissions not currently held/;
      const subjects = [{ kind: 'User', name: 'carol' }];
      expect(
        expectFailure(
          await env.gh.request('PATCH', item, { ...as('carol'), headers: MERGE, body: { subjects } }),
          403,
          'Forbidden',
        ).message,
      ).to.match(grant);
      const current = (await env.gh.request('GET', item)).json();
      expect(
        expectFailure(
          await env.gh.request('PUT', item, { ...as('carol'), body: { ...current, subjects } }),
          403,
          'Forbidden',
        ).message,
      ).to.match(grant);
      const apply = await env.gh.request(
        'PATCH',
        `${RBAC_V1}/namespaces/${ns}/rolebindings/carol-root?fieldManager=carol`,
        {
          ...as('carol'),
          headers: { 'content-type': 'application/apply-patch+yaml' },
          body: JSON.stringify(bindingBody('carol-root', 'ClusterRole', 'cluster-admin', ['carol'])),
        },
      );
      expect(expectFailure(apply, 403, 'Forbidden').message).to.match(grant);
      expect((await env.gh.request('GET', item)).json().subjects).to.deep.equal([
        { kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: 'bob' },
      ]);

      const role = await env.gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, {
        ...as('carol'),
        body: roleBody('r', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
      });
      expect(role.status, role.body).to.equal(201);
      const widen = await env.gh.request('PATCH', `${RBAC_V1}/namespaces/${ns}/roles/r`, {
        ...as('carol'),
        headers: { 'content-type': 'application/json-patch+json' },
        body: [{ op: 'replace', path: '/rules/0/apiGroups', value: ['*'] }],
      });
      expect(expectFailure(widen, 403, 'Forbidden').message).to.match(grant);
      // Deleting the binding is within her rights.
      expect((await env.gh.request('DELETE', item, as('carol'))).status).to.equal(200);
    });
  });

  describe('a watch parameter on an item path', () => {
    it('answers the object, so that a user who may only get it cannot watch it; the /watch/ path asks for watch', async () => {
      const ns = await createNamespace(env.gh, 'item-watch');
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      await create(cms, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one' }, data: { k: 'v' } });
      await create(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('getter', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
      );
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('dave-gets', 'Role', 'getter', ['dave']));
      await eventually(
        'dave may get',
        async () => (await env.gh.request('GET', `${cms}/one`, as('dave'))).status === 200,
      );

      for (const query of ['watch=1', 'watch=true&resourceVersion=0', 'watch=True&timeoutSeconds=600']) {
        // A stream would never end: the timeout turns one into a failure instead of a hang.
        const res = await env.gh.request('GET', `${cms}/one?${query}`, { ...as('dave'), timeoutMs: 5000 });
        expect(res.status, `${query}: ${res.body}`).to.equal(200);
        expect(res.json()).to.deep.include({ kind: 'ConfigMap', data: { k: 'v' } });
      }
      const itemWatch = expectFailure(
        await env.gh.request('GET', `/api/v1/watch/namespaces/${ns}/configmaps/one`, {
          ...as('dave'),
          timeoutMs: 5000,
        }),
        403,
        'Forbidden',
      );
      expect(itemWatch.message).to.equal(
        `configmaps "one" is forbidden: User "dave" cannot watch resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
      const collectionWatch = expectFailure(
        await env.gh.request('GET', `${cms}?watch=1`, { ...as('dave'), timeoutMs: 5000 }),
        403,
        'Forbidden',
      );
      expect(collectionWatch.message).to.equal(
        `configmaps is forbidden: User "dave" cannot watch resource "configmaps" in API group "" in the namespace "${ns}"`,
      );
    });
  });

  describe('names', () => {
    it('of the four kinds must be valid path segments (422 naming metadata.name); colons are fine', async () => {
      const ns = await createNamespace(env.gh, 'rbac-names');
      const paths: [string, 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding'][] = [
        [`${RBAC_V1}/namespaces/${ns}/roles`, 'Role'],
        [`${RBAC_V1}/clusterroles`, 'ClusterRole'],
        [`${RBAC_V1}/namespaces/${ns}/rolebindings`, 'RoleBinding'],
        [`${RBAC_V1}/clusterrolebindings`, 'ClusterRoleBinding'],
      ];
      for (const [urlPath, kind] of paths) {
        const body = (name: string) =>
          kind.endsWith('Binding')
            ? bindingBody(name, 'ClusterRole', 'view', ['u'], kind as 'RoleBinding' | 'ClusterRoleBinding')
            : roleBody(
                name,
                [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }],
                kind as 'Role' | 'ClusterRole',
              );
        for (const name of ['a/b', 'a%b', '..']) {
          const res = expectFailure(await env.gh.request('POST', urlPath, { body: body(name) }), 422, 'Invalid');
          expect(
            res.details.causes.map((c: { field: string }) => c.field),
            `${kind} ${name}`,
          ).to.include('metadata.name');
        }
        const ok = await env.gh.request('POST', urlPath, { body: body(`system:${ns}:Mixed.Case`) });
        expect(ok.status, `${kind}: ${ok.body}`).to.equal(201);
      }
    });
  });

  describe('non-resource URLs', () => {
    it('are granted only through a ClusterRoleBinding, a trailing * matching the rest of the path', async () => {
      const ns = await createNamespace(env.gh, 'nonres');
      await create(
        `${RBAC_V1}/clusterroles`,
        roleBody('metrics-reader', [{ verbs: ['get'], nonResourceURLs: ['/metrics', '/debug/*'] }], 'ClusterRole'),
      );
      // Bound in a namespace: the rule has no namespace to apply in, so nothing is granted.
      await create(
        `${RBAC_V1}/namespaces/${ns}/rolebindings`,
        bindingBody('bob-metrics', 'ClusterRole', 'metrics-reader', ['bob']),
      );
      await create(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('marker', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
      );
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('bob-marker', 'Role', 'marker', ['bob']));
      // Once the later binding is effective, the earlier one is too.
      await eventually(
        'bob may get configmaps',
        async () => (await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/x`, as('bob'))).status === 404,
      );
      expectFailure(await env.gh.request('GET', '/metrics', as('bob')), 403, 'Forbidden');
      expectFailure(await env.gh.request('GET', '/debug/pprof', as('bob')), 403, 'Forbidden');

      await create(
        `${RBAC_V1}/clusterrolebindings`,
        bindingBody('bob-metrics', 'ClusterRole', 'metrics-reader', ['bob'], 'ClusterRoleBinding'),
      );
      await eventually(
        'bob may get /metrics',
        async () => (await env.gh.request('GET', '/metrics', as('bob'))).status === 200,
      );
      // Allowed, and then not found: no such endpoint.
      expectFailure(await env.gh.request('GET', '/debug/pprof', as('bob')), 404, 'NotFound');
      const post = expectFailure(
        await env.gh.request('POST', '/metrics', { ...as('bob'), body: {} }),
        403,
        'Forbidden',
      );
      expect(post.message).to.equal('forbidden: User "bob" cannot post path "/metrics"');
      expect(expectFailure(await env.gh.request('GET', '/debug', as('bob')), 403, 'Forbidden').message).to.equal(
        'forbidden: User "bob" cannot get path "/debug"',
      );
    });
  });

  describe('access reviews and kubectl auth can-i', () => {
    let ns: string;
    before(async () => {
      ns = await createNamespace(env.gh, 'can-i');
      await create(
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('cm-reader', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
      );
      await create(`${RBAC_V1}/namespaces/${ns}/rolebindings`, bindingBody('alice-cm', 'Role', 'cm-reader', ['alice']));
      await eventually(
        'alice may list configmaps',
        async () => (await env.gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, as('alice'))).status === 200,
      );
    });
    const asAlice = () => ['--token', tokenOf('alice'), '-n', ns];

    it('answers yes for what a Role grants and no (exit 1) for the rest', async () => {
      expect((await env.kubectl.ok(['auth', 'can-i', 'list', 'configmaps', ...asAlice()])).trim()).to.equal('yes');
      expect((await env.kubectl.ok(['auth', 'can-i', 'get', 'configmaps/anything', ...asAlice()])).trim()).to.equal(
        'yes',
      );
      for (const args of [
        ['get', 'secrets'],
        ['create', 'configmaps'],
        ['list', 'configmaps', '-A'],
      ]) {
        const no = await env.kubectl.run(['auth', 'can-i', ...args, ...asAlice()]);
        expect(no.stdout.trim(), args.join(' ')).to.equal('no');
        expect(no.code, args.join(' ')).to.equal(1);
      }
      // The default policy: every authenticated user may read /version and discovery.
      expect((await env.kubectl.ok(['auth', 'can-i', 'get', '/version', ...asAlice()])).trim()).to.equal('yes');
      const metrics = await env.kubectl.run(['auth', 'can-i', 'get', '/metrics', ...asAlice()]);
      expect(metrics.stdout.trim()).to.equal('no');
    });

    it('SubjectAccessReview and LocalSubjectAccessReview ask RBAC about another user, with its reason', async () => {
      const AUTHZ = '/apis/authorization.platform.io/v1';
      const spec = (verb: string) => ({
        user: 'alice',
        groups: ['system:authenticated'],
        resourceAttributes: { namespace: ns, verb, resource: 'configmaps' },
      });
      const sar = (verb: string) => ({
        apiVersion: 'authorization.platform.io/v1',
        kind: 'SubjectAccessReview',
        spec: spec(verb),
      });
      const allowed = await env.gh.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: sar('list') });
      expect(allowed.status, allowed.body).to.equal(201);
      expect(allowed.json().status.allowed).to.equal(true);
      expect(allowed.json().status.reason).to.contain('RoleBinding "alice-cm/');
      const no = (await env.gh.request('POST', `${AUTHZ}/subjectaccessreviews`, { body: sar('delete') })).json().status;
      expect(no.allowed).to.equal(false);
      expect(no).to.not.have.property('denied');
      // Local: the same question in the path's namespace; another namespace in the spec is refused.
      const local = { ...sar('get'), kind: 'LocalSubjectAccessReview', metadata: { namespace: ns } };
      const res = await env.gh.request('POST', `${AUTHZ}/namespaces/${ns}/localsubjectaccessreviews`, { body: local });
      expect(res.status, res.body).to.equal(201);
      expect(res.json().status.allowed).to.equal(true);
      expectFailure(
        await env.gh.request('POST', `${AUTHZ}/namespaces/default/localsubjectaccessreviews`, {
          body: { ...local, metadata: {} },
        }),
        400,
        'BadRequest',
      );
      // Creating a SubjectAccessReview is itself authorized: alice may not ask about others.
      expectFailure(
        await env.gh.request('POST', `${AUTHZ}/subjectaccessreviews`, { ...as('alice'), body: sar('list') }),
        403,
        'Forbidden',
      );
    });

    it('--list prints the rules the RBAC rule resolver finds, complete', async () => {
      const out = await env.kubectl.ok(['auth', 'can-i', '--list', ...asAlice()]);
      expect(out).to.match(/^configmaps\s+\[\]\s+\[\]\s+\[get list\]$/m);
      // From system:basic-user and system:discovery / public-info-viewer.
      expect(out).to.match(/^selfsubjectreviews\.authentication\.platform\.io\s+\[\]\s+\[\]\s+\[create\]$/m);
      expect(out).to.match(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
      expect(out).to.not.match(/^secrets/m);
      // The same review over HTTP: complete, no evaluation error.
      const res = await env.gh.request('POST', SSRR, {
        ...as('alice'),
        body: { apiVersion: 'authorization.platform.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: ns } },
      });
      expect(res.status, res.body).to.equal(201);
      const status = res.json().status;
      expect(status.incomplete).to.equal(false);
      expect(status).to.not.have.property('evaluationError');
      expect(status.resourceRules).to.deep.include({
        verbs: ['get', 'list'],
        apiGroups: [''],
        resources: ['configmaps'],
      });
      // Another namespace: no configmaps rule.
      const elsewhere = await env.kubectl.ok(['auth', 'can-i', '--list', '--token', tokenOf('alice'), '-n', 'default']);
      expect(elsewhere).to.not.match(/^configmaps\s/m);
    });

    it('--list for a system:masters member prints what RBAC grants it, each rule once', async () => {
      // The privileged group resolves no rules of its own (as upstream): cluster-admin's two rules and the defaults
      // every authenticated user holds, not a second copy of "everything".
      const out = await env.kubectl.ok(['auth', 'can-i', '--list', '-n', ns]);
      expect(out.match(/^\*\.\*\s+\[\]\s+\[\]\s+\[\*\]$/gm) ?? []).to.have.length(1);
      expect(out.match(/^\s+\[\*\]\s+\[\]\s+\[\*\]$/gm) ?? []).to.have.length(1);
      expect(out).to.match(/^\s+\[\/version\]\s+\[\]\s+\[get\]$/m);
    });
  });
});
