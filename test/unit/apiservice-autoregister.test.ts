import { expect } from 'chai';
import { builtinKinds } from '../../api/register.js';
import { servedGroupVersions } from '../../gateway/handlers/discovery.js';
import { builtinVirtualResources } from '../../gateway/handlers/virtual-resources.js';
import { priorityOf } from '../../gateway/aggregator/priorities.js';
import { desiredAPIServices, isAutomanaged } from '../../gateway/controllers/apiservice-autoregister.js';
import { bootstrapClusterRoles } from '../../policies/rbac/bootstrap-policy.js';
import type { Authorizer } from '../../policies/authorizer.js';

const noOpinion: Authorizer = { name: 'none', authorize: async () => ({ decision: 'NoOpinion', reason: '' }) };

describe('APIService autoregistration', () => {
  it('knows a priority for every group-version the server serves, aliases and review groups included', () => {
    const served = servedGroupVersions(builtinKinds, builtinVirtualResources({ authorizer: noOpinion }));
    expect(served.length).to.be.greaterThan(10);
    expect(served.filter((gv) => priorityOf(gv) === undefined)).to.deep.equal([]);
    const logs: string[] = [];
    expect(desiredAPIServices(served, (l) => logs.push(l)).size).to.equal(served.length);
    expect(logs).to.deep.equal([]);
  });

  it("gives upstream groups upstream's numbers and a platform.io group its alias's, one higher", () => {
    expect(priorityOf({ group: '', version: 'v1' })).to.deep.equal({ group: 18000, version: 1 });
    expect(priorityOf({ group: 'batch', version: 'v1' })).to.deep.equal({ group: 17400, version: 15 });
    expect(priorityOf({ group: 'events.k8s.io', version: 'v1' })).to.deep.equal({ group: 17750, version: 15 });
    expect(priorityOf({ group: 'events.platform.io', version: 'v1' })).to.deep.equal({ group: 17751, version: 15 });
    expect(priorityOf({ group: 'example.io', version: 'v1' })).to.equal(undefined);
    expect(priorityOf({ group: 'widgets.platform.io', version: 'v1' })).to.equal(undefined);
  });

  it('skips, with a warning, a group-version without a known priority', () => {
    const logs: string[] = [];
    const desired = desiredAPIServices(
      [
        { group: 'apps', version: 'v1' },
        { group: 'example.io', version: 'v1' },
      ],
      (l) => logs.push(l),
    );
    expect([...desired.keys()]).to.deep.equal(['v1.apps']);
    expect(logs).to.deep.equal(['warning: autoregistration: no priority known for example.io/v1, no APIService']);
    const apps = desired.get('v1.apps')!;
    expect(apps.metadata.labels).to.deep.equal({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(isAutomanaged(apps)).to.equal(true);
    expect(
      isAutomanaged({ metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'onstart' } } }),
    ).to.equal(true);
    expect(isAutomanaged({ metadata: { labels: { 'kube-aggregator.kubernetes.io/automanaged': 'false' } } })).to.equal(
      false,
    );
  });

  it('lets no default role but cluster-admin touch apiservices, as upstream', () => {
    const granting = bootstrapClusterRoles()
      .filter((role) =>
        (role.rules ?? []).some(
          (r) =>
            (r.resources ?? []).some((res) => res === '*' || res.startsWith('apiservices')) &&
            (r.apiGroups ?? []).some((g) => g === '*' || g.startsWith('apiregistration.')),
        ),
      )
      .map((role) => role.metadata.name);
    expect(granting).to.deep.equal(['cluster-admin']);
  });
});
