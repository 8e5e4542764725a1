// The warning a deprecated version of a CustomResourceDefinition answers with: its own deprecationWarning, or
// upstream's default naming the most preferred served version that is not deprecated and ranks above it.
import { expect } from 'chai';
import { servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import { deprecationWarning } from '../../api/deprecation.js';
import { versionDeprecationOf } from '../../gateway/apiextensions/version-deprecation.js';

const GROUP = 'things.example.com';

function warningOf(versions: Record<string, unknown>[], name: string): string | undefined {
  const served = servedDefinitionOf({
    apiVersion: 'apiextensions.platform.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `things.${GROUP}` },
    spec: { group: GROUP, names: { plural: 'things', kind: 'Thing' }, scope: 'Namespaced', versions },
  });
  const version = served.versions.find((v) => v.name === name)!;
  const deprecation = versionDeprecationOf(served, version);
  return deprecation && deprecationWarning(deprecation, { group: GROUP, version: name, kind: 'Thing' });
}

const v = (name: string, extra: Record<string, unknown> = {}) => ({ name, served: true, storage: false, ...extra });

describe('deprecated versions of custom resources', () => {
  it('says nothing of a version that is not deprecated', () => {
    expect(warningOf([v('v1', { storage: true })], 'v1')).to.equal(undefined);
  });

  it("uses the version's own text, even an empty one", () => {
    expect(warningOf([v('v1', { deprecated: true, deprecationWarning: 'going away' })], 'v1')).to.equal('going away');
    expect(warningOf([v('v1', { deprecated: true, deprecationWarning: '' })], 'v1')).to.equal('');
  });

  it('names the most preferred served, not deprecated version above it', () => {
    const versions = [
      v('v1beta1', { deprecated: true }),
      v('v1', { storage: true }),
      v('v2beta1'),
      v('v3', { deprecated: true }),
      v('v4', { served: false }),
      v('v1alpha1'),
    ];
    expect(warningOf(versions, 'v1beta1')).to.equal(`${GROUP}/v1beta1 Thing is deprecated; use ${GROUP}/v1 Thing`);
    expect(warningOf(versions, 'v3')).to.equal(`${GROUP}/v3 Thing is deprecated`);
  });
});
