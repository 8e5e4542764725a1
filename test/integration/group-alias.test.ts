// Group aliases of stored kinds over real HTTPS: rbac.authorization.k8s.io/v1 is another name for
// rbac.authorization.platform.io/v1. One set of objects; answers in the group asked (objects and the groups their
// references name, lists, Tables' embedded objects, JSON and protobuf watch events, protobuf envelopes, Status details
// and messages); bodies in either apiVersion on the alias path; roleRef and subject groups stored in our spelling from
// both paths; authorization and escalation checks see the canonical group; the alias listed in discovery after ours.
import { expect } from 'chai';
import { createNamespace, expectFailure, MERGE } from '../helpers/api.js';
import type { TestGatehouse } from '../helpers/gatehouse.js';
import { RBAC, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';
import { openWatch } from '../helpers/watch-client.js';
import { openProtobufWatch, PROTOBUF_HEADERS } from '../helpers/protobuf.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';

const K8S = 'rbac.authorization.k8s.io';
const ALIAS_V1 = `/apis/${K8S}/v1`;
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

describe('group aliases (rbac.authorization.k8s.io)', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startRbacGatehouse();
    ns = await createNamespace(gh, 'alias');
  });
  after(async () => {
    await gh?.close();
  });

  const ok = async (method: string, path: string, body?: unknown, code = 200, headers?: Record<string, string>) => {
    const res = await gh.request(method, path, { body, headers });
    expect(res.status, res.body).to.equal(code);
    return res.json();
  };

  it('creates through the alias, answers in its group and stores one object seen through both names', async () => {
    const made = await ok(
      'POST',
      `${ALIAS_V1}/namespaces/${ns}/roles`,
      {
        ...roleBody('reader', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]),
        apiVersion: `${K8S}/v1`,
      },
      201,
    );
    expect(made).to.include({ apiVersion: `${K8S}/v1`, kind: 'Role' });
    const ours = await ok('GET', `${RBAC_V1}/namespaces/${ns}/roles/reader`);
    expect(ours.apiVersion).to.equal(`${RBAC}/v1`);
    expect(ours.metadata.uid).to.equal(made.metadata.uid);
    const theirs = await ok('GET', `${ALIAS_V1}/namespaces/${ns}/roles/reader`);
    expect(theirs).to.include({ apiVersion: `${K8S}/v1`, kind: 'Role' });
    expect(theirs.metadata.resourceVersion).to.equal(ours.metadata.resourceVersion);
  });

  it('accepts bodies in our apiVersion on the alias path, but not the alias apiVersion on ours', async () => {
    const made = await ok(
      'POST',
      `${ALIAS_V1}/clusterroles`,
      roleBody(`alias-cr-${ns}`, [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }], 'ClusterRole'),
      201,
    );
    expect(made.apiVersion).to.equal(`${K8S}/v1`);
    const refused = expectFailure(
      await gh.request('POST', `${RBAC_V1}/clusterroles`, {
        body: {
          ...roleBody(`alias-cr2-${ns}`, [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }], 'ClusterRole'),
          apiVersion: `${K8S}/v1`,
        },
      }),
      400,
      'BadRequest',
    );
    expect(refused.message).to.contain(
      `the API version in the data (${K8S}/v1) does not match the expected API version (${RBAC}/v1)`,
    );
    await ok('DELETE', `${ALIAS_V1}/clusterroles/alias-cr-${ns}`);
  });

  it('stores roleRef and subject groups in our spelling whichever path and spelling was used', async () => {
    const binding = (name: string, apiVersion: string) => ({
      apiVersion,
      kind: 'RoleBinding',
      metadata: { name },
      roleRef: { apiGroup: K8S, kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', apiGroup: K8S, name: 'bob' },
        { kind: 'Group', name: 'devs' },
        { kind: 'ServiceAccount', name: 'robot', namespace: ns },
      ],
    });
    const viaAlias = await ok(
      'POST',
      `${ALIAS_V1}/namespaces/${ns}/rolebindings`,
      binding('via-alias', `${K8S}/v1`),
      201,
    );
    const viaOurs = await ok(
      'POST',
      `${RBAC_V1}/namespaces/${ns}/rolebindings`,
      binding('via-ours', `${RBAC}/v1`),
      201,
    );
    // Stored once, in our spelling; read through each group, in that group's.
    const inGroup = (group: string) => ({
      roleRef: { apiGroup: group, kind: 'Role', name: 'reader' },
      subjects: [
        { kind: 'User', apiGroup: group, name: 'bob' },
        { kind: 'Group', apiGroup: group, name: 'devs' },
        { kind: 'ServiceAccount', name: 'robot', namespace: ns },
      ],
    });
    for (const b of [viaOurs, await ok('GET', `${RBAC_V1}/namespaces/${ns}/rolebindings/via-alias`)])
      expect(b).to.deep.include(inGroup(RBAC));
    for (const b of [viaAlias, await ok('GET', `${ALIAS_V1}/namespaces/${ns}/rolebindings/via-ours`)])
      expect(b).to.deep.include(inGroup(K8S));
    const listed = await ok('GET', `${ALIAS_V1}/namespaces/${ns}/rolebindings`);
    for (const b of listed.items) expect(b.roleRef.apiGroup, b.metadata.name).to.equal(K8S);
    // roleRef is immutable; the same role in the other spelling is no change.
    const put = await ok('PUT', `${ALIAS_V1}/namespaces/${ns}/rolebindings/via-alias`, {
      ...binding('via-alias', `${K8S}/v1`),
      metadata: viaAlias.metadata,
    });
    expect(put.apiVersion).to.equal(`${K8S}/v1`);
    const patched = await ok(
      'PATCH',
      `${ALIAS_V1}/namespaces/${ns}/rolebindings/via-alias`,
      { metadata: { labels: { a: 'b' } } },
      200,
      MERGE,
    );
    expect(patched).to.include({ apiVersion: `${K8S}/v1` });
    expect(patched.metadata.labels).to.deep.equal({ a: 'b' });
    // bob now reads configmaps in the namespace: the authorizer reads the stored binding.
    expect(
      (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/x`, { token: tokenOf('bob') })).status,
    ).to.equal(404);
  });

  it('applies server-side through the alias with a configuration in its apiVersion', async () => {
    const config = {
      apiVersion: `${K8S}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `applied-${ns}` },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }],
    };
    const made = await ok('PATCH', `${ALIAS_V1}/clusterroles/applied-${ns}?fieldManager=tester`, config, 201, {
      'content-type': 'application/apply-patch+yaml',
    });
    expect(made).to.include({ apiVersion: `${K8S}/v1`, kind: 'ClusterRole' });
    const again = await ok(
      'PATCH',
      `${ALIAS_V1}/clusterroles/applied-${ns}?fieldManager=tester`,
      { ...config, rules: [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }] },
      200,
      { 'content-type': 'application/apply-patch+yaml' },
    );
    expect(again.rules).to.deep.equal([{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }]);
    expect((await ok('GET', `${RBAC_V1}/clusterroles/applied-${ns}`)).rules[0].verbs).to.deep.equal(['list']);
  });

  it('lists across namespaces, as Tables with embedded objects, in the alias group', async () => {
    const list = await ok('GET', `${ALIAS_V1}/rolebindings`);
    expect(list).to.include({ kind: 'RoleBindingList', apiVersion: `${K8S}/v1` });
    const mine = list.items.filter((b: any) => b.metadata.namespace === ns);
    expect(mine.map((b: any) => b.metadata.name).sort()).to.deep.equal(['via-alias', 'via-ours']);
    for (const b of list.items) expect(b.apiVersion).to.equal(`${K8S}/v1`);
    const table = await ok('GET', `${ALIAS_V1}/namespaces/${ns}/rolebindings?includeObject=Object`, undefined, 200, {
      accept: TABLE,
    });
    expect(table.kind).to.equal('Table');
    expect(table.rows.map((r: any) => r.object.apiVersion)).to.deep.equal([`${K8S}/v1`, `${K8S}/v1`]);
    expect(table.rows[0].cells.slice(0, 2)).to.deep.equal(['via-alias', 'Role/reader']);
  });

  it('sends JSON and protobuf watch events in the alias group', async () => {
    const list = await ok('GET', `${ALIAS_V1}/namespaces/${ns}/roles`);
    const json = await openWatch(
      gh.url,
      `${ALIAS_V1}/namespaces/${ns}/roles?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      { ca: gh.ca, token: gh.adminToken },
    );
    const proto = await openProtobufWatch(
      gh.url,
      `${ALIAS_V1}/roles?watch=true&resourceVersion=${list.metadata.resourceVersion}`,
      { ca: gh.ca, token: gh.adminToken },
    );
    try {
      await ok(
        'POST',
        `${RBAC_V1}/namespaces/${ns}/roles`,
        roleBody('watched', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]),
        201,
      );
      const event = await json.next();
      expect(event.type).to.equal('ADDED');
      expect(event.object).to.include({ apiVersion: `${K8S}/v1`, kind: 'Role' });
      const frame = await proto.next();
      expect(frame.type).to.equal('ADDED');
      expect(frame.object).to.include({ apiVersion: `${K8S}/v1`, kind: 'Role' });
      expect(frame.object.metadata.name).to.equal('watched');
    } finally {
      json.close();
      proto.close();
    }
  });

  it('reads protobuf bodies kubectl create sends and answers protobuf in the alias group', async () => {
    const body = encodeProtobufObject({
      apiVersion: `${K8S}/v1`,
      kind: 'ClusterRoleBinding',
      metadata: { name: `pb-${ns}` },
      roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', apiGroup: K8S, name: 'carol' }],
    });
    const res = await gh.request('POST', `${ALIAS_V1}/clusterrolebindings`, { body, headers: PROTOBUF_HEADERS });
    expect(res.status, res.body).to.equal(201);
    const answered = decodeProtobufObject(res.raw) as any;
    expect(answered).to.include({ apiVersion: `${K8S}/v1`, kind: 'ClusterRoleBinding' });
    expect(answered.roleRef.apiGroup).to.equal(K8S);
    const stored = await ok('GET', `${RBAC_V1}/clusterrolebindings/pb-${ns}`);
    expect(stored.subjects).to.deep.equal([{ kind: 'User', apiGroup: RBAC, name: 'carol' }]);
    const deleted = await ok('DELETE', `${ALIAS_V1}/clusterrolebindings/pb-${ns}`);
    expect(deleted.details).to.deep.include({ group: K8S, kind: 'clusterrolebindings', name: `pb-${ns}` });
  });

  it('words failures with the group asked in', async () => {
    const missing = expectFailure(await gh.request('GET', `${ALIAS_V1}/namespaces/${ns}/roles/nope`), 404, 'NotFound');
    expect(missing.message).to.equal(`roles.${K8S} "nope" not found`);
    expect(missing.details).to.deep.equal({ kind: 'roles', group: K8S, name: 'nope' });
    const dup = expectFailure(
      await gh.request('POST', `${ALIAS_V1}/namespaces/${ns}/roles`, { body: roleBody('reader', []) }),
      409,
      'AlreadyExists',
    );
    expect(dup.message).to.equal(`roles.${K8S} "reader" already exists`);
    const invalid = expectFailure(
      await gh.request('POST', `${ALIAS_V1}/namespaces/${ns}/roles`, { body: roleBody('bad', [{ verbs: [] }]) }),
      422,
      'Invalid',
    );
    expect(invalid.message).to.match(new RegExp(`^Role\\.${K8S.replace(/\./g, '\\.')} "bad" is invalid: `));
  });

  it('authorizes as the canonical group: rules on it apply, and escalation checks too', async () => {
    await ok(
      'POST',
      `${RBAC_V1}/namespaces/${ns}/roles`,
      roleBody('rbac-writer', [
        { verbs: ['get', 'list', 'create'], apiGroups: [RBAC], resources: ['roles', 'rolebindings'] },
      ]),
      201,
    );
    await ok(
      'POST',
      `${RBAC_V1}/namespaces/${ns}/rolebindings`,
      {
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'dave-writer' },
        roleRef: { apiGroup: RBAC, kind: 'Role', name: 'rbac-writer' },
        subjects: [{ kind: 'User', name: 'dave' }],
      },
      201,
    );
    const dave = { token: tokenOf('dave') };
    const res = await gh.request('GET', `${ALIAS_V1}/namespaces/${ns}/roles/reader`, dave);
    expect(res.status, res.body).to.equal(200);
    expect(res.json().apiVersion).to.equal(`${K8S}/v1`);
    // Not granted on clusterroles in either spelling; the refusal names the resource as asked, the group checked as ours.
    const refused = expectFailure(await gh.request('GET', `${ALIAS_V1}/clusterroles/view`, dave), 403, 'Forbidden');
    expect(refused.message).to.equal(
      `clusterroles.${K8S} "view" is forbidden: User "dave" cannot get resource "clusterroles" in API group "${RBAC}" at the cluster scope`,
    );
    expect(refused.details).to.deep.equal({ kind: 'clusterroles', group: K8S, name: 'view' });
    // Granting what dave does not hold is an escalation through the alias as through our path.
    const escalate = await gh.request('POST', `${ALIAS_V1}/namespaces/${ns}/roles`, {
      ...dave,
      body: roleBody('more', [{ verbs: ['delete'], apiGroups: [''], resources: ['secrets'] }]),
    });
    expect(expectFailure(escalate, 403, 'Forbidden').message).to.match(
      new RegExp(`^roles\\.${K8S.replace(/\./g, '\\.')} "more" is forbidden: `),
    );
    const bind = await gh.request('POST', `${ALIAS_V1}/namespaces/${ns}/rolebindings`, {
      ...dave,
      body: {
        apiVersion: `${K8S}/v1`,
        kind: 'RoleBinding',
        metadata: { name: 'dave-admin' },
        roleRef: { apiGroup: K8S, kind: 'ClusterRole', name: 'admin' },
        subjects: [{ kind: 'User', apiGroup: K8S, name: 'dave' }],
      },
    });
    expectFailure(bind, 403, 'Forbidden');
    // An access review about the alias group answers as a request at the alias path would.
    const review = (group: string, resource: string) =>
      gh.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        ...dave,
        body: {
          kind: 'SelfSubjectAccessReview',
          apiVersion: 'authorization.k8s.io/v1',
          spec: { resourceAttributes: { group, resource, verb: 'create', namespace: ns } },
        },
      });
    for (const group of [K8S, RBAC]) {
      const yes = await review(group, 'roles');
      expect(yes.status, yes.body).to.equal(201);
      expect(yes.json().status.allowed, group).to.equal(true);
      expect(yes.json().spec.resourceAttributes.group).to.equal(group);
      expect((await review(group, 'clusterroles')).json().status.allowed, group).to.equal(false);
    }
  });

  it("is listed in discovery after our group, with the alias as the resources' group", async () => {
    const names = (await ok('GET', '/apis')).groups.map((g: any) => g.name);
    expect(names.indexOf(K8S)).to.be.greaterThan(names.indexOf(RBAC)).and.greaterThan(-1);
    const aggregated = await ok('GET', '/apis', undefined, 200, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const aggregatedNames = aggregated.items.map((g: any) => g.metadata.name);
    expect(aggregatedNames.indexOf(K8S)).to.be.greaterThan(aggregatedNames.indexOf(RBAC)).and.greaterThan(-1);
    const resources = aggregated.items.find((g: any) => g.metadata.name === K8S).versions[0].resources;
    expect(resources.map((r: any) => r.responseKind)).to.deep.include({
      group: K8S,
      version: 'v1',
      kind: 'RoleBinding',
    });
    expect(await ok('GET', `/apis/${K8S}`)).to.deep.include({
      kind: 'APIGroup',
      name: K8S,
      preferredVersion: { groupVersion: `${K8S}/v1`, version: 'v1' },
    });
    const list = await ok('GET', `/apis/${K8S}/v1`);
    expect(list.groupVersion).to.equal(`${K8S}/v1`);
    expect(list.resources.map((r: any) => r.name)).to.have.members([
      'roles',
      'clusterroles',
      'rolebindings',
      'clusterrolebindings',
    ]);
    // One storage: the alias lists the hash of the kind it names.
    const ours = await ok('GET', `${RBAC_V1}`);
    expect(list.resources.map((r: any) => r.storageVersionHash)).to.deep.equal(
      ours.resources.map((r: any) => r.storageVersionHash),
    );
  });
});
