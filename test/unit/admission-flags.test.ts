import { expect } from 'chai';
import { parseAdmissionOptions, selectAdmissionPlugins } from '../../gateway/admission/admission-flags.js';
import { parseOptions } from '../../gateway/server/options.js';
import { optionsError } from '../helpers/options.js';

const plugin = (name: string) => ({ name });
const LIST = ['NamespaceLifecycle', 'RBACEscalation', 'NodeRestriction', 'ValidatingAdmissionPolicy', 'ResourceQuota'];

describe('--enable-admission-plugins and --disable-admission-plugins', () => {
  it('run every plugin of the list by default, in its order', () => {
    const options = parseOptions([], '/srv/gh').admission;
    const { plugins, warnings } = selectAdmissionPlugins(LIST.map(plugin), options);
    expect(plugins.map((p) => p.name)).to.deep.equal(LIST);
    expect(warnings).to.deep.equal([]);
  });

  it('take the disabled plugins out, keeping the order of the rest', () => {
    const options = parseOptions(
      ['--disable-admission-plugins=NamespaceLifecycle', '--disable-admission-plugins=ResourceQuota,NodeRestriction'],
      '/srv/gh',
    ).admission;
    const { plugins } = selectAdmissionPlugins(LIST.map(plugin), options);
    expect(plugins.map((p) => p.name)).to.deep.equal(['RBACEscalation', 'ValidatingAdmissionPolicy']);
  });

  it('accept an upstream plugin Gatehouse does not have, with a warning, and one it has, without', () => {
    const options = parseAdmissionOptions(['LimitRanger,NodeRestriction', 'AlwaysPullImages'], []);
    const { plugins, warnings } = selectAdmissionPlugins(LIST.map(plugin), options);
    expect(plugins).to.have.length(LIST.length);
    expect(warnings).to.deep.equal([
      'admission plugin LimitRanger is not implemented by Gatehouse: --enable-admission-plugins=LimitRanger has no effect',
      'admission plugin AlwaysPullImages is not implemented by Gatehouse: --enable-admission-plugins=AlwaysPullImages has no effect',
    ]);
  });

  it('refuse an unknown name in either flag at start, naming the flag and the plugin', () => {
    expect(optionsError(['--enable-admission-plugins=NamespaceLifecycel']).message).to.equal(
      'enable-admission-plugins plugin "NamespaceLifecycel" is unknown',
    );
    // RBAC escalation prevention is not an admission plugin upstream: it cannot be switched off by name.
    expect(optionsError(['--disable-admission-plugins=ResourceQuota,RBACEscalation']).message).to.equal(
      'disable-admission-plugins plugin "RBACEscalation" is unknown',
    );
  });

  it('refuse a plugin in both flags', () => {
    expect(
      optionsError([
        '--enable-admission-plugins=ResourceQuota,NamespaceLifecycle',
        '--disable-admission-plugins=NamespaceLifecycle,ResourceQuota',
      ]).message,
    ).to.equal(
      '[NamespaceLifecycle ResourceQuota] in enable-admission-plugins and disable-admission-plugins overlapped',
    );
  });
});
