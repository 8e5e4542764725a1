// The versions of a custom resource as the rest of the server sees them, over real HTTPS and with the real kubectl:
// a deprecated version answers with upstream's Warning (its own text, or `<group>/<version> <Kind> is deprecated;
// use <the preferred version>`), counted in apiserver_requested_deprecated_apis and annotated in the audit log;
// request metrics name the custom resource; and each served group-version gets a Local APIService, Available, gone
// once the definition is.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { eventually } from '../helpers/api.js';
import { DEPRECATION_AUDIT_POLICY } from '../helpers/deprecated-kinds.js';
import { fooSchema } from '../helpers/crds.js';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createKubectl, parseColumns, type Kubectl } from '../helpers/kubectl.js';
import { yamlManifest } from '../helpers/kubectl-suite.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';

const GROUP = 'versions.example.com';
const CRD_NAME = `things.${GROUP}`;
const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const version = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  served: true,
  storage: name === 'v1',
  schema: { openAPIV3Schema: fooSchema() },
  ...extra,
});

const definition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD_NAME },
  spec: {
    group: GROUP,
    names: { plural: 'things', kind: 'Thing' },
    scope: 'Namespaced',
    versions: [
      version('v1'),
      version('v1beta1', { deprecated: true }),
      version('v1alpha1', { deprecated: true, deprecationWarning: 'v1alpha1 things go away next release' }),
      version('v2alpha1'),
    ],
  },
};

const BETA_WARNING = `299 - "${GROUP}/v1beta1 Thing is deprecated; use ${GROUP}/v1 Thing"`;
const ALPHA_WARNING = '299 - "v1alpha1 things go away next release"';
const things = (v: string) => `/apis/${GROUP}/${v}/namespaces/default/things`;
const thing = (v: string, name: string) => ({
  apiVersion: `${GROUP}/${v}`,
  kind: 'Thing',
  metadata: { name },
  spec: { deploymentName: name },
});

describe('custom resources: deprecated versions, request metrics and APIServices', function () {
  this.timeout(90_000);
  let dir: string;
  let gh: TestGatehouse | undefined;
  let kubectl: Kubectl;
  const answers: Record<string, GatehouseResponse> = {};

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-crd-versions-'));
    await writeFile(path.join(dir, 'policy.yaml'), DEPRECATION_AUDIT_POLICY);
    gh = await startTestGatehouse([
      '--storage-backend',
      'memory',
      '--audit-policy-file',
      path.join(dir, 'policy.yaml'),
      '--audit-log-path',
      path.join(dir, 'audit.log'),
    ]);
    kubectl = await createKubectl(gh.kubeconfigPath);
    await kubectl.ok(['apply', '-f', await kubectl.manifest('things-crd.yaml', yamlManifest(definition))]);
    await kubectl.ok(['wait', '--for', 'condition=established', '--timeout=20s', `crd/${CRD_NAME}`]);
    const g = gh;
    await eventually('things served', async () => (await g.request('GET', things('v1'))).status === 200, 2000);
  });
  after(async () => {
    await kubectl?.cleanup();
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("warns every request to a deprecated version, in upstream's words or the version's own", async () => {
    const g = gh!;
    answers.betaCreate = await g.request('POST', things('v1beta1'), { body: thing('v1beta1', 'b') });
    expect(answers.betaCreate.status, answers.betaCreate.body).to.equal(201);
    expect(answers.betaCreate.headers.warning).to.equal(BETA_WARNING);
    answers.betaMissing = await g.request('GET', `${things('v1beta1')}/none`);
    expect(answers.betaMissing.status).to.equal(404);
    expect(answers.betaMissing.headers.warning).to.equal(BETA_WARNING);
    answers.alphaList = await g.request('GET', things('v1alpha1'));
    expect(answers.alphaList.status, answers.alphaList.body).to.equal(200);
    expect(answers.alphaList.headers.warning).to.equal(ALPHA_WARNING);
    answers.v1Get = await g.request('GET', `${things('v1')}/b`);
    expect(answers.v1Get.status, answers.v1Get.body).to.equal(200);
    expect(answers.v1Get.headers).to.not.have.property('warning');
    const v2alpha1 = await g.request('GET', things('v2alpha1'));
    expect(v2alpha1.headers).to.not.have.property('warning');
    // kubectl prints the warning it was sent.
    const got = await kubectl.run(['get', `things.v1beta1.${GROUP}`, '-n', 'default']);
    expect(got.code, got.stderr).to.equal(0);
    expect(got.stderr).to.contain(`Warning: ${GROUP}/v1beta1 Thing is deprecated; use ${GROUP}/v1 Thing`);
  });

  it('counts the deprecated versions asked for, and names the custom resource in request metrics', async () => {
    const text = await scrape(gh!);
    const deprecated = seriesOf(text, 'apiserver_requested_deprecated_apis');
    const series = (v: string) =>
      labels({ group: GROUP, version: v, resource: 'things', subresource: '', removed_release: '' });
    expect(deprecated.get(series('v1beta1'))).to.equal(1);
    expect(deprecated.get(series('v1alpha1'))).to.equal(1);
    expect(deprecated.has(series('v1'))).to.equal(false);
    const requests = [...seriesOf(text, 'apiserver_request_total').keys()];
    const create = requests.find(
      (key) => key.includes(`group="${GROUP}"`) && key.includes('resource="things"') && key.includes('verb="CREATE"'),
    );
    expect(create, requests.join('\n')).to.include('version="v1beta1"').and.include('code="201"');
  });

  it('keeps a Local APIService, Available, for each served version', async () => {
    const g = gh!;
    const apiService = async (name: string) => {
      const res = await g.request('GET', `${APISERVICES}/${name}`);
      return res.status === 200 ? res.json() : undefined;
    };
    const available = await eventually('v1beta1 APIService Available', async () => {
      const obj = await apiService(`v1beta1.${GROUP}`);
      const condition = obj?.status?.conditions?.find((c: any) => c.type === 'Available');
      return condition?.status === 'True' && obj;
    });
    expect(available.spec).to.deep.equal({
      group: GROUP,
      version: 'v1beta1',
      groupPriorityMinimum: 1000,
      versionPriority: 100,
    });
    expect(available.metadata.labels).to.include({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    const listed = parseColumns(await kubectl.ok(['get', 'apiservices']));
    const ours = listed.filter((row) => row.NAME.endsWith(`.${GROUP}`));
    expect(ours.map((row) => row.NAME)).to.have.members(
      ['v1', 'v1beta1', 'v1alpha1', 'v2alpha1'].map((v) => `${v}.${GROUP}`),
    );
    for (const row of ours) expect(row.SERVICE, row.NAME).to.equal('Local');
  });

  it('removes the APIServices once no definition serves the group-versions', async () => {
    await kubectl.ok(['delete', 'crd', CRD_NAME, '--timeout=20s']);
    const g = gh!;
    await eventually('APIServices removed', async () => {
      const items: any[] = (await g.request('GET', APISERVICES)).json().items;
      return !items.some((i) => i.spec.group === GROUP);
    });
    // The server's own stay.
    expect((await g.request('GET', `${APISERVICES}/v1.apps`)).status).to.equal(200);
  });

  it('annotates the audit events of requests to a deprecated version', async () => {
    await gh!.close();
    gh = undefined;
    const events = (await readFile(path.join(dir, 'audit.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { auditID: string; stage: string; annotations?: Record<string, string> });
    const complete = (res: GatehouseResponse) =>
      events.find((e) => e.auditID === res.headers['audit-id'] && e.stage === 'ResponseComplete');
    for (const name of ['betaCreate', 'betaMissing', 'alphaList'])
      expect(complete(answers[name])?.annotations, name).to.include({ 'platform.io/deprecated': 'true' });
    expect(complete(answers.v1Get)?.annotations).to.not.have.property('platform.io/deprecated');
  });
});
