// The answers the aggregator makes itself, rather than the server behind an APIService: counted under
// component="aggregator" in the request metrics and as terminations, as kube-aggregator's proxy handler records its
// own errors; what the upstream answers stays under component="apiserver".
import { expect } from 'chai';
import { eventually } from '../helpers/api.js';
import { labels, scrape, seriesOf } from '../helpers/metrics-text.js';
import {
  closedPort,
  GROUP,
  GV,
  SERVICE,
  startAggregatedGatehouse,
  VERSION,
  type AggregatedGatehouse,
} from '../helpers/aggregated-gatehouse.js';

const NS = 'own-answers';
const REFUSED_GROUP = 'refused.example.io';

const route = (group: string, version: string, resource: string, component: string) => ({
  verb: 'LIST',
  dry_run: '',
  group,
  version,
  resource,
  subresource: '',
  scope: 'namespace',
  component,
});

describe('aggregator: the answers it makes itself in the request metrics', function () {
  this.timeout(60_000);
  let a: AggregatedGatehouse;

  before(async () => {
    a = await startAggregatedGatehouse({
      extraEndpoints: [
        { namespace: 'wardle', name: 'refused', port: 443, url: `https://127.0.0.1:${await closedPort()}` },
      ],
    });
    await a.register({ group: GROUP, version: VERSION, service: SERVICE });
    await a.register({ group: REFUSED_GROUP, version: 'v1', service: { namespace: 'wardle', name: 'refused' } });
  });
  after(async () => {
    await a?.close();
  });

  it('counts a 503 for an unavailable APIService under the aggregator, and the upstream answers under the apiserver', async () => {
    const flunders = `${GV}/namespaces/${NS}/flunders`;
    expect((await a.gh.request('GET', flunders)).status).to.equal(200);
    await a.setAvailable(`${VERSION}.${GROUP}`, false);
    await eventually('the APIService is unavailable', async () => (await a.gh.request('GET', flunders)).status === 503);
    const unavailable = await a.gh.request('GET', flunders);
    expect(unavailable.status).to.equal(503);
    expect(unavailable.json().message).to.equal('service unavailable');
    await a.setAvailable(`${VERSION}.${GROUP}`, true);
    await eventually('available again', async () => (await a.gh.request('GET', flunders)).status === 200);

    const text = await scrape(a.gh);
    const own = route(GROUP, VERSION, 'flunders', 'aggregator');
    const upstream = route(GROUP, VERSION, 'flunders', 'apiserver');
    const requests = seriesOf(text, 'apiserver_request_total');
    const shown = [...requests.keys()].filter((k) => k.includes(GROUP)).join('\n');
    expect(requests.get(labels({ ...own, code: '503' })), shown).to.be.at.least(2);
    expect(requests.get(labels({ ...upstream, code: '503' })), shown).to.equal(undefined);
    expect(requests.get(labels({ ...upstream, code: '200' })), shown).to.be.at.least(2);
    expect(requests.get(labels({ ...own, code: '200' })), shown).to.equal(undefined);
    const durations = seriesOf(text, 'apiserver_request_duration_seconds_count');
    expect(durations.get(labels(own))).to.be.at.least(2);
    const { dry_run: _, ...terminated } = own;
    const terminations = seriesOf(text, 'apiserver_request_terminations_total');
    expect(terminations.get(labels({ ...terminated, code: '503' }))).to.be.at.least(2);
  });

  it('counts a 503 for an upstream it cannot connect to under the aggregator', async () => {
    const things = `/apis/${REFUSED_GROUP}/v1/namespaces/${NS}/things`;
    const refused = await a.gh.request('GET', things);
    expect(refused.status, refused.body).to.equal(503);
    expect(refused.json().message).to.include('ECONNREFUSED');
    const text = await scrape(a.gh);
    // Its server has never listed its resources, so they are not label values (nothing a client names freely is).
    const own = route('', '', '', 'aggregator');
    const requests = seriesOf(text, 'apiserver_request_total');
    expect(requests.get(labels({ ...own, code: '503' })), [...requests.keys()].join('\n')).to.equal(1);
    expect(seriesOf(text, 'apiserver_request_duration_seconds_count').get(labels(own))).to.equal(1);
  });
});
