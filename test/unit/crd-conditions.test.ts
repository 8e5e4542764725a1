// What the CustomResourceDefinition status controller decides, as a pure function: accepted names against the
// other definitions of the group and the kinds served here, NamesAccepted with upstream's conflict reasons,
// Established once the names are accepted (and kept), and the API approval condition of protected groups.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { builtinKinds } from '../../api/register.js';
import { customResourceDefinition as def } from '../../api/apiextensions/v1/custom-resource-definition.js';
import { acceptNames, builtinNames, desiredStatus, takenNames } from '../../gateway/apiextensions/crd-conditions.js';
import { crd } from '../helpers/crds.js';

const NOW = '2026-11-27T08:00:00Z';
const builtins = builtinNames(builtinKinds);

function created(body: Record<string, unknown>): KObject {
  const o = structuredClone(body) as unknown as KObject;
  def.defaults!(o);
  def.prepareForCreate!(o);
  return o;
}

/** A definition after the controller wrote its status. */
function settled(o: KObject, others: KObject[] = []): KObject {
  const status = desiredStatus(o, takenNames(o, others, builtins), NOW);
  return status ? { ...o, status } : o;
}

const condition = (o: KObject, type: string) => ((o.status as any).conditions as any[]).find((c) => c.type === type);

describe('CustomResourceDefinition status decisions', () => {
  it('accepts fresh names: NamesAccepted and Established True, acceptedNames as requested', () => {
    const o = settled(
      created(
        crd('foos', 'example.com', {
          spec: { names: { plural: 'foos', kind: 'Foo', shortNames: ['fo'], categories: ['all'] } },
        }),
      ),
    );
    expect((o.status as any).acceptedNames).to.deep.equal({
      plural: 'foos',
      singular: 'foo',
      shortNames: ['fo'],
      kind: 'Foo',
      listKind: 'FooList',
      categories: ['all'],
    });
    expect(condition(o, 'NamesAccepted')).to.deep.equal({
      type: 'NamesAccepted',
      status: 'True',
      lastTransitionTime: NOW,
      reason: 'NoConflicts',
      message: 'no conflicts found',
    });
    expect(condition(o, 'Established')).to.include({ status: 'True', reason: 'InitialNamesAccepted' });
    expect(condition(o, 'KubernetesAPIApprovalPolicyConformant')).to.equal(undefined);
    expect(desiredStatus(o, takenNames(o, [], builtins), NOW), 'nothing left to write').to.equal(undefined);
  });

  const conflicts: [string, Record<string, unknown>, Record<string, unknown>, string, string][] = [
    [
      'the plural, against a short name',
      { plural: 'foos', kind: 'Foo', shortNames: ['others'] },
      { plural: 'others', kind: 'Other' },
      'PluralConflict',
      '"others" is already in use',
    ],
    [
      'the kind, against the list kind too (the last conflict names the reason, as upstream)',
      { plural: 'foos', kind: 'Foo' },
      { plural: 'others', kind: 'Foo' },
      'ListKindConflict',
      '"FooList" is already in use',
    ],
    [
      'a short name',
      { plural: 'foos', kind: 'Foo', shortNames: ['f'] },
      { plural: 'others', kind: 'Other', shortNames: ['f'] },
      'ShortNamesConflict',
      '"f" is already in use',
    ],
    [
      'the singular, against the plural',
      { plural: 'foos', kind: 'Foo' },
      { plural: 'bars', singular: 'foos', kind: 'Bar' },
      'SingularConflict',
      '"foos" is already in use',
    ],
  ];
  for (const [what, first, second, reason, message] of conflicts)
    it(`refuses ${what} another definition of the group accepted first`, () => {
      const a = settled(created(crd('foos', 'example.com', { spec: { names: first } })));
      const plural = second.plural as string;
      const b = settled(created(crd(plural, 'example.com', { spec: { names: second } })), [a]);
      expect(condition(b, 'NamesAccepted')).to.include({ status: 'False', reason, message });
      expect(condition(b, 'Established')).to.include({ status: 'False', reason: 'NotAccepted' });
      // The same names in another group are free.
      const elsewhere = settled(created(crd(plural, 'other.example.com', { spec: { names: second } })), [a]);
      expect(condition(elsewhere, 'NamesAccepted')).to.include({ status: 'True' });
    });

  it('refuses the names of a kind served here in its group, under either group name', () => {
    const annotations = { 'api-approved.kubernetes.io': 'https://example.com/pr/1' };
    const cm = settled(created(crd('rolebindings', 'rbac.authorization.k8s.io', { kind: 'Whatever', annotations })));
    expect(condition(cm, 'NamesAccepted')).to.include({
      status: 'False',
      reason: 'PluralConflict',
      message: '"rolebindings" is already in use',
    });
    const kind = settled(created(crd('myroles', 'rbac.authorization.platform.io', { kind: 'Role', annotations })));
    expect(condition(kind, 'NamesAccepted')).to.include({ status: 'False', reason: 'ListKindConflict' });
    expect((kind.status as any).acceptedNames).to.deep.include({ plural: 'myroles', kind: '' });
  });

  it('keeps Established once set, and an accepted name against a later claimant', () => {
    const a = settled(created(crd('foos', 'example.com')));
    const renamed = structuredClone(a);
    (renamed.spec as any).names.kind = 'Bar';
    (renamed.spec as any).names.listKind = 'FooList';
    const barOwner = settled(created(crd('bars', 'example.com')));
    const after = settled(renamed, [barOwner]);
    expect(condition(after, 'NamesAccepted')).to.include({ status: 'False', reason: 'KindConflict' });
    expect(condition(after, 'Established')).to.include({ status: 'True', lastTransitionTime: NOW });
    expect((after.status as any).acceptedNames.kind).to.equal('Foo');
    expect(acceptNames(a, takenNames(a, [barOwner], builtins)).condition.status).to.equal('True');
  });

  it('settles a name two definitions came to hold at once (two replicas) on the one that precedes', () => {
    const names = (plural: string, kind: string) => ({ spec: { names: { plural, kind, shortNames: ['dup'] } } });
    const first = created(crd('ones', 'example.com', names('ones', 'One')));
    const second = created(crd('twos', 'example.com', names('twos', 'Two')));
    first.metadata.creationTimestamp = second.metadata.creationTimestamp = '2026-11-27T07:00:00Z';
    // Each replica saw only its own definition and accepted the short name for it.
    const one = settled(first);
    const two = settled(second);
    expect((two.status as any).acceptedNames.shortNames).to.deep.equal(['dup']);
    // Seen together, the later (by name, at one creation time) lets it go; the other keeps it.
    const twoAfter = settled(two, [one]);
    expect(condition(twoAfter, 'NamesAccepted')).to.include({ status: 'False', reason: 'ShortNamesConflict' });
    expect((twoAfter.status as any).acceptedNames.shortNames).to.equal(undefined);
    expect(desiredStatus(one, takenNames(one, [two], builtins), NOW)).to.equal(undefined);
  });

  it('reports the API approval of a protected group', () => {
    const approved = settled(
      created(
        crd('widgets', 'widgets.k8s.io', {
          annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' },
        }),
      ),
    );
    expect(condition(approved, 'KubernetesAPIApprovalPolicyConformant')).to.include({
      status: 'True',
      reason: 'ApprovedAnnotation',
      message: 'approved in https://github.com/kubernetes/kubernetes/pull/1',
    });
    const unapproved = settled(
      created(
        crd('widgets', 'widgets.platform.io', { annotations: { 'api-approved.platform.io': 'unapproved, testing' } }),
      ),
    );
    expect(condition(unapproved, 'KubernetesAPIApprovalPolicyConformant')).to.include({
      status: 'False',
      reason: 'UnapprovedAnnotation',
      message: 'not approved: "unapproved, testing"',
    });
  });
});
