// The real kubectl against a deprecated version: it prints the server's deprecation warning on stderr, as it does for
// kube-apiserver's, in the group the command named, and nothing for the version that is not deprecated.
import { expect } from 'chai';
import { startTestGatehouse } from '../helpers/gatehouse.js';
import { gatehouseWithKubectl, yamlManifest } from '../helpers/kubectl-suite.js';
import { WIDGETS, WIDGETS_ALIAS, kindsWithDeprecatedVersions } from '../helpers/deprecated-kinds.js';

const warningLine = (group: string): string =>
  `Warning: ${group}/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.35+; use ${group}/v1 Widget`;

describe('kubectl and a deprecated version', function () {
  this.timeout(60_000);
  const env = gatehouseWithKubectl(() => startTestGatehouse([], { kinds: kindsWithDeprecatedVersions }));

  before(async () => {
    const widget = { apiVersion: `${WIDGETS}/v1`, kind: 'Widget', metadata: { name: 'w1' }, data: { a: 'b' } };
    await env.kubectl.ok(['create', '-f', await env.kubectl.manifest('widget.yaml', yamlManifest(widget))]);
  });

  it('prints the warning of a get at the deprecated version on stderr', async () => {
    const res = await env.kubectl.run(['get', `widgets.v1beta1.${WIDGETS}`, 'w1', '-o', 'name']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout.trim()).to.equal(`widget.${WIDGETS}/w1`);
    expect(res.stderr.split('\n')).to.include(warningLine(WIDGETS));
  });

  it('words it in the alias group when the command names the alias', async () => {
    const res = await env.kubectl.run(['get', `widgets.v1beta1.${WIDGETS_ALIAS}`]);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout).to.match(/^w1\s/m);
    expect(res.stderr.split('\n')).to.include(warningLine(WIDGETS_ALIAS));
  });

  it('prints no warning for the version that is not deprecated', async () => {
    const res = await env.kubectl.run(['get', `widgets.v1.${WIDGETS}`, 'w1', '-o', 'name']);
    expect(res.code, res.stderr).to.equal(0);
    expect(res.stdout.trim()).to.equal(`widget.${WIDGETS}/w1`);
    expect(res.stderr).not.to.include('Warning:');
  });
});
