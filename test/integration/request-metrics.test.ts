// Request, authentication and health check metrics read from /metrics and /metrics/slis after kubectl-like requests,
// and the bound on their series when clients send whatever paths, resources and user names they like.
import { expect } from 'chai';
import http2 from 'node:http2';
import tls from 'node:tls';
import os from 'node:os';
import path from 'node:path';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { labels, scrape as scrapeOf, seriesOf } from '../helpers/metrics-text.js';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { eventually } from '../helpers/api.js';

const ALICE = 'alice-token-request-metrics';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

const route = (verb: string, resource: string, scope: string, extra: Record<string, string> = {}) => ({
  verb,
  dry_run: '',
  group: '',
  version: resource ? 'v1' : '',
  resource,
  subresource: '',
  scope,
  component: 'apiserver',
  ...extra,
});

describe('request metrics', function () {
  this.timeout(120_000);
  let dir: string;
  let gh: TestGatehouse;
  const scrape = (urlPath?: string): Promise<string> => scrapeOf(gh, urlPath);

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-request-metrics-'));
    await writeFile(path.join(dir, 'tokens.csv'), `${ALICE},alice@example.com,alice-uid,"staff"\n`);
    gh = await startTestGatehouse([
      '--storage-backend',
      'memory',
      '--token-auth-file',
      path.join(dir, 'tokens.csv'),
      '--max-requests-inflight=1',
      // The simple limiter's 429 (priority and fairness has its own test and metrics).
      '--enable-priority-and-fairness=false',
    ]);
  });
  after(async () => {
    await gh?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('counts GET, LIST, WATCH, APPLY, dry-run, 404 and 429 requests with kube-apiserver labels', async () => {
    const apply = (name: string): Promise<GatehouseResponse> =>
      gh.request('PATCH', `${CONFIGMAPS}/${name}?fieldManager=metrics-test`, {
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } }),
      });
    expect((await apply('applied')).status).to.equal(201);
    expect((await gh.request('GET', `${CONFIGMAPS}/applied`)).status).to.equal(200);
    expect((await gh.request('GET', `${CONFIGMAPS}/missing`)).status).to.equal(404);
    expect((await gh.request('GET', CONFIGMAPS)).status).to.equal(200);
    const dryRun = await gh.request('POST', `${CONFIGMAPS}?dryRun=All`, { body: { metadata: { name: 'dry' } } });
    expect(dryRun.status, dryRun.body).to.equal(201);
    // The watch ends by its own timeout: its answer streams until then.
    const watch = await gh.request('GET', `${CONFIGMAPS}?watch=1&timeoutSeconds=1`);
    expect(watch.status).to.equal(200);
    expect((await gh.request('GET', '/apis/made.up.example/v1/namespaces/x/widgets/y')).status).to.equal(404);

    // A read held in flight (a list at a revision not reached yet) makes alice's next read a 429.
    const current = BigInt((await gh.request('GET', '/api/v1/namespaces')).json().metadata.resourceVersion);
    const waiting = gh.request(
      'GET',
      `/api/v1/namespaces?resourceVersion=${current + 1n}&resourceVersionMatch=NotOlderThan`,
      { token: ALICE },
    );
    let refused: GatehouseResponse | undefined;
    for (let i = 0; i < 50 && refused?.status !== 429; i++)
      refused = await gh.request('GET', '/api/v1/namespaces/default', { token: ALICE });
    expect(refused?.status).to.equal(429);
    expect(
      (await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: 'metrics-ns' } } })).status,
    ).to.equal(201);
    expect((await waiting).status).to.equal(200);

    const text = await scrape();
    const configmaps = new Map(
      [...seriesOf(text, 'apiserver_request_total')].filter(([key]) => key.includes('resource="configmaps"')),
    );
    expect(configmaps).to.deep.equal(
      new Map([
        [labels({ ...route('APPLY', 'configmaps', 'resource'), code: '201' }), 1],
        [labels({ ...route('GET', 'configmaps', 'resource'), code: '200' }), 1],
        [labels({ ...route('GET', 'configmaps', 'resource'), code: '404' }), 1],
        [labels({ ...route('LIST', 'configmaps', 'namespace'), code: '200' }), 1],
        [labels({ ...route('CREATE', 'configmaps', 'resource', { dry_run: 'All' }), code: '201' }), 1],
        [labels({ ...route('WATCH', 'configmaps', 'namespace'), code: '200' }), 1],
      ]),
    );
    const total = seriesOf(text, 'apiserver_request_total');
    // A resource nobody serves is one collapsed series, its path nowhere.
    expect(total.get(labels({ ...route('GET', '', 'resource'), code: '404' }))).to.equal(1);
    expect(text).not.to.include('made.up.example');
    expect(total.get(labels({ ...route('GET', 'namespaces', 'resource'), code: '429' }))).to.be.at.least(1);
    const terminations = seriesOf(text, 'apiserver_request_terminations_total');
    const { dry_run: _, ...terminated } = route('GET', 'namespaces', 'resource');
    expect(terminations.get(labels({ ...terminated, code: '429' }))).to.equal(
      total.get(labels({ ...route('GET', 'namespaces', 'resource'), code: '429' })),
    );

    const watchDuration = seriesOf(text, 'apiserver_request_duration_seconds_count');
    expect(watchDuration.get(labels(route('WATCH', 'configmaps', 'namespace')))).to.equal(1);
    // Upstream's SLI leaves watches out; its response sizes are reads' only.
    const { dry_run: __, ...watchRoute } = route('WATCH', 'configmaps', 'namespace');
    expect(seriesOf(text, 'apiserver_request_sli_duration_seconds_count').has(labels(watchRoute))).to.equal(false);
    const { dry_run: ___, ...listRoute } = route('LIST', 'configmaps', 'namespace');
    expect(seriesOf(text, 'apiserver_response_sizes_count').get(labels(listRoute))).to.equal(1);
    expect(seriesOf(text, 'apiserver_longrunning_requests').get(labels(watchRoute))).to.equal(0);
    const readOnly = seriesOf(text, 'apiserver_current_inflight_requests').get(labels({ request_kind: 'readOnly' }));
    expect(readOnly).to.be.at.least(1);

    for (const filter of ['authentication', 'impersonation', 'authorization'])
      expect(seriesOf(text, 'apiserver_request_filter_duration_seconds_count').get(labels({ filter }))).to.be.above(0);
    expect(seriesOf(text, 'authentication_attempts').get(labels({ result: 'success' }))).to.be.above(0);
    const users = seriesOf(text, 'authenticated_user_requests');
    expect(users.get('{username="email_id"}')).to.be.above(0);
    expect(users.get('{username="system:admin"}')).to.be.above(0);
    expect(text).not.to.include('alice');
    // prom-client's process metrics and the authorization ones, on the same registry.
    expect(text).to.include('\nprocess_cpu_user_seconds_total ');
    expect(text).to.include('# HELP apiserver_request_total [STABLE] ');
    expect(text).to.include('apiserver_authorization_decisions_total{');
  });

  it('counts health check results at /metrics/slis', async () => {
    expect((await gh.request('GET', '/readyz')).status).to.equal(200);
    expect((await gh.request('GET', '/livez/ping')).status).to.equal(200);
    const text = await scrape('/metrics/slis');
    expect(seriesOf(text, 'kubernetes_healthcheck').get(labels({ name: 'etcd-readiness', type: 'readyz' }))).to.equal(
      1,
    );
    expect(
      seriesOf(text, 'kubernetes_healthchecks_total').get(labels({ name: 'ping', type: 'livez', status: 'success' })),
    ).to.be.at.least(1);
    expect(text).not.to.include('apiserver_request_total');
    // A non-resource path like /metrics: it went through authorization (only admitted requests are counted).
    const scrapes = seriesOf(await scrape(), 'apiserver_request_total');
    expect(scrapes.get(labels({ ...route('GET', '', ''), subresource: '/metrics/slis', code: '200' }))).to.equal(1);
  });

  it('counts failed TLS handshakes', async () => {
    const { port } = new URL(gh.url);
    // A client that does not trust the serving certificate ends the handshake with an alert.
    await new Promise<void>((resolve) => {
      const socket = tls.connect({ host: '127.0.0.1', port: Number(port), servername: 'localhost' });
      socket.on('error', () => resolve());
      socket.on('secureConnect', () => {
        socket.destroy();
        resolve();
      });
    });
    await eventually('a counted handshake error', async () => {
      const count = seriesOf(await scrape(), 'apiserver_tls_handshake_errors_total').get('');
      return count !== undefined && count >= 1;
    });
  });

  it('keeps the series of every request metric bounded under 10,000 requests for random paths, resources and users', async () => {
    const before = await scrape();
    const session = http2.connect(gh.url, { ca: gh.ca });
    session.on('error', () => {});
    const random = (): string => Math.random().toString(36).slice(2, 10);
    const paths = [
      () => `/apis/g${random()}.example/v1/r${random()}/${random()}`,
      () => `/api/v1/namespaces/n${random()}/r${random()}`,
      () => `/api/v1/namespaces/default/configmaps/${random()}`,
      () => `/api/v1/namespaces/default/configmaps/${random()}/s${random()}`,
      () => `/${random()}/${random()}`,
      () => `/apis/apps/v9${random()}/deployments`,
    ];
    const send = (i: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const user = i % 2 === 0 ? `u${random()}@example.com` : `u${random()}`;
        const stream = session.request({
          ':method': i % 7 === 0 ? 'PROPFIND' : 'GET',
          ':path': paths[i % paths.length](),
          authorization: `Bearer ${gh.adminToken}`,
          'impersonate-user': user,
        });
        stream.on('response', () => {});
        stream.on('error', reject);
        stream.on('end', resolve);
        stream.resume();
        stream.end();
      });
    try {
      for (let i = 0; i < 10_000; i += 100) await Promise.all(Array.from({ length: 100 }, (_, j) => send(i + j)));
    } finally {
      session.close();
    }
    const after = await scrape();
    for (const name of [
      'apiserver_request_total',
      'apiserver_request_duration_seconds_count',
      'apiserver_request_sli_duration_seconds_count',
      'apiserver_response_sizes_count',
      'apiserver_request_terminations_total',
      'apiserver_longrunning_requests',
      'authenticated_user_requests',
    ]) {
      // Whatever the 10,000 requests asked for, a few dozen label sets at most.
      const added = seriesOf(after, name).size - seriesOf(before, name).size;
      expect(added, name).to.be.at.most(40);
    }
  });
});

describe('request metrics of --request-timeout', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse(['--storage-backend', 'memory', '--request-timeout=200ms']);
  });
  after(async () => gh?.close());

  it('count the 504 of a request the timeout filter ended as a termination', async () => {
    const current = BigInt((await gh.request('GET', '/api/v1/namespaces')).json().metadata.resourceVersion);
    // A list at a revision not reached yet waits for it, past the request timeout.
    const waiting = await gh.request(
      'GET',
      `/api/v1/namespaces?resourceVersion=${current + 5n}&resourceVersionMatch=NotOlderThan`,
    );
    expect(waiting.status, waiting.body).to.equal(504);
    const text = (await gh.request('GET', '/metrics')).body;
    const { dry_run: _, ...list } = route('LIST', 'namespaces', 'cluster');
    expect(seriesOf(text, 'apiserver_request_terminations_total').get(labels({ ...list, code: '504' }))).to.equal(1);
    expect(
      seriesOf(text, 'apiserver_request_total').get(labels({ ...route('LIST', 'namespaces', 'cluster'), code: '504' })),
    ).to.equal(1);
  });
});
