// The proxy on two gateway replicas over one PostgreSQL database: an APIService written through one replica routes
// requests on the other within a second, without a restart, because each follows the APIServices with its own
// informer. Its Available condition is set by the test (the availability controller is off), so the only thing
// timed is how soon the write reaches the other replica's table.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { replicasOnPostgres, type Replica } from '../helpers/replicas.js';
import { eventually } from '../helpers/api.js';
import { startUpstreamAPIServer, type UpstreamAPIServer } from '../helpers/upstream-apiserver.js';

const GROUP = 'replicated.example.io';
const VERSION = 'v1';
const NAME = `${VERSION}.${GROUP}`;
const SERVICE = { namespace: 'wardle', name: 'replicated' };
const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const FLUNDERS = `/apis/${GROUP}/${VERSION}/namespaces/x/flunders`;

describe('aggregator proxy across two replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let tmp: string;
  let upstream: UpstreamAPIServer;
  let a: Replica;
  let b: Replica;

  before(async () => {
    upstream = await startUpstreamAPIServer({ group: GROUP, version: VERSION, service: SERVICE });
    tmp = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-proxy-rep-'));
    const endpoints = path.join(tmp, 'endpoints.yaml');
    await writeFile(endpoints, JSON.stringify([{ ...SERVICE, port: 443, url: upstream.url }]));
    const args = [
      `--aggregator-endpoints-file=${endpoints}`,
      '--controllers=*,-serviceaccount,-root-ca-cert-publisher,-apiservice-availability-controller',
    ];
    [a, b] = await Promise.all([env.cluster.start('a', args), env.cluster.start('b', args)]);
  });
  after(async () => {
    await upstream?.close();
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  it('routes a group-version on one replica within a second of its APIService being written through the other', async () => {
    expect((await b.request('GET', FLUNDERS)).status).to.equal(404);
    const created = await a.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: NAME },
        spec: {
          group: GROUP,
          version: VERSION,
          service: SERVICE,
          caBundle: upstream.caBundle,
          groupPriorityMinimum: 1000,
          versionPriority: 15,
        },
      },
    });
    expect(created.status, created.body).to.equal(201);
    // Not Available yet: the other replica already knows the group-version is remote, and refuses with 503.
    const refused = await eventually(
      'replica b knows the APIService',
      async () => {
        const r = await b.request('GET', FLUNDERS);
        return r.status === 503 ? r : undefined;
      },
      1_000,
    );
    expect(refused.json().message).to.equal('service unavailable');
    const status = await a.request('PATCH', `${APISERVICES}/${NAME}/status`, {
      body: {
        status: {
          conditions: [
            {
              type: 'Available',
              status: 'True',
              reason: 'Passed',
              message: 'all checks passed',
              lastTransitionTime: '2026-01-01T00:00:00Z',
            },
          ],
        },
      },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(status.status, status.body).to.equal(200);
    const before = upstream.received.length;
    await eventually('replica b proxies', async () => (await b.request('GET', FLUNDERS)).status === 200, 1_000);
    expect(upstream.received.length).to.be.greaterThan(before);
    expect(upstream.received.at(-1)?.path).to.equal(FLUNDERS);
  });
});
