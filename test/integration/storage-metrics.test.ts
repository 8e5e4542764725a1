// Storage metrics read from /metrics of started gateways on each backend: the etcd request family by operation and
// resource after known requests (and which failures count), object counts that follow the periodic refresh on the
// server's clock, the storage's size, and on PostgreSQL the connections, the LISTEN connection through an outage,
// and a second replica's revision lag.
import { expect } from 'chai';
import { labels, scrape, seriesOf, startWithoutRequestMetrics } from '../helpers/metrics-text.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually } from '../helpers/api.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { openWatch } from '../helpers/watch-client.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { OBJECT_COUNT_PERIOD_MS } from '../../gateway/metrics/storage-state-metrics.js';

/** One sample's value; undefined when the series is absent. */
async function sample(gh: TestGatehouse, name: string, values: Record<string, string>): Promise<number | undefined> {
  return seriesOf(await scrape(gh), name).get(labels(values));
}

const op = (operation: string, type = 'configmaps') => ({ operation, type });

/** The etcd request counters and latency counts of configmaps, by operation. */
async function configMapCalls(
  gh: TestGatehouse,
): Promise<Record<string, { total: number; errors: number; timed: number }>> {
  const text = await scrape(gh);
  const totals = seriesOf(text, 'etcd_requests_total');
  const errors = seriesOf(text, 'etcd_request_errors_total');
  const counts = seriesOf(text, 'etcd_request_duration_seconds_count');
  const out: Record<string, { total: number; errors: number; timed: number }> = {};
  for (const operation of ['get', 'list', 'create', 'update', 'delete', 'listWithCount', 'watch']) {
    const key = labels(op(operation));
    out[operation] = { total: totals.get(key) ?? 0, errors: errors.get(key) ?? 0, timed: counts.get(key) ?? 0 };
  }
  return out;
}

function delta(
  before: Awaited<ReturnType<typeof configMapCalls>>,
  after: Awaited<ReturnType<typeof configMapCalls>>,
): Record<string, string> {
  return Object.fromEntries(
    Object.keys(after).map((k) => [
      k,
      `${after[k].total - before[k].total}/${after[k].errors - before[k].errors}/${after[k].timed - before[k].timed}`,
    ]),
  );
}

const configMap = (name: string, data: Record<string, string> = {}) => ({ metadata: { name }, data });

for (const backend of ['memory', 'embedded']) {
  describe(`storage metrics on the ${backend} backend`, function () {
    this.timeout(60_000);
    let gh: TestGatehouse;
    let clock: ManualClock;
    before(async () => {
      clock = new ManualClock();
      gh = await startTestGatehouse(['--storage-backend', backend, '--history-window=1s'], { clock });
    });
    after(async () => gh?.close());

    it('counts and times each storage call by operation and resource; only failures to answer are errors', async () => {
      const ns = await createNamespace(gh, 'calls');
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const before = await configMapCalls(gh);
      expect((await gh.request('POST', cms, { body: configMap('a') })).status).to.equal(201);
      expect((await gh.request('POST', cms, { body: configMap('a') })).status).to.equal(409);
      expect((await gh.request('GET', `${cms}/a`)).status).to.equal(200);
      expect((await gh.request('GET', `${cms}/missing`)).status).to.equal(404);
      expect((await gh.request('GET', cms)).status).to.equal(200);
      const put = await gh.request('PUT', `${cms}/a`, { body: configMap('a', { k: 'v' }) });
      expect(put.status, put.body).to.equal(200);
      expect((await gh.request('DELETE', `${cms}/a`)).status).to.equal(200);
      // A missing key and an existing one are the storage's answers, not failures to answer (etcd's client reports
      // no error for them either). The DELETE reads the object before deleting it: three gets.
      expect(delta(before, await configMapCalls(gh))).to.deep.equal({
        get: '3/0/3',
        list: '1/0/1',
        create: '2/0/2',
        update: '1/0/1',
        delete: '1/0/1',
        listWithCount: '0/0/0',
        watch: '0/0/0',
      });

      const text = await scrape(gh);
      expect(text).to.include('# HELP etcd_request_duration_seconds [ALPHA] Etcd request latency in seconds');
      expect(text).to.include('# TYPE etcd_request_duration_seconds histogram');
      const buckets = [...seriesOf(text, 'etcd_request_duration_seconds_bucket').keys()].filter((k) =>
        k.endsWith(',operation="get",type="configmaps"}'),
      );
      expect(buckets.map((k) => /le="([^"]+)"/.exec(k)![1])).to.deep.equal(
        '0.005 0.025 0.05 0.1 0.2 0.4 0.6 0.8 1 1.25 1.5 2 3 4 5 6 8 10 15 20 30 45 60 +Inf'.split(' '),
      );
    });

    it('counts a read below the history window (Expired) as an error of its operation', async () => {
      const ns = await createNamespace(gh, 'expired');
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      const old = (await gh.request('POST', cms, { body: configMap('old') })).json().metadata.resourceVersion;
      // The oldest write still in the window stays readable: the read asks for one below it.
      expect((await gh.request('POST', cms, { body: configMap('older') })).status).to.equal(201);
      clock.advance(2_000);
      // A write after the window passed compacts it.
      expect((await gh.request('POST', cms, { body: configMap('new') })).status).to.equal(201);
      const before = await configMapCalls(gh);
      const res = await gh.request('GET', `${cms}?resourceVersion=${old}&resourceVersionMatch=Exact`);
      expect(res.status, res.body).to.equal(410);
      expect(delta(before, await configMapCalls(gh)).list).to.equal('1/1/1');
    });

    it('counts a watch once when it opens', async () => {
      const ns = await createNamespace(gh, 'watch');
      const before = await configMapCalls(gh);
      // The handler opens the storage watch before its headers go out, and openWatch resolves on the headers.
      const w = await openWatch(gh.url, `/api/v1/namespaces/${ns}/configmaps?watch=1`, {
        ca: gh.ca,
        token: gh.adminToken,
      });
      expect(w.status).to.equal(200);
      expect(
        (await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('w') })).status,
      ).to.equal(201);
      expect((await w.next()).type).to.equal('ADDED');
      w.close();
      const after = await configMapCalls(gh);
      // One open, however many events it carried; the create it saw counted as a create.
      expect(delta(before, after)).to.deep.include({ watch: '1/0/0', create: '1/0/1' });
    });

    it('reports object counts from the periodic refresh, not from the scrape', async () => {
      const ns = await createNamespace(gh, 'objects');
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      clock.advance(OBJECT_COUNT_PERIOD_MS);
      const counted = await sample(gh, 'apiserver_storage_objects', { resource: 'configmaps' });
      expect(counted).to.be.a('number').and.at.least(0);
      for (const name of ['x', 'y', 'z'])
        expect((await gh.request('POST', cms, { body: configMap(name) })).status).to.equal(201);
      expect(await sample(gh, 'apiserver_storage_objects', { resource: 'configmaps' })).to.equal(counted);
      clock.advance(OBJECT_COUNT_PERIOD_MS);
      expect(await sample(gh, 'apiserver_storage_objects', { resource: 'configmaps' })).to.equal(counted! + 3);
      expect((await gh.request('DELETE', `${cms}/y`)).status).to.equal(200);
      clock.advance(OBJECT_COUNT_PERIOD_MS);
      expect(await sample(gh, 'apiserver_storage_objects', { resource: 'configmaps' })).to.equal(counted! + 2);
      expect(await sample(gh, 'apiserver_storage_objects', { resource: 'namespaces' })).to.be.at.least(1);
    });

    if (backend === 'embedded') {
      it('reports the size of the log on disk, growing with writes', async () => {
        const size = () => sample(gh, 'apiserver_storage_size_bytes', { storage_cluster_id: 'embedded-0' });
        const first = await size();
        expect(first).to.be.above(0);
        const ns = await createNamespace(gh, 'size');
        const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
          body: configMap('big', { v: 'x'.repeat(10_000) }),
        });
        expect(res.status).to.equal(201);
        expect(await size()).to.be.at.least(first! + 10_000);
      });
    } else {
      it('reports no size and no connections: nothing is kept outside the process', async () => {
        const text = await scrape(gh);
        expect(text).to.include('# HELP apiserver_storage_size_bytes [STABLE]');
        expect(seriesOf(text, 'apiserver_storage_size_bytes').size).to.equal(0);
        expect(seriesOf(text, 'apiserver_storage_db_connections').size).to.equal(0);
        expect(seriesOf(text, 'apiserver_storage_listen_connected').size).to.equal(0);
      });
    }
  });
}

describe('storage metrics without request metrics (GATEHOUSE_REQUEST_METRICS=off)', function () {
  this.timeout(60_000);
  it('leaves the storage undecorated: no etcd request series, object counts still kept', async () => {
    const gh = await startWithoutRequestMetrics();
    try {
      expect((await gh.request('GET', '/api/v1/namespaces/default/configmaps')).status).to.equal(200);
      const text = await scrape(gh);
      expect(seriesOf(text, 'etcd_requests_total').size).to.equal(0);
      expect(seriesOf(text, 'apiserver_storage_objects').get(labels({ resource: 'configmaps' }))).to.equal(0);
    } finally {
      await gh.close();
    }
  });
});

describe('storage metrics on PostgreSQL', function () {
  this.timeout(120_000);
  let pg: TestPostgres;
  let a: TestGatehouse;
  let b: TestGatehouse;
  before(async () => {
    pg = await startPostgres({ fast: true });
    const args = ['--storage-backend', 'postgres', '--storage-url', pg.url];
    a = await startTestGatehouse(args, { clock: new ManualClock() });
    b = await startTestGatehouse(args, { clock: new ManualClock() });
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await pg?.stop();
  });

  it('counts storage calls, and reports the relations size growing, the connections and LISTEN', async () => {
    const ns = await createNamespace(a, 'pg');
    const cms = `/api/v1/namespaces/${ns}/configmaps`;
    const before = await configMapCalls(a);
    expect((await a.request('POST', cms, { body: configMap('a') })).status).to.equal(201);
    expect((await a.request('GET', `${cms}/a`)).status).to.equal(200);
    expect(delta(before, await configMapCalls(a))).to.deep.include({ create: '1/0/1', get: '1/0/1' });

    const size = () => sample(a, 'apiserver_storage_size_bytes', { storage_cluster_id: 'postgres-0' });
    const first = await size();
    expect(first).to.be.above(0);
    for (let i = 0; i < 20; i++) {
      const res = await a.request('POST', cms, { body: configMap(`big-${i}`, { v: `${i}`.repeat(20_000) }) });
      expect(res.status).to.equal(201);
    }
    expect(await size()).to.be.above(first!);

    const text = await scrape(a);
    const connections = seriesOf(text, 'apiserver_storage_db_connections');
    const state = (s: string) => connections.get(labels({ backend: 'postgres', state: s }));
    expect(state('idle')! + state('busy')!, 'connections open').to.be.at.least(1);
    expect(state('waiting')).to.equal(0);
    expect(seriesOf(text, 'apiserver_storage_listen_connected').get(labels({ backend: 'postgres' }))).to.equal(1);
  });

  it("reports a replica's revision lag as 0 once its cache caught up with another replica's writes", async () => {
    const ns = await createNamespace(a, 'lag');
    const created = await a.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('l') });
    expect(created.status).to.equal(201);
    // A consistent read on B waits until B's cache has the write.
    expect((await b.request('GET', `/api/v1/namespaces/${ns}/configmaps/l`)).status).to.equal(200);
    // Controllers may write meanwhile; what B lags by comes back to 0 once it applied them.
    await eventually('replica B caught up', async () =>
      (await sample(b, 'apiserver_storage_revision_lag', { backend: 'postgres' })) === 0 ? true : undefined,
    );
  });
});

describe('storage metrics on PostgreSQL while the database goes away', function () {
  this.timeout(120_000);
  let pg: TestPostgres;
  let gh: TestGatehouse;
  before(async () => {
    pg = await startPostgres({ fast: true });
    gh = await startTestGatehouse(['--storage-backend', 'postgres', '--storage-url', pg.url], {
      clock: new ManualClock(),
    });
  });
  after(async () => {
    await gh?.close();
    await pg?.stop();
  });

  it('reports LISTEN as lost while the database is down and as listening again after, scrapes still answering', async () => {
    const listen = () => sample(gh, 'apiserver_storage_listen_connected', { backend: 'postgres' });
    expect(await listen()).to.equal(1);
    await pg.kill();
    // The loss reaches the gateway from another process: no event to await.
    await eventually('LISTEN reported lost', async () => ((await listen()) === 0 ? true : undefined));
    const text = await scrape(gh);
    // What needs the database is left out, not waited for.
    expect(seriesOf(text, 'apiserver_storage_size_bytes').size).to.equal(0);
    expect(seriesOf(text, 'apiserver_storage_revision_lag').size).to.equal(0);
    await pg.restart();
    await eventually('LISTEN reported back', async () => ((await listen()) === 1 ? true : undefined), 20_000);
    expect(await sample(gh, 'apiserver_storage_size_bytes', { storage_cluster_id: 'postgres-0' })).to.be.above(0);
  });
});
