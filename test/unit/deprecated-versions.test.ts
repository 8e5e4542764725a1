// Which requests the gateway announces as deprecated: the kind's own paths under every group name, from the
// deprecating release on, with the replacement in the alias only where the alias serves it.
import { expect } from 'chai';
import type { Context } from 'koa';
import { configMap } from '../../api/core/v1/config-map.js';
import type { KindDefinition } from '../../api/scheme.js';
import { createDeprecationNotices } from '../../gateway/handlers/deprecated-versions.js';
import type { DeprecatedApiLabels } from '../../gateway/metrics/deprecation-metrics.js';
import { setRequestAudit } from '../../gateway/audit/request-audit.js';
import { parseRequestInfo } from '../../gateway/request/request-info.js';
import { groupAliasTable, resolveGroupAlias } from '../../gateway/request/group-alias.js';

const base: KindDefinition = {
  ...configMap,
  group: 'widgets.platform.io',
  kind: 'Widget',
  resource: 'widgets',
  singular: 'widget',
  groupAliases: ['widgets.k8s.io'],
  statusSubresource: true,
};
const v2: KindDefinition = { ...base, version: 'v2', groupAliases: undefined };
const v1beta1: KindDefinition = {
  ...base,
  version: 'v1beta1',
  deprecation: { deprecatedIn: '1.31', replacement: { group: 'widgets.platform.io', version: 'v2', kind: 'Widget' } },
};
const notYet: KindDefinition = { ...base, version: 'v1alpha1', deprecation: { deprecatedIn: '1.33' } };
const kinds = [v2, v1beta1, notYet];

/** What announcing one GET of `path` did: its Warning header, audit annotations and metric labels. */
function announce(path: string, version = { major: '1', minor: '32' }) {
  const recorded: DeprecatedApiLabels[] = [];
  const notices = createDeprecationNotices(kinds, version, (labels) => recorded.push(labels));
  const headers: Record<string, unknown> = {};
  const annotations: Record<string, string> = {};
  const ctx = { state: {}, set: (name: string, value: unknown) => (headers[name] = value) } as unknown as Context;
  setRequestAudit(ctx, {
    annotate: (key, value) => (annotations[key] = value),
    requestObject: () => {},
    requestPatch: () => {},
    responseObject: () => {},
    responseStarted: () => {},
  });
  const info = parseRequestInfo('GET', path, new URLSearchParams());
  resolveGroupAlias(info, groupAliasTable(kinds));
  notices(ctx, info);
  return { warning: headers.Warning, annotations, recorded };
}

describe('deprecated version notices', () => {
  it('announces the resource and its status under the canonical group', () => {
    for (const path of [
      '/apis/widgets.platform.io/v1beta1/namespaces/ns/widgets',
      '/apis/widgets.platform.io/v1beta1/namespaces/ns/widgets/w/status',
    ]) {
      const { warning, annotations, recorded } = announce(path);
      expect(warning, path).to.deep.equal([
        '299 - "widgets.platform.io/v1beta1 Widget is deprecated in v1.31+; use widgets.platform.io/v2 Widget"',
      ]);
      expect(annotations, path).to.deep.equal({ 'platform.io/deprecated': 'true' });
      expect(recorded, path).to.deep.equal([
        {
          group: 'widgets.platform.io',
          version: 'v1beta1',
          resource: 'widgets',
          subresource: path.endsWith('/status') ? 'status' : '',
          removed_release: '',
        },
      ]);
    }
  });

  it('keeps the replacement in its own group when the alias does not serve it', () => {
    const { warning, recorded } = announce('/apis/widgets.k8s.io/v1beta1/widgets');
    expect(warning).to.deep.equal([
      '299 - "widgets.k8s.io/v1beta1 Widget is deprecated in v1.31+; use widgets.platform.io/v2 Widget"',
    ]);
    expect(recorded).to.deep.equal([
      { group: 'widgets.platform.io', version: 'v1beta1', resource: 'widgets', subresource: '', removed_release: '' },
    ]);
  });

  it('announces nothing for other subresources, other versions, or a deprecation of a later release', () => {
    for (const path of [
      '/apis/widgets.platform.io/v1beta1/namespaces/ns/widgets/w/scale',
      '/apis/widgets.platform.io/v2/namespaces/ns/widgets',
      '/apis/widgets.platform.io/v1alpha1/namespaces/ns/widgets',
    ]) {
      const { warning, annotations, recorded } = announce(path);
      expect(warning, path).to.equal(undefined);
      expect(annotations, path).to.deep.equal({});
      expect(recorded, path).to.deep.equal([]);
    }
    expect(announce('/apis/widgets.platform.io/v1alpha1/widgets', { major: '1', minor: '33' }).warning).to.deep.equal([
      '299 - "widgets.platform.io/v1alpha1 Widget is deprecated in v1.33+"',
    ]);
  });
});
