// Requests to a deprecated version over real HTTPS: the Warning header in upstream's words for every verb and both
// group names, apiserver_requested_deprecated_apis once such a request was served, and the audit annotations read
// back from the audit log file (written whole once the gateway has closed). The v1 requests beside them show that
// all of it belongs to the deprecated version alone.
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch } from '../helpers/watch-client.js';
import {
  DEPRECATION_AUDIT_POLICY,
  GADGETS,
  WIDGETS,
  WIDGETS_ALIAS,
  kindsWithDeprecatedVersions,
} from '../helpers/deprecated-kinds.js';

const WIDGET_WARNING = `299 - "${WIDGETS}/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.35+; use ${WIDGETS}/v1 Widget"`;
const ALIAS_WARNING = `299 - "${WIDGETS_ALIAS}/v1beta1 Widget is deprecated in v1.30+, unavailable in v1.35+; use ${WIDGETS_ALIAS}/v1 Widget"`;
const GADGET_WARNING = `299 - "${GADGETS}/v1alpha1 Gadget is deprecated in v1.31+"`;

const collection = (group: string, version: string, resource = 'widgets') =>
  `/apis/${group}/${version}/namespaces/default/${resource}`;
const widget = (group: string, version: string, name: string, kind = 'Widget') => ({
  apiVersion: `${group}/${version}`,
  kind,
  metadata: { name },
  data: { a: 'b' },
});

interface Event {
  auditID: string;
  stage: string;
  verb: string;
  annotations?: Record<string, string>;
}

/** The series of `name` in a Prometheus text exposition, each as its labels. */
function seriesOf(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => ({
      labels: Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]])),
      value: Number(line.slice(line.lastIndexOf(' ') + 1)),
    }));
}

describe('deprecated API versions', function () {
  this.timeout(60_000);
  let dir: string;
  let gh: TestGatehouse | undefined;
  const answers: Record<string, GatehouseResponse> = {};
  let watchHeaders: Record<string, string | string[] | undefined> = {};
  let metricsBefore = '';
  let metricsAfter = '';
  let events: Event[] = [];

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-deprecated-'));
    await writeFile(path.join(dir, 'policy.yaml'), DEPRECATION_AUDIT_POLICY);
    gh = await startTestGatehouse(
      ['--audit-policy-file', path.join(dir, 'policy.yaml'), '--audit-log-path', path.join(dir, 'audit.log')],
      { kinds: kindsWithDeprecatedVersions },
    );
    const g = gh;
    metricsBefore = (await g.request('GET', '/metrics')).body;
    const beta = collection(WIDGETS, 'v1beta1');
    const alias = collection(WIDGETS_ALIAS, 'v1beta1');
    answers.create = await g.request('POST', beta, { body: widget(WIDGETS, 'v1beta1', 'w1') });
    answers.get = await g.request('GET', `${beta}/w1`);
    answers.missing = await g.request('GET', `${beta}/no-such-widget`);
    answers.aliasList = await g.request('GET', alias);
    answers.aliasCreate = await g.request('POST', alias, { body: widget(WIDGETS_ALIAS, 'v1beta1', 'w2') });
    answers.v1Create = await g.request('POST', collection(WIDGETS, 'v1'), { body: widget(WIDGETS, 'v1', 'w3') });
    answers.v1Get = await g.request('GET', `${collection(WIDGETS_ALIAS, 'v1')}/w3`);
    answers.gadgets = await g.request('GET', collection(GADGETS, 'v1alpha1', 'gadgets'));
    const watch = await openWatch(g.url, `${alias}?watch=1`, { ca: g.ca, token: g.adminToken });
    try {
      expect(watch.status).to.equal(200);
      watchHeaders = watch.headers;
      expect((await watch.next()).type).to.equal('ADDED');
    } finally {
      watch.close();
    }
    metricsAfter = (await g.request('GET', '/metrics')).body;
    await g.close();
    gh = undefined;
    events = (await readFile(path.join(dir, 'audit.log'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Event);
  });

  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const eventsOf = (res: { headers: Record<string, string | string[] | undefined> }): Event[] =>
    events.filter((e) => e.auditID === res.headers['audit-id']);

  it('warns create, get and list in the group asked in, in upstream words', () => {
    expect(answers.create.status, answers.create.body).to.equal(201);
    expect(answers.create.headers.warning).to.equal(WIDGET_WARNING);
    expect(answers.get.status, answers.get.body).to.equal(200);
    expect(answers.get.headers.warning).to.equal(WIDGET_WARNING);
    expect(answers.aliasList.status, answers.aliasList.body).to.equal(200);
    expect(answers.aliasList.headers.warning).to.equal(ALIAS_WARNING);
    expect(answers.aliasCreate.status, answers.aliasCreate.body).to.equal(201);
    expect(answers.aliasCreate.headers.warning).to.equal(ALIAS_WARNING);
  });

  it('warns a watch in its headers', () => {
    expect(watchHeaders.warning).to.equal(ALIAS_WARNING);
  });

  it('warns a request that fails, as the route was still the deprecated one', () => {
    expect(answers.missing.status).to.equal(404);
    expect(answers.missing.headers.warning).to.equal(WIDGET_WARNING);
  });

  it('leaves out the parts of the text a deprecation does not name', () => {
    expect(answers.gadgets.status, answers.gadgets.body).to.equal(200);
    expect(answers.gadgets.headers.warning).to.equal(GADGET_WARNING);
  });

  it('does not warn the version that is not deprecated', () => {
    expect(answers.v1Create.status, answers.v1Create.body).to.equal(201);
    expect(answers.v1Create.headers).not.to.have.property('warning');
    expect(answers.v1Get.status, answers.v1Get.body).to.equal(200);
    expect(answers.v1Get.headers).not.to.have.property('warning');
  });

  it('sets apiserver_requested_deprecated_apis once such a version was served, under the kind own group', () => {
    expect(metricsBefore).to.include('# TYPE apiserver_requested_deprecated_apis gauge');
    expect(seriesOf(metricsBefore, 'apiserver_requested_deprecated_apis')).to.deep.equal([]);
    expect(metricsAfter).to.include(
      '# HELP apiserver_requested_deprecated_apis [STABLE] Gauge of deprecated APIs that have been requested, broken out by API group, version, resource, subresource, and removed_release.',
    );
    const series = seriesOf(metricsAfter, 'apiserver_requested_deprecated_apis');
    expect(series).to.have.deep.members([
      {
        labels: { group: WIDGETS, version: 'v1beta1', resource: 'widgets', subresource: '', removed_release: '1.35' },
        value: 1,
      },
      {
        labels: { group: GADGETS, version: 'v1alpha1', resource: 'gadgets', subresource: '', removed_release: '' },
        value: 1,
      },
    ]);
  });

  it('annotates the audit events of every such request, with the removal release when known', () => {
    const deprecated = { 'platform.io/deprecated': 'true', 'platform.io/removed-release': '1.35' };
    for (const name of ['create', 'get', 'missing', 'aliasList', 'aliasCreate']) {
      const complete = eventsOf(answers[name]).filter((e) => e.stage === 'ResponseComplete');
      expect(complete, name).to.have.length(1);
      expect(complete[0].annotations, name).to.include(deprecated);
    }
    const watchEvents = eventsOf({ headers: watchHeaders });
    expect(watchEvents.map((e) => e.stage)).to.include('ResponseStarted');
    for (const event of watchEvents) expect(event.annotations, event.stage).to.include(deprecated);
    const gadget = eventsOf(answers.gadgets).find((e) => e.stage === 'ResponseComplete');
    expect(gadget?.annotations).to.include({ 'platform.io/deprecated': 'true' });
    expect(gadget?.annotations).not.to.have.property('platform.io/removed-release');
  });

  it('does not annotate requests to the version that is not deprecated', () => {
    for (const res of [answers.v1Create, answers.v1Get]) {
      const complete = eventsOf(res).find((e) => e.stage === 'ResponseComplete');
      expect(complete?.annotations).to.include({ 'authorization.platform.io/decision': 'allow' });
      expect(complete?.annotations).not.to.have.property('platform.io/deprecated');
    }
  });
});
