// The pieces of merged discovery that need no server: kube-aware version order, the group and version orders of
// both discovery forms, and the conversions between the legacy and aggregated resource lists.
import { expect } from 'chai';
import {
  byVersionPriority,
  compareKubeAwareVersions,
  groupsByAPIServiceOrder,
  groupsByPriority,
} from '../../gateway/aggregator/version-order.js';
import { resourcesFromLegacy } from '../../gateway/aggregator/remote-fetch.js';
import { legacyResourceList } from '../../gateway/handlers/discovery-remote.js';

const gv = (group: string, version: string, groupPriority: number, versionPriority: number) => ({
  group,
  version,
  groupPriority,
  versionPriority,
});

describe('merged discovery', () => {
  it('orders versions the kube-aware way: GA, beta, alpha, then major and minor, other names last', () => {
    const shuffled = ['foo10', 'v1', 'v3beta1', 'v12alpha1', 'v10beta3', 'foo1', 'v2', 'v11alpha2', 'v10', 'v11beta2'];
    expect([...shuffled].sort((a, b) => compareKubeAwareVersions(b, a))).to.deep.equal([
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v12alpha1',
      'v11alpha2',
      'foo1',
      'foo10',
    ]);
    expect(compareKubeAwareVersions('v1', 'v1')).to.equal(0);
  });

  it('prefers the highest versionPriority, then the kube-aware order', () => {
    const versions = [gv('g', 'v1', 1, 10), gv('g', 'v2beta1', 1, 20), gv('g', 'v1beta1', 1, 10)];
    expect(byVersionPriority(versions).map((v) => v.version)).to.deep.equal(['v2beta1', 'v1', 'v1beta1']);
  });

  it('orders aggregated groups by their highest groupPriorityMinimum, then name', () => {
    const groups = groupsByPriority([
      gv('b.io', 'v1', 100, 1),
      gv('a.io', 'v1', 100, 1),
      gv('c.io', 'v1', 50, 1),
      gv('c.io', 'v2', 200, 1),
    ]);
    expect(groups.map((g) => g.group)).to.deep.equal(['c.io', 'a.io', 'b.io']);
    expect(groups[0].versions.map((v) => v.version)).to.deep.equal(['v2', 'v1']);
  });

  it('orders legacy groups as apisHandler does: by APIService priority, then APIService name', () => {
    // `v1.b.io` sorts before `v1beta1.a.io` by name, so b.io comes first here though a.io does in aggregated form.
    const gvs = [gv('a.io', 'v1beta1', 100, 1), gv('b.io', 'v1', 100, 1)];
    expect(groupsByAPIServiceOrder(gvs).map((g) => g.group)).to.deep.equal(['b.io', 'a.io']);
    expect(groupsByPriority(gvs).map((g) => g.group)).to.deep.equal(['a.io', 'b.io']);
  });

  it('converts a legacy resource list to aggregated form and back', () => {
    const legacy = [
      {
        name: 'flunders',
        singularName: 'flunder',
        namespaced: true,
        kind: 'Flunder',
        verbs: ['get'],
        shortNames: ['fl'],
      },
      { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'patch'] },
      {
        name: 'flunders/scale',
        singularName: '',
        namespaced: true,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get'],
      },
      { name: 'orphans/status', singularName: '', namespaced: true, kind: 'Orphan', verbs: ['get'] },
    ];
    const aggregated = resourcesFromLegacy(legacy, 'wardle.example.io', 'v1');
    expect(aggregated).to.deep.equal([
      {
        resource: 'flunders',
        responseKind: { group: 'wardle.example.io', version: 'v1', kind: 'Flunder' },
        scope: 'Namespaced',
        singularResource: 'flunder',
        verbs: ['get'],
        shortNames: ['fl'],
        subresources: [
          {
            subresource: 'status',
            responseKind: { group: 'wardle.example.io', version: 'v1', kind: 'Flunder' },
            verbs: ['get', 'patch'],
          },
          {
            subresource: 'scale',
            responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
            verbs: ['get'],
          },
        ],
      },
    ]);
    expect(legacyResourceList('wardle.example.io', 'v1', aggregated).resources).to.deep.equal(legacy.slice(0, 3));
  });
});
