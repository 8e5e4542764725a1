// A deprecated version's warning text and removal release, built as upstream's deprecation package builds them
// from whichever parts are known, and a server of an earlier release announcing nothing yet.
import { expect } from 'chai';
import {
  deprecationWarning,
  isDeprecatedAt,
  parseRelease,
  removedRelease,
  type VersionDeprecation,
} from '../../api/deprecation.js';

const WIDGET = { group: 'widgets.platform.io', version: 'v1beta1', kind: 'Widget' };
const V1 = { group: 'widgets.platform.io', version: 'v1', kind: 'Widget' };
const AT_1_32 = { major: 1, minor: 32 };

describe('version deprecation', () => {
  it('names every part it knows, in upstream order', () => {
    const all: VersionDeprecation = { deprecatedIn: '1.30', removedIn: '1.35', replacement: V1 };
    expect(deprecationWarning(all, WIDGET)).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.35+; use widgets.platform.io/v1 Widget',
    );
  });

  it('leaves out the parts it does not know', () => {
    expect(deprecationWarning({ deprecatedIn: '1.30' }, WIDGET)).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated in v1.30+',
    );
    expect(deprecationWarning({ deprecatedIn: '1.30', replacement: V1 }, WIDGET)).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated in v1.30+; use widgets.platform.io/v1 Widget',
    );
    expect(deprecationWarning({ deprecatedIn: '1.30', removedIn: '1.35' }, WIDGET)).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.35+',
    );
    // A CRD version's `deprecated: true` names no release: its default text.
    expect(deprecationWarning({ replacement: V1 }, WIDGET)).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated; use widgets.platform.io/v1 Widget',
    );
  });

  it('writes the core group as its version alone, and the replacement in the spelling given', () => {
    const core = { group: '', version: 'v1beta1', kind: 'Thing' };
    const deprecation = { deprecatedIn: '1.31', replacement: { group: '', version: 'v1', kind: 'Thing' } } as const;
    expect(deprecationWarning(deprecation, core)).to.equal('v1beta1 Thing is deprecated in v1.31+; use v1 Thing');
    expect(deprecationWarning({ deprecatedIn: '1.31', replacement: V1 }, WIDGET, 'widgets.k8s.io')).to.equal(
      'widgets.platform.io/v1beta1 Widget is deprecated in v1.31+; use widgets.k8s.io/v1 Widget',
    );
  });

  it('sends a text of its own instead, as a CRD deprecationWarning', () => {
    expect(deprecationWarning({ deprecatedIn: '1.30', warning: 'move to v2 by June' }, WIDGET)).to.equal(
      'move to v2 by June',
    );
  });

  it('is announced from its deprecating release on, and always without one', () => {
    expect(isDeprecatedAt({ deprecatedIn: '1.32' }, AT_1_32)).to.equal(true);
    expect(isDeprecatedAt({ deprecatedIn: '1.9' }, AT_1_32)).to.equal(true);
    expect(isDeprecatedAt({ deprecatedIn: '1.33' }, AT_1_32)).to.equal(false);
    expect(isDeprecatedAt({ deprecatedIn: '2.0' }, AT_1_32)).to.equal(false);
    expect(isDeprecatedAt({}, AT_1_32)).to.equal(true);
  });

  it('gives the removal release as major.minor, or nothing', () => {
    expect(removedRelease({ removedIn: '1.35' })).to.equal('1.35');
    expect(removedRelease({ deprecatedIn: '1.30' })).to.equal('');
  });

  it('reads a release by its leading digits and refuses anything else', () => {
    expect(parseRelease('1.32+')).to.deep.equal(AT_1_32);
    expect(() => parseRelease('v1.32')).to.throw('release "v1.32" is not of the form <major>.<minor>');
  });
});
