// The group alias table, the kinds as served at their aliases, and the edge translations (gateway/request/group-alias.ts), on the real RBAC kinds.
import { expect } from 'chai';
import { parseRequestInfo } from '../../gateway/request/request-info.js';
import {
  aliasedKinds,
  canonicalBody,
  canonicalGroupResolver,
  errorInRequestedGroup,
  groupAliasTable,
  inRequestedGroup,
  isAliasedKind,
  resolveGroupAlias,
} from '../../gateway/request/group-alias.js';
import { role } from '../../api/rbac/v1/role.js';
import { roleBinding } from '../../api/rbac/v1/role-binding.js';
import { configMap } from '../../api/core/v1/config-map.js';
import { errors } from '../../api/meta/errors.js';
import type { KindDefinition } from '../../api/scheme.js';

const RBAC = 'rbac.authorization.platform.io';
const K8S = 'rbac.authorization.k8s.io';
const kinds = [role, roleBinding, configMap];
const table = groupAliasTable(kinds);
const info = (method: string, path: string) => {
  const i = parseRequestInfo(method, path, new URLSearchParams());
  resolveGroupAlias(i, table);
  return i;
};

describe('group aliases', () => {
  it('rewrites resource requests at a served alias version to the canonical group', () => {
    const i = info('GET', `/apis/${K8S}/v1/namespaces/a/roles/r`);
    expect(i).to.include({
      apiGroup: RBAC,
      requestedGroup: K8S,
      resource: 'roles',
      namespace: 'a',
      name: 'r',
      verb: 'get',
    });
    expect(info('GET', `/apis/${K8S}/v1/rolebindings`)).to.include({ apiGroup: RBAC, verb: 'list' });
  });

  it('leaves other versions, discovery paths and canonical paths alone', () => {
    expect(info('GET', `/apis/${K8S}/v1beta1/roles`))
      .to.include({ apiGroup: K8S })
      .and.not.have.property('requestedGroup');
    expect(info('GET', `/apis/${K8S}/v1`))
      .to.include({ isResourceRequest: false })
      .and.not.have.property('requestedGroup');
    expect(info('GET', `/apis/${RBAC}/v1/roles`))
      .to.include({ apiGroup: RBAC })
      .and.not.have.property('requestedGroup');
    expect(info('GET', '/api/v1/configmaps')).to.not.have.property('requestedGroup');
  });

  it('refuses one alias naming two canonical groups', () => {
    const other: KindDefinition = { ...configMap, group: 'other.platform.io', groupAliases: [K8S] };
    expect(() => groupAliasTable([role, other])).to.throw(/names both/);
  });

  it('resolves review groups to the canonical one', () => {
    const canonical = canonicalGroupResolver(kinds);
    expect(canonical(K8S)).to.equal(RBAC);
    expect(canonical(RBAC)).to.equal(RBAC);
    expect(canonical('')).to.equal('');
  });

  it('answers frozen stored objects and lists in the asked group without changing them', () => {
    const i = info('GET', `/apis/${K8S}/v1/namespaces/a/roles`);
    const item = Object.freeze({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: Object.freeze({ name: 'r' }) });
    const list = Object.freeze({
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleList',
      metadata: {},
      items: Object.freeze([item]),
    });
    const out = inRequestedGroup(i, role, list) as any;
    expect(out.apiVersion).to.equal(`${K8S}/v1`);
    expect(out.items[0]).to.deep.equal({ apiVersion: `${K8S}/v1`, kind: 'Role', metadata: { name: 'r' } });
    expect(item.apiVersion).to.equal(`${RBAC}/v1`);
    const status = inRequestedGroup(i, role, {
      kind: 'Status',
      apiVersion: 'v1',
      details: { group: RBAC, kind: 'roles', name: 'r' },
    }) as any;
    expect(status.details.group).to.equal(K8S);
    // At our own path nothing changes.
    expect(inRequestedGroup(info('GET', `/apis/${RBAC}/v1/roles`), role, list)).to.equal(list);
  });

  it("answers the groups named by a binding's references in the asked group, objects and list items alike", () => {
    const binding = Object.freeze({
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: { name: 'b', namespace: 'a' },
      roleRef: Object.freeze({ apiGroup: RBAC, kind: 'Role', name: 'r' }),
      subjects: Object.freeze([
        { kind: 'User', apiGroup: RBAC, name: 'u' },
        { kind: 'ServiceAccount', name: 's', namespace: 'a' },
      ]),
    });
    const viaAlias = info('GET', `/apis/${K8S}/v1/namespaces/a/rolebindings/b`);
    const out = inRequestedGroup(viaAlias, roleBinding, binding) as any;
    expect(out.roleRef).to.deep.equal({ apiGroup: K8S, kind: 'Role', name: 'r' });
    expect(out.subjects).to.deep.equal([
      { kind: 'User', apiGroup: K8S, name: 'u' },
      { kind: 'ServiceAccount', name: 's', namespace: 'a' },
    ]);
    expect(binding.roleRef.apiGroup).to.equal(RBAC);
    const list = { apiVersion: `${RBAC}/v1`, kind: 'RoleBindingList', metadata: {}, items: [binding] };
    expect((inRequestedGroup(viaAlias, roleBinding, list) as any).items[0].roleRef.apiGroup).to.equal(K8S);
    // Through our group, ours.
    expect(
      inRequestedGroup(info('GET', `/apis/${RBAC}/v1/namespaces/a/rolebindings/b`), roleBinding, binding),
    ).to.equal(binding);
  });

  it('serves each kind at each alias as the same kind in the alias group', () => {
    const served = aliasedKinds(kinds);
    expect(served.map((d) => [d.group, d.kind, d.aliasOf])).to.deep.equal([
      [K8S, 'Role', RBAC],
      [K8S, 'RoleBinding', RBAC],
    ]);
    expect(served.every(isAliasedKind)).to.equal(true);
    expect(kinds.some(isAliasedKind)).to.equal(false);
  });

  it('reads bodies in the alias apiVersion as ours, only on the alias path', () => {
    const body = { apiVersion: `${K8S}/v1`, kind: 'Role' };
    expect(canonicalBody(info('POST', `/apis/${K8S}/v1/namespaces/a/roles`), role, body)).to.deep.equal({
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
    });
    expect(canonicalBody(info('POST', `/apis/${RBAC}/v1/namespaces/a/roles`), role, body)).to.equal(body);
    // A binding's references too: server-side apply compares them with the stored object's.
    const binding = {
      apiVersion: `${K8S}/v1`,
      kind: 'RoleBinding',
      roleRef: { apiGroup: K8S, kind: 'Role', name: 'r' },
      subjects: [{ kind: 'User', apiGroup: K8S, name: 'u' }],
    };
    expect(
      canonicalBody(info('PATCH', `/apis/${K8S}/v1/namespaces/a/rolebindings/b`), roleBinding, binding),
    ).to.deep.equal({
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      roleRef: { apiGroup: RBAC, kind: 'Role', name: 'r' },
      subjects: [{ kind: 'User', apiGroup: RBAC, name: 'u' }],
    });
  });

  it('words errors about the kind with the asked group', () => {
    const i = info('GET', `/apis/${K8S}/v1/namespaces/a/roles/r`);
    const e = errorInRequestedGroup(i, errors.notFound({ group: RBAC, resource: 'roles' }, 'r')) as any;
    expect(e.message).to.equal(`roles.${K8S} "r" not found`);
    expect(e.toStatus().details).to.deep.equal({ kind: 'roles', group: K8S, name: 'r' });
    const unrelated = errors.badRequest('x');
    expect(errorInRequestedGroup(i, unrelated)).to.equal(unrelated);
  });

  it('normalizes roleRef and subject groups of bindings to ours', () => {
    const b: any = {
      roleRef: { apiGroup: K8S, kind: 'Role', name: 'r' },
      subjects: [
        { kind: 'User', apiGroup: K8S, name: 'u' },
        { kind: 'Group', name: 'g' },
        { kind: 'ServiceAccount', name: 's', namespace: 'a' },
      ],
    };
    roleBinding.defaults!(b);
    expect(b.roleRef.apiGroup).to.equal(RBAC);
    expect(b.subjects.map((s: any) => s.apiGroup)).to.deep.equal([RBAC, RBAC, undefined]);
    // A binding stored with the k8s.io spelling is not "changed" by the same roleRef in ours.
    expect(roleBinding.validateUpdate!(b, { ...b, roleRef: { apiGroup: K8S, kind: 'Role', name: 'r' } })).to.deep.equal(
      [],
    );
    expect(
      roleBinding.validateUpdate!(b, { ...b, roleRef: { apiGroup: RBAC, kind: 'Role', name: 'other' } }),
    ).to.have.length(1);
  });
});
