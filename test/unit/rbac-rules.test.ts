// RBAC rule matching, the authorizer over an in-memory index, rule coverage for escalation checks, aggregation and
// the Node authorizer, without a server.
import { expect } from 'chai';
import type { Attributes } from '../../policies/authorizer.js';
import { createRbacAuthorizer } from '../../policies/rbac/authorizer.js';
import { compactString, uncovered } from '../../policies/rbac/covers.js';
import { checkRbacWrite } from '../../policies/rbac/escalation.js';
import { createRbacIndex } from '../../policies/rbac/index.js';
import { createRuleResolver } from '../../policies/rbac/rule-resolver.js';
import { ruleAllows, subjectMatches } from '../../policies/rbac/rule-matching.js';
import type { BindingObject, PolicyRule, RoleObject, Subject } from '../../policies/rbac/types.js';
import { createNodeAuthorizer } from '../../policies/node/authorizer.js';
import { aggregatedRules } from '../../gateway/controllers/role-aggregation.js';
import { isStatusError } from '../../api/meta/errors.js';

const G = 'rbac.authorization.platform.io';
const alice = { name: 'alice', groups: ['dev', 'system:authenticated'] };

function attrs(over: Partial<Attributes>): Attributes {
  return {
    user: alice,
    verb: 'get',
    isResourceRequest: true,
    path: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'configmaps',
    subresource: '',
    namespace: 'ns1',
    name: '',
    ...over,
  };
}

const role = (
  kind: 'Role' | 'ClusterRole',
  name: string,
  rules: PolicyRule[],
  namespace?: string,
  labels?: Record<string, string>,
): RoleObject => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}), ...(labels ? { labels } : {}) },
  rules,
});
const binding = (
  kind: 'RoleBinding' | 'ClusterRoleBinding',
  name: string,
  ref: { kind: string; name: string },
  subjects: Subject[],
  namespace?: string,
): BindingObject => ({
  apiVersion: `${G}/v1`,
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
  roleRef: { apiGroup: G, ...ref },
  subjects,
});

describe('RBAC rule matching', () => {
  const r = (rule: Partial<PolicyRule>): PolicyRule => ({
    verbs: ['get'],
    apiGroups: [''],
    resources: ['configmaps'],
    ...rule,
  });

  it('matches verbs, groups and resources, with * for each', () => {
    expect(ruleAllows(attrs({}), r({}))).to.equal(true);
    expect(ruleAllows(attrs({ verb: 'list' }), r({}))).to.equal(false);
    expect(ruleAllows(attrs({ verb: 'list' }), r({ verbs: ['*'] }))).to.equal(true);
    expect(ruleAllows(attrs({ apiGroup: 'apps' }), r({}))).to.equal(false);
    expect(ruleAllows(attrs({ apiGroup: 'apps' }), r({ apiGroups: ['*'] }))).to.equal(true);
    expect(ruleAllows(attrs({ resource: 'secrets' }), r({}))).to.equal(false);
    expect(ruleAllows(attrs({ resource: 'secrets' }), r({ resources: ['*'] }))).to.equal(true);
  });

  it('treats subresources as their own resource, with */sub for every resource', () => {
    const status = attrs({ resource: 'nodes', subresource: 'status', verb: 'update', name: 'n1' });
    expect(ruleAllows(status, r({ verbs: ['update'], resources: ['nodes'] }))).to.equal(false);
    expect(ruleAllows(status, r({ verbs: ['update'], resources: ['nodes/status'] }))).to.equal(true);
    expect(ruleAllows(status, r({ verbs: ['update'], resources: ['*/status'] }))).to.equal(true);
    expect(ruleAllows(status, r({ verbs: ['update'], resources: ['*/scale'] }))).to.equal(false);
    expect(
      ruleAllows(attrs({ resource: 'nodes', verb: 'update' }), r({ verbs: ['update'], resources: ['*/status'] })),
    ).to.equal(false);
  });

  it('restricts by resourceNames only requests that carry a name', () => {
    const named = r({ verbs: ['get', 'list', 'create'], resourceNames: ['a'] });
    expect(ruleAllows(attrs({ name: 'a' }), named)).to.equal(true);
    expect(ruleAllows(attrs({ name: 'b' }), named)).to.equal(false);
    expect(ruleAllows(attrs({ verb: 'list' }), named)).to.equal(false);
    expect(ruleAllows(attrs({ verb: 'create' }), named)).to.equal(false);
  });

  it('matches non-resource URLs exactly or by a trailing *', () => {
    const nr = (path: string) => attrs({ isResourceRequest: false, path, resource: '', namespace: '' });
    const rule: PolicyRule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    expect(ruleAllows(nr('/healthz'), rule)).to.equal(true);
    expect(ruleAllows(nr('/healthz/ping'), rule)).to.equal(false);
    expect(ruleAllows(nr('/apis/apps/v1'), rule)).to.equal(true);
    expect(ruleAllows(nr('/apis'), rule)).to.equal(false);
    expect(ruleAllows({ ...nr('/healthz'), verb: 'post' }, rule)).to.equal(false);
    // A resource rule never matches a non-resource request.
    expect(ruleAllows(nr('/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).to.equal(false);
  });

  it('matches subjects by user name, group and service account identity', () => {
    expect(subjectMatches({ kind: 'User', name: 'alice' }, alice, '')).to.equal(true);
    expect(subjectMatches({ kind: 'User', name: 'Alice' }, alice, '')).to.equal(false);
    expect(subjectMatches({ kind: 'Group', name: 'dev' }, alice, '')).to.equal(true);
    const sa = { name: 'system:serviceaccount:ns1:robot', groups: [] };
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot', namespace: 'ns1' }, sa, '')).to.equal(true);
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, sa, 'ns1')).to.equal(true);
    expect(subjectMatches({ kind: 'ServiceAccount', name: 'robot' }, sa, '')).to.equal(false);
    expect(subjectMatches({ kind: 'Robot', name: 'alice' }, alice, '')).to.equal(false);
  });
});

describe('RBAC authorizer over the index', () => {
  const index = createRbacIndex();
  index.replace('ClusterRole', [
    role('ClusterRole', 'read-cm', [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]),
    role('ClusterRole', 'health', [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]),
  ]);
  index.replace('Role', [
    role('Role', 'secrets', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }], 'ns1'),
  ]);
  index.replace('RoleBinding', [
    binding('RoleBinding', 'rb', { kind: 'ClusterRole', name: 'read-cm' }, [{ kind: 'User', name: 'alice' }], 'ns1'),
    binding('RoleBinding', 'rb2', { kind: 'Role', name: 'secrets' }, [{ kind: 'Group', name: 'dev' }], 'ns1'),
    binding('RoleBinding', 'broken', { kind: 'Role', name: 'missing' }, [{ kind: 'User', name: 'alice' }], 'ns2'),
  ]);
  index.replace('ClusterRoleBinding', [
    binding('ClusterRoleBinding', 'crb', { kind: 'ClusterRole', name: 'health' }, [
      { kind: 'Group', name: 'system:authenticated' },
    ]),
  ]);
  const authz = createRbacAuthorizer(index);

  it("allows through a RoleBinding to a ClusterRole only in its namespace, with upstream's reason", async () => {
    const ok = await authz.authorize(attrs({}));
    expect(ok).to.deep.equal({
      decision: 'Allow',
      reason: 'RBAC: allowed by RoleBinding "rb/ns1" of ClusterRole "read-cm" to User "alice"',
    });
    expect((await authz.authorize(attrs({ namespace: 'ns3' }))).decision).to.equal('NoOpinion');
    expect((await authz.authorize(attrs({ namespace: '' }))).decision).to.equal('NoOpinion');
  });

  it('allows through a group subject and a ClusterRoleBinding', async () => {
    expect((await authz.authorize(attrs({ resource: 'secrets', name: 'x' }))).reason).to.equal(
      'RBAC: allowed by RoleBinding "rb2/ns1" of Role "secrets" to Group "dev"',
    );
    const health = await authz.authorize(
      attrs({ isResourceRequest: false, path: '/healthz', namespace: '', resource: '' }),
    );
    expect(health.reason).to.equal(
      'RBAC: allowed by ClusterRoleBinding "crb" of ClusterRole "health" to Group "system:authenticated"',
    );
  });

  it('reports an unresolvable roleRef without failing, and never denies', async () => {
    const r = await authz.authorize(attrs({ namespace: 'ns2' }));
    expect(r).to.deep.equal({ decision: 'NoOpinion', reason: `RBAC: role.${G} "missing" not found` });
    expect((await authz.authorize(attrs({ user: { name: 'bob', groups: [] } }))).decision).to.equal('NoOpinion');
  });

  it('follows index changes', async () => {
    const b = binding(
      'RoleBinding',
      'bob',
      { kind: 'ClusterRole', name: 'read-cm' },
      [{ kind: 'User', name: 'bob' }],
      'ns1',
    );
    index.put('RoleBinding', b);
    expect((await authz.authorize(attrs({ user: { name: 'bob', groups: [] } }))).decision).to.equal('Allow');
    index.remove('RoleBinding', b);
    expect((await authz.authorize(attrs({ user: { name: 'bob', groups: [] } }))).decision).to.equal('NoOpinion');
  });

  it("lists a user's rules for SelfSubjectRulesReview", async () => {
    const rules = await authz.rulesFor(alice, 'ns1');
    expect(rules.resourceRules).to.deep.include({ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] });
    expect(rules.resourceRules).to.deep.include({ verbs: ['get'], apiGroups: [''], resources: ['secrets'] });
    expect(rules.nonResourceRules).to.deep.equal([{ verbs: ['get'], nonResourceURLs: ['/healthz'] }]);
    expect((await authz.rulesFor(alice, 'ns2')).evaluationError).to.contain('not found');
  });
});

describe('RBAC coverage and escalation checks', () => {
  it('covers by verbs, groups, resources, */sub, names and URLs', () => {
    const held: PolicyRule[] = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps', '*/status'] },
      { verbs: ['get'], apiGroups: ['apps'], resources: ['replicasets'], resourceNames: ['a'] },
      { verbs: ['get'], nonResourceURLs: ['/apis/*'] },
    ];
    expect(
      uncovered(held, [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps', 'nodes/status'] }]),
    ).to.deep.equal([]);
    expect(
      uncovered(held, [{ verbs: ['get'], apiGroups: ['apps'], resources: ['replicasets'], resourceNames: ['a'] }]),
    ).to.deep.equal([]);
    expect(uncovered(held, [{ verbs: ['get'], apiGroups: ['apps'], resources: ['replicasets'] }])).to.have.length(1);
    expect(uncovered(held, [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }])).to.deep.equal([]);
    const missing = uncovered(held, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['secrets'] }]);
    expect(missing.map(compactString)).to.deep.equal([
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["secrets"], Verbs:["delete"]}',
    ]);
  });

  const index = createRbacIndex();
  index.replace('ClusterRole', [
    role('ClusterRole', 'read-cm', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
  ]);
  index.replace('RoleBinding', [
    binding('RoleBinding', 'rb', { kind: 'ClusterRole', name: 'read-cm' }, [{ kind: 'User', name: 'alice' }], 'ns1'),
  ]);
  const deps = { authorizer: createRbacAuthorizer(index), resolver: createRuleResolver(index) };
  const forbidden = async (p: Promise<void>): Promise<string> => {
    try {
      await p;
    } catch (e) {
      expect(isStatusError(e) && e.code).to.equal(403);
      return (e as Error).message;
    }
    return expect.fail('expected a 403');
  };

  it('lets a role grant only what its author holds in that namespace', async () => {
    const cm = role('Role', 'r', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }], 'ns1');
    await checkRbacWrite({ kind: 'Role', namespace: 'ns1', name: 'r', object: cm, user: alice }, deps);
    const msg = await forbidden(
      checkRbacWrite({ kind: 'Role', namespace: 'ns2', name: 'r', object: cm, user: alice }, deps),
    );
    expect(msg).to.equal(
      `roles.${G} "r" is forbidden: user "alice" (groups=["dev" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["get"]}`,
    );
    await checkRbacWrite(
      { kind: 'Role', namespace: 'ns2', name: 'r', object: cm, user: { name: 'root', groups: ['system:masters'] } },
      deps,
    );
  });

  it('lets a binding grant only a held role, and reports an unresolvable one', async () => {
    const b = binding(
      'RoleBinding',
      'b',
      { kind: 'ClusterRole', name: 'read-cm' },
      [{ kind: 'User', name: 'bob' }],
      'ns1',
    );
    await checkRbacWrite({ kind: 'RoleBinding', namespace: 'ns1', name: 'b', object: b, user: alice }, deps);
    await forbidden(checkRbacWrite({ kind: 'RoleBinding', namespace: 'ns2', name: 'b', object: b, user: alice }, deps));
    const missing = binding('RoleBinding', 'b', { kind: 'ClusterRole', name: 'nope' }, [], 'ns1');
    expect(
      await forbidden(
        checkRbacWrite({ kind: 'RoleBinding', namespace: 'ns1', name: 'b', object: missing, user: alice }, deps),
      ),
    ).to.contain('"nope" not found');
  });
});

describe('role aggregation', () => {
  it('unites the rules of matching ClusterRoles in name order, each rule once', () => {
    const sel = { clusterRoleSelectors: [{ matchLabels: { agg: 'true' } }] };
    const agg: RoleObject = {
      ...role('ClusterRole', 'agg', [{ verbs: ['hand'], apiGroups: [''], resources: ['x'] }]),
      aggregationRule: sel,
    };
    const b = role(
      'ClusterRole',
      'b',
      [
        { verbs: ['get'], apiGroups: [''], resources: ['b'] },
        { resources: ['a'], apiGroups: [''], verbs: ['get'] },
      ],
      undefined,
      { agg: 'true' },
    );
    const a = role('ClusterRole', 'a', [{ verbs: ['get'], apiGroups: [''], resources: ['a'] }], undefined, {
      agg: 'true',
    });
    const other = role('ClusterRole', 'c', [{ verbs: ['get'], apiGroups: [''], resources: ['c'] }]);
    expect(aggregatedRules(agg, [agg, b, other, a])).to.deep.equal([
      { verbs: ['get'], apiGroups: [''], resources: ['a'] },
      { verbs: ['get'], apiGroups: [''], resources: ['b'] },
    ]);
    expect(aggregatedRules(a, [a])).to.equal(undefined);
  });
});

describe('Node authorizer', () => {
  const node = createNodeAuthorizer();
  const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
  const nodeAttrs = (over: Partial<Attributes>) => attrs({ user: n1, resource: 'nodes', namespace: '', ...over });

  it('lets a node read nodes and write its own Node and status only', async () => {
    for (const verb of ['get', 'list', 'watch'])
      expect((await node.authorize(nodeAttrs({ verb, name: verb === 'get' ? 'n2' : '' }))).decision).to.equal('Allow');
    expect((await node.authorize(nodeAttrs({ verb: 'update', name: 'n1' }))).decision).to.equal('Allow');
    expect((await node.authorize(nodeAttrs({ verb: 'patch', name: 'n1', subresource: 'status' }))).decision).to.equal(
      'Allow',
    );
    const other = await node.authorize(nodeAttrs({ verb: 'update', name: 'n2' }));
    expect(other.decision).to.equal('NoOpinion');
    expect(other.reason).to.contain("node 'n1' cannot modify node 'n2'");
    expect((await node.authorize(nodeAttrs({ verb: 'patch', name: 'n2', subresource: 'status' }))).decision).to.equal(
      'NoOpinion',
    );
    expect((await node.authorize(nodeAttrs({ verb: 'delete', name: 'n1' }))).decision).to.equal('NoOpinion');
  });

  it('has no opinion on other users and other resources', async () => {
    expect((await node.authorize(nodeAttrs({ user: alice }))).decision).to.equal('NoOpinion');
    expect((await node.authorize(nodeAttrs({ user: { name: 'system:node:n1', groups: [] } }))).decision).to.equal(
      'NoOpinion',
    );
    expect((await node.authorize(nodeAttrs({ resource: 'secrets', namespace: 'ns1', name: 's' }))).decision).to.equal(
      'NoOpinion',
    );
  });
});
