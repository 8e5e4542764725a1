// The priority and fairness controllers on two replicas of one PostgreSQL database: both start together on an empty
// database and race to create the bootstrap configuration (each object ends up once, nobody logs an error), a
// mandatory object deleted through one comes back, and a FlowSchema's Dangling condition is written once per change,
// not once per replica.
import { expect } from 'chai';
import { uniqueName } from '../helpers/api.js';
import { replicasOnPostgres, watchFromList, type Replica } from '../helpers/replicas.js';
import type { WatchEventJSON } from '../helpers/watch-client.js';
import { danglingOf, FC, flowSchemaBody, priorityLevelBody } from '../helpers/flowcontrol.js';

describe('flowcontrol controllers across two replicas', function () {
  this.timeout(120_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let a: Replica;
  let b: Replica;

  before(async () => {
    [a, b] = await Promise.all([env.cluster.start('a'), env.cluster.start('b')]);
  });

  const names = async (r: Replica, collection: string) => {
    const res = await r.request('GET', `${FC}/${collection}`);
    expect(res.status, res.body).to.equal(200);
    return (res.json().items as { metadata: { name: string } }[]).map((o) => o.metadata.name).sort();
  };

  it('creates the bootstrap configuration once, whichever replica got there first', async () => {
    for (const collection of ['prioritylevelconfigurations', 'flowschemas']) {
      const seenByA = await names(a, collection);
      expect(seenByA).to.have.length(collection === 'flowschemas' ? 13 : 8);
      expect(await names(b, collection)).to.deep.equal(seenByA);
    }
    for (const r of [a, b]) expect(r.output()).to.not.match(/priority and fairness bootstrap|flowschema status/);
  });

  it('brings back through one replica a mandatory level deleted through the other', async () => {
    const watch = await watchFromList(b, `${FC}/prioritylevelconfigurations`);
    try {
      const deleted = await a.request('DELETE', `${FC}/prioritylevelconfigurations/catch-all`);
      expect(deleted.status, deleted.body).to.equal(200);
      const next = async () => {
        for (;;) {
          const e = await watch.next(10_000);
          if (e.object.metadata?.name === 'catch-all') return e.type;
        }
      };
      expect(await next()).to.equal('DELETED');
      expect(await next()).to.equal('ADDED');
    } finally {
      watch.close();
    }
  });

  it('writes a Dangling condition once per change', async () => {
    const watch = await watchFromList(a, `${FC}/flowschemas`);
    const name = uniqueName('fs-rep');
    const level = uniqueName('pl-rep');
    const events: WatchEventJSON[] = [];
    const until = async (test: (e: WatchEventJSON) => boolean) => {
      for (;;) {
        const e = await watch.next(10_000);
        if (e.object.metadata?.name === name) events.push(e);
        if (test(e)) return;
      }
    };
    const statusOf = (e: WatchEventJSON) => danglingOf(e.object)?.status;
    try {
      const created = await a.request('POST', `${FC}/flowschemas`, {
        body: flowSchemaBody(
          { name },
          {
            priorityLevelConfiguration: { name: level },
            rules: [
              {
                subjects: [{ kind: 'User', user: { name: 'tenant' } }],
                nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }],
              },
            ],
          },
        ),
      });
      expect(created.status, created.body).to.equal(201);
      await until((e) => e.object.metadata?.name === name && statusOf(e) === 'True');
      const plc = await b.request('POST', `${FC}/prioritylevelconfigurations`, {
        body: priorityLevelBody({ name: level }, { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } }),
      });
      expect(plc.status, plc.body).to.equal(201);
      await until((e) => e.object.metadata?.name === name && statusOf(e) === 'False');
      // Both replicas look at every schema again when a level appears: a marker schema judged after that shows
      // both passes ran; a replica writing what the other wrote would have added events for `name` by then.
      const marker = uniqueName('fs-marker');
      const markerMade = await b.request('POST', `${FC}/flowschemas`, {
        body: { ...created.json(), metadata: { name: marker }, status: undefined },
      });
      expect(markerMade.status, markerMade.body).to.equal(201);
      await until((e) => e.object.metadata?.name === marker && statusOf(e) === 'False');
    } finally {
      watch.close();
    }
    expect(events.map((e) => `${e.type} ${statusOf(e) ?? '-'}`)).to.deep.equal([
      'ADDED -',
      'MODIFIED True',
      'MODIFIED False',
    ]);
  });
});
