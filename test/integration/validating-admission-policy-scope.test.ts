// ValidatingAdmissionPolicy beyond one resource's writes, over real HTTPS with RBAC: rules naming subresources, the
// Scale a write through `scale` shows, the exemption of the policy kinds themselves, the read permission whoever
// names params must hold, and the authorizer variable checking as the requesting user, with the check metrics.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually, expectFailure, uniqueName } from '../helpers/api.js';
import { AR, binding, cm, policy, policyClient } from '../helpers/admission-policy.js';

describe('ValidatingAdmissionPolicy scope and authorization', function () {
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--authorization-mode=RBAC']);
  });
  after(async () => {
    await gh?.close();
  });

  const { post } = policyClient(() => gh);

  it('matches subresources by their own rule: a status write is refused, the object itself is not', async () => {
    const ns = await createNamespace(gh, 'vap-sub');
    const name = uniqueName('status');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        matchConstraints: {
          resourceRules: [
            { operations: ['UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['resourcequotas/status'] },
          ],
        },
        validations: [{ expression: "request.subResource != 'status'", message: "status is the controller's" }],
      }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    const quota = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec: { hard: { pods: '1' } } };
    await post(`/api/v1/namespaces/${ns}/resourcequotas`, quota);
    const patch = (sub: string, body: unknown) =>
      gh.request('PATCH', `/api/v1/namespaces/${ns}/resourcequotas/q${sub}?dryRun=All`, {
        body,
        headers: { 'content-type': 'application/merge-patch+json' },
      });
    const refused = await eventually('status refused', async () => {
      const r = await patch('/status', { status: { hard: { pods: '1' }, used: { pods: '0' } } });
      return r.status === 422 ? r : undefined;
    });
    expect(refused.json().message).to.include("denied request: status is the controller's");
    expect((await patch('', { metadata: { labels: { a: 'b' } } })).status).to.equal(200);
  });

  it('a write through scale shows policies the autoscaling/v1 Scale', async () => {
    const ns = await createNamespace(gh, 'vap-scale');
    const name = uniqueName('scale');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        matchConstraints: {
          resourceRules: [
            { operations: ['UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['replicasets/scale'] },
          ],
        },
        validations: [
          {
            expression: "request.kind.kind == 'Scale' && object.spec.replicas <= 3 && oldObject.spec.replicas == 1",
            messageExpression: "'at most 3 replicas, not ' + string(object.spec.replicas)",
          },
        ],
      }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    await post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
      },
    });
    const scale = (replicas: number) =>
      gh.request('PATCH', `/apis/apps/v1/namespaces/${ns}/replicasets/web/scale?dryRun=All`, {
        body: { spec: { replicas } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
    const refused = await eventually('scale refused', async () => {
      const r = await scale(5);
      return r.status === 422 ? r : undefined;
    });
    expect(refused.json().message).to.include('denied request: at most 3 replicas, not 5');
    expect((await scale(2)).status).to.equal(200);
  });

  it('never applies to policies and bindings themselves, so a policy over everything cannot lock them out', async () => {
    const name = uniqueName('everything');
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        matchConstraints: {
          resourceRules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
          namespaceSelector: { matchLabels: { 'platform.io/metadata.name': 'nowhere' } },
        },
        validations: [{ expression: 'false', message: 'nothing passes' }],
      }),
    );
    const everything = binding(`${name}-b`, name, 'nowhere');
    delete (everything.spec as Record<string, unknown>).matchResources;
    await post(`${AR}/validatingadmissionpolicybindings`, everything);
    const probe = uniqueName('probe');
    // Cluster-scoped kinds pass any namespace selector, so a Node is refused once the binding is in force...
    const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: probe } };
    await eventually('in force for nodes', async () => {
      const r = await gh.request('POST', '/api/v1/nodes?dryRun=All', { body: node });
      return r.status === 422 ? r : undefined;
    });
    // ...while the policies' own kinds stay writable, and the binding can be deleted.
    await post(`${AR}/validatingadmissionpolicies`, policy(probe, { validations: [{ expression: 'true' }] }));
    const removed = await gh.request('DELETE', `${AR}/validatingadmissionpolicybindings/${name}-b`);
    expect(removed.status, removed.body).to.equal(200);
    await eventually(
      'lifted',
      async () => (await gh.request('POST', '/api/v1/nodes?dryRun=All', { body: node })).status === 201,
    );
  });

  it('whoever names params must be able to read them: paramKind and paramRef are checked against RBAC', async () => {
    const RBAC = '/apis/rbac.authorization.platform.io/v1';
    const name = uniqueName('erin');
    const clusterRole = (role: string, rules: unknown[]) =>
      post(`${RBAC}/clusterroles`, {
        apiVersion: 'rbac.authorization.platform.io/v1',
        kind: 'ClusterRole',
        metadata: { name: role },
        rules,
      });
    const bindRole = (role: string) =>
      post(`${RBAC}/clusterrolebindings`, {
        apiVersion: 'rbac.authorization.platform.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'ClusterRole', name: role },
        subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name }],
      });
    await clusterRole(`${name}-policies`, [
      {
        apiGroups: ['admissionregistration.platform.io'],
        resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'],
        verbs: ['create'],
      },
    ]);
    await bindRole(`${name}-policies`);
    const asErin = (url: string, body: unknown) =>
      gh.request('POST', url, { body, headers: { 'Impersonate-User': name } });
    const withParams = policy(`${name}-p`, {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      validations: [{ expression: 'params != null' }],
    });
    const refused = await eventually('RBAC index has the role', async () => {
      const r = await asErin(`${AR}/validatingadmissionpolicies`, withParams);
      return r.status === 422 ? r : undefined;
    });
    const status = expectFailure(refused, 422, 'Invalid');
    expect(status.details.causes[0]).to.include({ field: 'spec.paramKind', reason: 'FieldValueForbidden' });
    expect(status.message).to.include(
      `user ${name} must have "get" permission on all objects of the referenced paramKind (kind=ConfigMap, apiVersion=v1)`,
    );
    // The admin writes the policy; erin's binding to it names a param erin cannot read.
    await post(`${AR}/validatingadmissionpolicies`, withParams);
    const bindingBody = binding(`${name}-b`, `${name}-p`, 'default', {
      paramRef: { name: 'limits', namespace: 'default', parameterNotFoundAction: 'Deny' },
    });
    const refusedBinding = expectFailure(
      await asErin(`${AR}/validatingadmissionpolicybindings`, bindingBody),
      422,
      'Invalid',
    );
    expect(refusedBinding.message).to.include(
      `spec.paramRef: Forbidden: user ${name} does not have "get" permission on the object referenced by paramRef`,
    );
    await clusterRole(`${name}-read`, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
    await bindRole(`${name}-read`);
    await eventually('allowed once erin may read ConfigMaps', async () => {
      const r = await asErin(`${AR}/validatingadmissionpolicybindings`, bindingBody);
      return r.status === 201;
    });
    await gh.request('DELETE', `${AR}/validatingadmissionpolicybindings/${name}-b`);
  });

  it('the authorizer variable checks as the requesting user; metrics count the checks', async () => {
    const ns = await createNamespace(gh, 'vap-authz');
    const name = uniqueName('authz');
    const RBAC = '/apis/rbac.authorization.platform.io/v1';
    // Both users may create ConfigMaps in the namespace; only carol may also delete Secrets there.
    await post(`${RBAC}/namespaces/${ns}/roles`, {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'Role',
      metadata: { name: 'writer' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create'] }],
    });
    await post(`${RBAC}/namespaces/${ns}/roles`, {
      apiVersion: 'rbac.authorization.platform.io/v1',
      kind: 'Role',
      metadata: { name: 'secret-deleter' },
      rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['delete'] }],
    });
    const bind = (role: string, users: string[]) =>
      post(`${RBAC}/namespaces/${ns}/rolebindings`, {
        apiVersion: 'rbac.authorization.platform.io/v1',
        kind: 'RoleBinding',
        metadata: { name: role },
        roleRef: { apiGroup: 'rbac.authorization.platform.io', kind: 'Role', name: role },
        subjects: users.map((u) => ({ kind: 'User', apiGroup: 'rbac.authorization.platform.io', name: u })),
      });
    await bind('writer', ['dave', 'carol']);
    await bind('secret-deleter', ['carol']);
    await post(
      `${AR}/validatingadmissionpolicies`,
      policy(name, {
        validations: [
          {
            expression:
              "authorizer.group('').resource('secrets').namespace(request.namespace).check('delete').allowed()",
            messageExpression: "request.userInfo.username + ' cannot delete secrets'",
            reason: 'Forbidden',
          },
        ],
      }),
    );
    await post(`${AR}/validatingadmissionpolicybindings`, binding(`${name}-b`, name, ns));
    const as = (user: string) =>
      gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, {
        body: cm('probe'),
        headers: { 'Impersonate-User': user },
      });
    const refused = await eventually('policy in force', async () => {
      const r = await as('dave');
      return r.status === 403 && r.body.includes('ValidatingAdmissionPolicy') ? r : undefined;
    });
    expect(refused.json().message).to.include('denied request: dave cannot delete secrets');
    expect((await as('carol')).status).to.equal(201);
    const metrics = (await gh.request('GET', '/metrics')).body;
    const counted = (action: string) =>
      metrics
        .split('\n')
        .find(
          (l) =>
            l.startsWith('apiserver_validating_admission_policy_check_total{') &&
            l.includes(`policy="${name}"`) &&
            l.includes(`policy_binding="${name}-b"`) &&
            l.includes('error_type="no_error"') &&
            l.includes(`enforcement_action="${action}"`),
        );
    expect(counted('allow'), 'allow').to.match(/ [1-9]\d*$/);
    expect(counted('deny'), 'deny').to.match(/ [1-9]\d*$/);
    expect(metrics).to.include('apiserver_validating_admission_policy_check_duration_seconds_bucket');
  });
});
