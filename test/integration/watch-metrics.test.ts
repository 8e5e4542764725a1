// The watch metrics read from /metrics: open watches (apiserver_longrunning_requests, upstream's replacement for
// apiserver_registered_watchers, and that older gauge too), the events each watch sends and their sizes for every transport and media
// type, and each backend's watch-cache counters.
import { expect } from 'chai';
import http2 from 'node:http2';
import { labels, scrape, seriesOf, startWithoutRequestMetrics } from '../helpers/metrics-text.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, eventually } from '../helpers/api.js';
import { openWatch, type OpenWatch } from '../helpers/watch-client.js';
import { openProtobufWatch, type ProtobufWatch } from '../helpers/protobuf.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

const value = (text: string, name: string, values: Record<string, string>): number =>
  seriesOf(text, name).get(labels(values)) ?? 0;

/** A JSON watch over HTTP/2: the frames go to the stream, not to a connection of their own. */
async function openHttp2Watch(
  gh: TestGatehouse,
  urlPath: string,
): Promise<{ next(): Promise<unknown>; close(): void }> {
  const session = http2.connect(gh.url, { ca: gh.ca });
  session.on('error', () => {});
  const stream = session.request({ ':path': urlPath, authorization: `Bearer ${gh.adminToken}` });
  stream.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    stream.once('response', () => resolve());
    stream.once('error', reject);
  });
  const lines: string[] = [];
  let buffered = '';
  let wake: (() => void) | undefined;
  stream.on('data', (chunk: string) => {
    buffered += chunk;
    for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
      lines.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
    wake?.();
  });
  return {
    async next() {
      while (lines.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      return JSON.parse(lines.shift()!);
    },
    close: () => session.destroy(),
  };
}

describe('watch metrics', function () {
  this.timeout(120_000);

  describe('watches and the events they send (memory backend, a clock the test moves)', () => {
    let gh: TestGatehouse;
    let clock: ManualClock;
    const opened: { close(): void }[] = [];
    before(async () => {
      clock = new ManualClock();
      gh = await startTestGatehouse(['--storage-backend', 'memory'], { clock });
    });
    afterEach(() => {
      for (const w of opened.splice(0)) w.close();
    });
    after(async () => gh?.close());

    it('counts open watches in apiserver_longrunning_requests and apiserver_registered_watchers until the client leaves or the server times them out', async () => {
      const ns = await createNamespace(gh, 'watchers');
      const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&timeoutSeconds=30`;
      const watching = {
        verb: 'WATCH',
        group: '',
        version: 'v1',
        resource: 'configmaps',
        subresource: '',
        scope: 'namespace',
        component: 'apiserver',
      };
      const registered = { group: '', version: 'v1', kind: 'ConfigMap' };
      /** Open watches as both gauges count them, which must agree. */
      const open = async (): Promise<number> => {
        const text = await scrape(gh);
        const longrunning = value(text, 'apiserver_longrunning_requests', watching);
        expect(value(text, 'apiserver_registered_watchers', registered)).to.equal(longrunning);
        return longrunning;
      };
      const before = await open();
      const left = await openWatch(gh.url, path, { ca: gh.ca, token: gh.adminToken });
      const timedOut = await openWatch(gh.url, path, { ca: gh.ca, token: gh.adminToken });
      opened.push(left, timedOut);
      // openWatch resolves on the headers, which go out after the watch was counted.
      expect(await open()).to.equal(before + 2);

      left.close();
      await eventually('the watch the client closed no longer counted', async () => (await open()) === before + 1);

      clock.advance(30_000);
      await timedOut.ended;
      await eventually('the watch the server timed out no longer counted', async () => (await open()) === before);
    });

    it('counts and sizes every event each watch sends, by group, version and kind, over HTTP/1.1 and HTTP/2, in JSON and protobuf', async () => {
      const ns = await createNamespace(gh, 'events');
      const configMapsPath = `/api/v1/namespaces/${ns}/configmaps`;
      const secretsPath = `/api/v1/namespaces/${ns}/secrets`;
      const json: OpenWatch = await openWatch(gh.url, `${configMapsPath}?watch=1`, { ca: gh.ca, token: gh.adminToken });
      const overHttp2 = await openHttp2Watch(gh, `${configMapsPath}?watch=1`);
      const protobuf: ProtobufWatch = await openProtobufWatch(gh.url, `${secretsPath}?watch=1`, {
        ca: gh.ca,
        token: gh.adminToken,
      });
      opened.push(json, overHttp2, protobuf);
      const configMaps = { group: '', version: 'v1', kind: 'ConfigMap' };
      const secrets = { group: '', version: 'v1', kind: 'Secret' };
      const before = await scrape(gh);

      // Over 4 KiB and under 8 KiB in either encoding: each event lands in the 8 KiB bucket.
      const payload = 'x'.repeat(5000);
      const merge = { 'content-type': 'application/merge-patch+json' };
      expect((await gh.request('POST', configMapsPath, { body: cm('a', { payload }) })).status).to.equal(201);
      const patched = await gh.request('PATCH', `${configMapsPath}/a`, {
        headers: merge,
        body: { data: { more: 'y' } },
      });
      expect(patched.status, patched.body).to.equal(200);
      const secret = { metadata: { name: 's' }, data: { payload: Buffer.from(payload).toString('base64') } };
      expect((await gh.request('POST', secretsPath, { body: secret })).status).to.equal(201);
      expect((await gh.request('DELETE', `${secretsPath}/s`)).status).to.equal(200);
      const jsonEvents = [await json.next(), await json.next()];
      expect(jsonEvents.map((e) => e.type)).to.deep.equal(['ADDED', 'MODIFIED']);
      expect([await overHttp2.next(), await overHttp2.next()]).to.deep.equal(jsonEvents);
      expect([(await protobuf.next()).type, (await protobuf.next()).type]).to.deep.equal(['ADDED', 'DELETED']);

      const after = await scrape(gh);
      const delta = (name: string, kind: Record<string, string>, le?: string): number => {
        const series = le === undefined ? kind : { ...kind, le };
        return value(after, name, series) - value(before, name, series);
      };
      expect(delta('apiserver_watch_events_total', configMaps)).to.equal(4);
      expect(delta('apiserver_watch_events_sizes_count', configMaps)).to.equal(4);
      // A JSON frame is the event's line, counted without the HTTP/1.1 chunk framing: the same bytes as over HTTP/2.
      const jsonBytes = jsonEvents.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
      expect(delta('apiserver_watch_events_sizes_sum', configMaps)).to.equal(2 * jsonBytes);
      expect(delta('apiserver_watch_events_total', secrets)).to.equal(2);
      for (const kind of [configMaps, secrets]) {
        expect(delta('apiserver_watch_events_sizes_bucket', kind, '4096')).to.equal(0);
        expect(delta('apiserver_watch_events_sizes_bucket', kind, '8192')).to.equal(kind === secrets ? 2 : 4);
      }
      // upstream's buckets: 1 KiB doubling to 128 KiB.
      const bounds = [...seriesOf(after, 'apiserver_watch_events_sizes_bucket').keys()]
        .filter((key) => key.includes('kind="ConfigMap"'))
        .map((key) => /le="([^"]+)"/.exec(key)![1]);
      expect(bounds).to.deep.equal(['1024', '2048', '4096', '8192', '16384', '32768', '65536', '131072', '+Inf']);
      expect(after).to.include('# HELP apiserver_watch_events_total [ALPHA] Number of events sent in watch clients');
    });
  });

  it('with GATEHOUSE_REQUEST_METRICS=off records no watch events, and still reports the watch cache', async () => {
    const gh = await startWithoutRequestMetrics();
    try {
      const ns = await createNamespace(gh, 'off');
      const w = await openWatch(gh.url, `/api/v1/namespaces/${ns}/configmaps?watch=1`, {
        ca: gh.ca,
        token: gh.adminToken,
      });
      try {
        expect((await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: cm('a') })).status).to.equal(
          201,
        );
        expect((await w.next()).type).to.equal('ADDED');
      } finally {
        w.close();
      }
      const text = await scrape(gh);
      expect(text).not.to.include('apiserver_watch_events');
      expect(value(text, 'apiserver_watch_cache_events_received_total', { resource: 'configmaps' })).to.equal(1);
    } finally {
      await gh.close();
    }
  });

  describe('watch-cache figures of each backend', () => {
    let postgres: TestPostgres;
    before(async () => {
      postgres = await startPostgres({ fast: true });
    });
    after(async () => postgres?.stop());

    const backends: [string, () => string[]][] = [
      ['memory', () => ['--storage-backend', 'memory']],
      ['embedded', () => ['--storage-backend', 'embedded']],
      ['postgres', () => ['--storage-backend', 'postgres', '--storage-url', postgres.url]],
    ];
    for (const [backend, args] of backends) {
      it(`${backend}: the revision follows writes, each write is a received event, the cache was filled once`, async () => {
        const gh = await startTestGatehouse(args());
        try {
          const configMaps = { resource: 'configmaps' };
          const ns = await createNamespace(gh, 'cache');
          const collection = `/api/v1/namespaces/${ns}/configmaps`;
          const before = await scrape(gh);
          const revisionBefore = value(before, 'apiserver_watch_cache_resource_version', configMaps);
          expect(revisionBefore).to.be.above(0);

          const created = (await gh.request('POST', collection, { body: cm('a') })).json();
          const written = Number(created.metadata.resourceVersion);
          expect(written).to.be.above(revisionBefore);
          // PostgreSQL applies the committed row to its cache as the log reader delivers it, after the answer.
          const after = await eventually('the cache at the write', async () => {
            const text = await scrape(gh);
            return value(text, 'apiserver_watch_cache_resource_version', configMaps) >= written && text;
          });
          // One store caches every resource: all are at the same revision.
          const revisions = new Set(seriesOf(after, 'apiserver_watch_cache_resource_version').values());
          expect(revisions.size).to.equal(1);
          expect(value(after, 'apiserver_watch_cache_resource_version', { resource: 'replicasets.apps' })).to.equal(
            value(after, 'apiserver_watch_cache_resource_version', configMaps),
          );

          expect(
            (await gh.request('PUT', `${collection}/a`, { body: { ...created, data: { k: 'v' } } })).status,
          ).to.equal(200);
          expect((await gh.request('DELETE', `${collection}/a`)).status).to.equal(200);
          const received = (text: string): number =>
            value(text, 'apiserver_watch_cache_events_received_total', configMaps);
          await eventually(
            'the three writes received',
            async () => received(await scrape(gh)) - received(before) === 3,
          );

          const text = await scrape(gh);
          const initializations = seriesOf(text, 'apiserver_watch_cache_initializations_total');
          expect(initializations.get(labels(configMaps))).to.equal(1);
          expect(initializations.get(labels({ resource: 'roles.rbac.authorization.platform.io' }))).to.equal(1);
          // Served resources only, as `<resource>.<group>`: no key prefix or made-up resource becomes a label.
          for (const key of initializations.keys()) expect(key).to.match(/^{resource="[a-z0-9]+(\.[a-z0-9.-]+)?"}$/);
          expect(text).to.include(
            '# HELP apiserver_watch_cache_events_received_total [ALPHA] Counter of events received in watch cache broken by resource type.',
          );
        } finally {
          await gh.close();
        }
      });
    }
  });
});
