// Merged discovery with two gateway replicas on one PostgreSQL database: an APIService registered or deleted through
// one replica changes the discovery the other serves, through its own informer, with no periodic refresh between.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { replicasOnPostgres, type Replica } from '../helpers/replicas.js';
import { eventually } from '../helpers/api.js';
import { startAggregatedUpstream, type AggregatedUpstream } from '../helpers/upstream-aggregated.js';

const APISERVICES = '/apis/apiregistration.platform.io/v1/apiservices';
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const GROUP = 'wardle.example.io';

describe('merged discovery across two replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let tmp: string;
  let upstream: AggregatedUpstream;
  let a: Replica;
  let b: Replica;

  before(async () => {
    upstream = await startAggregatedUpstream({
      group: GROUP,
      version: 'v1alpha1',
      service: { namespace: 'wardle', name: 'api' },
      kinds: [{ resource: 'flunders', singular: 'flunder', kind: 'Flunder', field: 'reference' }],
    });
    tmp = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-discovery-rep-'));
    const endpoints = path.join(tmp, 'endpoints.json');
    await writeFile(endpoints, JSON.stringify([{ namespace: 'wardle', name: 'api', port: 443, url: upstream.url }]));
    const args = [`--aggregator-endpoints-file=${endpoints}`];
    [a, b] = await Promise.all([env.cluster.start('a', args), env.cluster.start('b', args)]);
  });
  after(async () => {
    await upstream?.close();
    await rm(tmp, { recursive: true, force: true });
  });

  const flunders = async (r: Replica): Promise<string[] | undefined> => {
    const res = await r.request('GET', '/apis', { headers: { accept: AGGREGATED_V2 } });
    expect(res.status, res.body).to.equal(200);
    const item = res.json().items.find((i: any) => i.metadata.name === GROUP);
    return item?.versions[0].resources.map((x: any) => x.resource);
  };

  it('lists an APIService registered through one replica in the discovery of the other', async () => {
    expect(await flunders(b)).to.equal(undefined);
    const res = await a.request('POST', APISERVICES, {
      body: {
        apiVersion: 'apiregistration.platform.io/v1',
        kind: 'APIService',
        metadata: { name: `v1alpha1.${GROUP}` },
        spec: {
          group: GROUP,
          version: 'v1alpha1',
          service: { namespace: 'wardle', name: 'api' },
          caBundle: upstream.caBundle,
          groupPriorityMinimum: 1000,
          versionPriority: 15,
        },
      },
    });
    expect(res.status, res.body).to.equal(201);
    // Well within the minute of the periodic refresh: the informer brought it.
    for (const r of [b, a]) {
      const listed = await eventually(
        `${r.name} lists flunders`,
        async () => {
          const got = await flunders(r);
          return got !== undefined && got.length > 0 && got;
        },
        5_000,
      );
      expect(listed).to.deep.equal(['flunders']);
    }
    const legacy = (await b.request('GET', '/apis')).json();
    expect(legacy.groups.map((g: any) => g.name)).to.include(GROUP);
  });

  it('forgets it on the other replica once deleted through one', async () => {
    const res = await b.request('DELETE', `${APISERVICES}/v1alpha1.${GROUP}`);
    expect(res.status, res.body).to.equal(200);
    await eventually('a forgets it', async () => (await flunders(a)) === undefined, 5_000);
  });
});
