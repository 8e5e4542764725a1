// The real kubectl (HTTP/2, client-go) through Gatehouse to a remote APIService's server: the availability controller
// runs for real and marks the APIService Available, then discovery of the group-version, create, get and a streaming
// watch go through the proxy, first as raw paths, then as kubectl's typed verbs, which find the remote kind through
// Gatehouse's merged discovery.
import { expect } from 'chai';
import { eventually } from '../helpers/api.js';
import { createKubectl, type Kubectl } from '../helpers/kubectl.js';
import {
  APISERVICES,
  GROUP,
  GV,
  PROXY_CLIENT_CN,
  SERVICE,
  startAggregatedGatehouse,
  VERSION,
  type AggregatedGatehouse,
} from '../helpers/aggregated-gatehouse.js';

const NS = 'kubectl-wardle';
const FLUNDERS = `${GV}/namespaces/${NS}/flunders`;
const flunder = (name: string) =>
  JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Flunder', metadata: { name }, spec: { reference: name } });

describe('kubectl through the aggregator proxy', function () {
  this.timeout(90_000);
  let a: AggregatedGatehouse;
  let kubectl: Kubectl;

  before(async () => {
    a = await startAggregatedGatehouse({ availabilityController: true });
    // The availability controller, not the test, marks it Available.
    await a.register({ group: GROUP, version: VERSION, service: SERVICE, available: false });
    kubectl = await createKubectl(a.gh.kubeconfigPath);
    await eventually('the APIService is Available', async () => {
      const obj = (await a.gh.request('GET', `${APISERVICES}/${VERSION}.${GROUP}`)).json();
      return obj.status?.conditions?.some((c: any) => c.type === 'Available' && c.status === 'True');
    });
  });
  after(async () => {
    await kubectl?.cleanup();
    await a?.close();
  });

  it('reads the remote group-version discovery document', async () => {
    const doc = JSON.parse(await kubectl.ok(['get', '--raw', GV]));
    expect(doc).to.deep.include({ kind: 'APIResourceList', groupVersion: `${GROUP}/${VERSION}` });
    expect(doc.resources.map((r: any) => r.name)).to.deep.equal(['flunders']);
    // The availability check that marked it Available presented the proxy client certificate, as the proxy does.
    const check = a.upstream.received.find((r) => r.path === GV);
    expect(check?.clientCN).to.equal(PROXY_CLIENT_CN);
    expect(check?.clientAuthorized).to.equal(true);
    // Under kube-aggregator's own identity, so an upstream that delegates authorization lets the check through.
    expect(check?.headers['x-remote-user']).to.deep.equal(['system:kube-aggregator']);
    expect(check?.headers['x-remote-group']).to.deep.equal(['system:masters']);
  });

  it('creates and gets a remote object', async () => {
    const file = await kubectl.manifest('one.json', flunder('one'));
    const created = JSON.parse(await kubectl.ok(['create', '--raw', FLUNDERS, '-f', file]));
    expect(created.metadata).to.include({ name: 'one', namespace: NS });
    const got = JSON.parse(await kubectl.ok(['get', '--raw', `${FLUNDERS}/one`]));
    expect(got).to.deep.equal(a.upstream.flunders.objects.get(`${NS}/one`));
    // Over HTTP/2, as client-go speaks to Gatehouse; the identity the upstream saw is Gatehouse's verdict.
    expect(a.upstream.received.at(-1)?.headers['x-remote-user']).to.have.length(1);
  });

  it('streams a watch: an object created while kubectl watches arrives on the open stream', async () => {
    const watch = kubectl.stream(['get', '--raw', `${FLUNDERS}?watch=1`]);
    try {
      await watch.waitForLine(/"type":"ADDED".*"name":"one"/, { timeoutMs: 15_000 });
      const file = await kubectl.manifest('two.json', flunder('two'));
      await kubectl.ok(['create', '--raw', FLUNDERS, '-f', file]);
      await watch.waitForLine(/"type":"ADDED".*"name":"two"/, { timeoutMs: 15_000 });
      expect(watch.running()).to.equal(true);
    } finally {
      await watch.stop();
    }
    // kubectl gone, its HTTP/2 stream reset: the proxy ends the upstream's watch request too.
    await eventually('the upstream watch ends', async () =>
      a.upstream.closed.some((p) => p.startsWith(`${FLUNDERS}?`) && p.includes('watch=1')),
    );
  });

  it('finds the remote kind through merged discovery: api-resources, typed get, create and get -w', async () => {
    const resources = await eventually('flunders in api-resources', async () => {
      const out = await kubectl.ok(['api-resources', `--api-group=${GROUP}`]);
      return out.includes('flunders') && out;
    });
    expect(resources).to.match(
      new RegExp(`^flunders\\s+${GROUP.replace(/\./g, '\\.')}/${VERSION}\\s+true\\s+Flunder$`, 'm'),
    );
    const file = await kubectl.manifest('three.json', flunder('three'));
    expect(await kubectl.ok(['create', '-n', NS, '-f', file])).to.match(/flunder\.[^/]+\/three created/);
    expect(a.upstream.flunders.objects.has(`${NS}/three`)).to.equal(true);
    const names = await kubectl.ok(['get', 'flunders', '-n', NS, '-o', 'name']);
    expect(names.trim().split('\n')).to.include.members([`flunder.${GROUP}/one`, `flunder.${GROUP}/three`]);
    const watch = kubectl.stream(['get', 'flunders', '-n', NS, '-w', '-o', 'name']);
    try {
      await watch.waitForLine(new RegExp(`^flunder\\.${GROUP.replace(/\./g, '\\.')}/three$`), { timeoutMs: 15_000 });
      const from = watch.lines.length;
      const four = await kubectl.manifest('four.json', flunder('four'));
      await kubectl.ok(['create', '-n', NS, '-f', four]);
      await watch.waitForLine(/\/four$/, { from, timeoutMs: 15_000 });
    } finally {
      await watch.stop();
    }
  });

  it('shows a refusal of the upstream as kubectl shows an error Status', async () => {
    const r = await kubectl.run(['get', '--raw', `${FLUNDERS}/missing`]);
    expect(r.code).to.not.equal(0);
    expect(r.stderr).to.match(/NotFound|not found/);
  });
});
