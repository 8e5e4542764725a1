// --controllers and --enable-bootstrap-token-auth as option parsing sees them: kube-controller-manager's list
// semantics (`*`, `name`, `-name`, first match wins, aliases) and start-up errors naming an unknown controller.
import { expect } from 'chai';
import { optionsError } from '../helpers/options.js';
import { parseOptions, usage, type OptionsError } from '../../gateway/server/options.js';
import { parseControllerSelection } from '../../gateway/controllers/selection.js';
import {
  BOOTSTRAP_SIGNER_CONTROLLER,
  NAMESPACE_CONTROLLER,
  ROOT_CA_PUBLISHER_CONTROLLER,
  SERVICE_ACCOUNT_CONTROLLER,
  TOKEN_CLEANER_CONTROLLER,
} from '../../gateway/controllers/known-controllers.js';

const cwd = '/srv/gh';

const refused = (argv: string[]): OptionsError => optionsError(argv, cwd);

function enabledSet(argv: string[]): string[] {
  const { controllers } = parseOptions(argv, cwd);
  return [NAMESPACE_CONTROLLER, TOKEN_CLEANER_CONTROLLER, BOOTSTRAP_SIGNER_CONTROLLER].filter((n) =>
    controllers.enabled(n),
  );
}

describe('--controllers', () => {
  it('defaults to * : default-on controllers only, the bootstrap pair off', () => {
    expect(enabledSet([])).to.deep.equal([NAMESPACE_CONTROLLER]);
    expect(enabledSet(['--controllers=*'])).to.deep.equal([NAMESPACE_CONTROLLER]);
  });

  it('enables named controllers, by alias or canonical name', () => {
    expect(enabledSet(['--controllers=*,tokencleaner,bootstrapsigner'])).to.deep.equal([
      NAMESPACE_CONTROLLER,
      TOKEN_CLEANER_CONTROLLER,
      BOOTSTRAP_SIGNER_CONTROLLER,
    ]);
    expect(enabledSet(['--controllers', '*,token-cleaner-controller'])).to.deep.equal([
      NAMESPACE_CONTROLLER,
      TOKEN_CLEANER_CONTROLLER,
    ]);
  });

  it('runs only the named ones without *', () => {
    expect(enabledSet(['--controllers=bootstrapsigner'])).to.deep.equal([BOOTSTRAP_SIGNER_CONTROLLER]);
  });

  it('disables with -name, and the first entry naming a controller wins', () => {
    expect(enabledSet(['--controllers=*,-namespace'])).to.deep.equal([]);
    expect(enabledSet(['--controllers=-tokencleaner,*,tokencleaner'])).to.deep.equal([NAMESPACE_CONTROLLER]);
    expect(enabledSet(['--controllers=tokencleaner,-tokencleaner'])).to.deep.equal([TOKEN_CLEANER_CONTROLLER]);
  });

  it('runs the serviceaccount and root-ca-cert-publisher controllers by default, each off by its alias', () => {
    const on = (argv: string[]) =>
      [SERVICE_ACCOUNT_CONTROLLER, ROOT_CA_PUBLISHER_CONTROLLER].filter((n) =>
        parseOptions(argv, cwd).controllers.enabled(n),
      );
    expect(on([])).to.deep.equal([SERVICE_ACCOUNT_CONTROLLER, ROOT_CA_PUBLISHER_CONTROLLER]);
    expect(on(['--controllers=*,-serviceaccount'])).to.deep.equal([ROOT_CA_PUBLISHER_CONTROLLER]);
    expect(on(['--controllers=-root-ca-cert-publisher,*'])).to.deep.equal([SERVICE_ACCOUNT_CONTROLLER]);
    expect(on(['--controllers=root-ca-certificate-publisher-controller'])).to.deep.equal([
      ROOT_CA_PUBLISHER_CONTROLLER,
    ]);
  });

  it('appends repeated flags, as a string slice does', () => {
    expect(enabledSet(['--controllers=*', '--controllers=bootstrapsigner'])).to.deep.equal([
      NAMESPACE_CONTROLLER,
      BOOTSTRAP_SIGNER_CONTROLLER,
    ]);
  });

  it('refuses an unknown controller, naming it, the flag and the value', () => {
    const e = refused(['--controllers=*,tokencleanr']);
    expect(e.message).to.equal(
      'invalid argument "*,tokencleanr" for "--controllers" flag: "tokencleanr" is not in the list of known controllers',
    );
    expect(refused(['--controllers=-nope']).message).to.contain('"nope" is not in the list of known controllers');
  });

  it('refuses empty entries', () => {
    expect(refused(['--controllers=*,']).message).to.contain('empty controller name');
    expect(refused(['--controllers=-']).message).to.contain('empty controller name');
  });

  it('leaves unknown canonical names off even under *', () => {
    const s = parseControllerSelection(['*'], [{ name: 'a-controller', enabledByDefault: true }]);
    expect(s.enabled('a-controller')).to.equal(true);
    expect(s.enabled('other-controller')).to.equal(false);
  });

  it('is listed in --help with its default', () => {
    expect(usage()).to.match(/--controllers strings .*\(default \*\)/);
  });
});

describe('--enable-bootstrap-token-auth', () => {
  it('is off by default and parsed as a bool', () => {
    expect(parseOptions([], cwd).enableBootstrapTokenAuth).to.equal(false);
    expect(parseOptions(['--enable-bootstrap-token-auth'], cwd).enableBootstrapTokenAuth).to.equal(true);
    expect(parseOptions(['--enable-bootstrap-token-auth=false'], cwd).enableBootstrapTokenAuth).to.equal(false);
    expect(refused(['--enable-bootstrap-token-auth=yes']).message).to.contain('"--enable-bootstrap-token-auth"');
  });
});
