// The CustomResourceDefinition status controller with two replicas on one PostgreSQL database, both running it: two
// definitions written at once through different replicas and asking for one short name end with exactly one holding
// it, as both replicas read it; a definition written on one is established as the other reads it, and one deleted
// through the other goes away once its finalizer is let go; the objects a definition defines are served by both.
import { expect } from 'chai';
import { replicasOnPostgres, type Replica } from '../helpers/replicas.js';
import { eventually } from '../helpers/api.js';
import { APIEXT, APIEXT_K8S, crd } from '../helpers/crds.js';

const condition = (obj: any, type: string) => (obj.status?.conditions ?? []).find((c: any) => c.type === type);

describe('CustomResourceDefinition status across two replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let a: Replica;
  let b: Replica;

  before(async () => {
    [a, b] = await Promise.all([env.cluster.start('a', []), env.cluster.start('b', [])]);
  });

  const read = async (r: Replica, name: string) => {
    const res = await r.request('GET', `${APIEXT}/customresourcedefinitions/${name}`);
    expect(res.status, res.body).to.equal(200);
    return res.json();
  };

  it('gives a short name asked for at once through both replicas to exactly one definition', async () => {
    const names = (plural: string, kind: string) => ({ spec: { names: { plural, kind, shortNames: ['dup'] } } });
    const [one, two] = await Promise.all([
      a.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, {
        body: crd('ones', 'race.example.com', names('ones', 'One')),
      }),
      b.request('POST', `${APIEXT_K8S}/customresourcedefinitions`, {
        body: crd('twos', 'race.example.com', names('twos', 'Two')),
      }),
    ]);
    expect([one.status, two.status]).to.deep.equal([201, 201]);
    // Each replica may first accept the name for the definition it saw; the next pass settles it on one.
    const holders = (objs: any[]) => objs.filter((o) => o.status?.acceptedNames?.shortNames?.includes('dup'));
    const settled = async (r: Replica) => {
      const objs = await Promise.all(['ones', 'twos'].map((p) => read(r, `${p}.race.example.com`)));
      const decided = objs.every((o) => condition(o, 'NamesAccepted'));
      return decided && holders(objs).length === 1 ? objs : undefined;
    };
    const onA = await eventually('one holder', () => settled(a));
    const [holder] = holders(onA);
    expect(condition(holder, 'NamesAccepted')).to.include({ status: 'True' });
    const other = onA.find((o) => o !== holder);
    expect(condition(other, 'NamesAccepted')).to.include({
      status: 'False',
      reason: 'ShortNamesConflict',
      message: '"dup" is already in use',
    });
    const onB = await settled(b);
    expect(onB?.map((o) => o.status)).to.deep.equal(onA.map((o) => o.status));
  });

  it('establishes on one replica what was written on the other, and lets a deletion through the other finish', async () => {
    const res = await a.request('POST', `${APIEXT}/customresourcedefinitions`, {
      body: { ...crd('things', 'replicas.example.com'), apiVersion: 'apiextensions.platform.io/v1' },
    });
    expect(res.status, res.body).to.equal(201);
    await eventually('established, read on b', async () => {
      const o = await read(b, 'things.replicas.example.com');
      return condition(o, 'Established')?.status === 'True';
    });
    expect(
      (await b.request('DELETE', `${APIEXT}/customresourcedefinitions/things.replicas.example.com`)).status,
    ).to.equal(200);
    await eventually(
      'gone on a',
      async () =>
        (await a.request('GET', `${APIEXT}/customresourcedefinitions/things.replicas.example.com`)).status === 404,
    );
  });

  it('serves the objects of a definition written on one replica from the other within a second, and stops with it', async () => {
    const res = await a.request('POST', `${APIEXT}/customresourcedefinitions`, {
      body: {
        ...crd('gizmos', 'replicas.example.com', { spec: { scope: 'Cluster' } }),
        apiVersion: 'apiextensions.platform.io/v1',
      },
    });
    expect(res.status, res.body).to.equal(201);
    const gizmos = '/apis/replicas.example.com/v1alpha1/gizmos';
    await eventually('served on b', async () => (await b.request('GET', gizmos)).status === 200, 1000);
    const created = await b.request('POST', gizmos, {
      body: { apiVersion: 'replicas.example.com/v1alpha1', kind: 'Gizmo', metadata: { name: 'g' }, spec: {} },
    });
    expect(created.status, created.body).to.equal(201);
    expect(created.json().spec).to.deep.equal({ replicas: 1 });
    const onA = await eventually('served on a', async () => {
      const r = await a.request('GET', `${gizmos}/g`);
      return r.status === 200 ? r.json() : undefined;
    });
    expect(onA.metadata.uid).to.equal(created.json().metadata.uid);

    const deleted = await b.request('DELETE', `${APIEXT}/customresourcedefinitions/gizmos.replicas.example.com`);
    expect(deleted.status, deleted.body).to.be.oneOf([200, 202]);
    await eventually('unserved on a', async () => (await a.request('GET', gizmos)).status === 404, 3000);
    await eventually('unserved on b', async () => (await b.request('GET', gizmos)).status === 404, 1000);
  });
});
