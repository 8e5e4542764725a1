// --event-ttl with two replicas on one PostgreSQL database: both keep expiry timers for every event, and the event
// written through one is deleted by whichever replica's timer fires first (the other's conditional delete finds
// nothing to delete).
import { expect } from 'chai';
import { replicasOnPostgres, watchFromList, type Replica } from '../helpers/replicas.js';
import { createNamespace } from '../helpers/api.js';
import { coreEvent } from '../helpers/events.js';

describe('--event-ttl across two replicas', function () {
  this.timeout(90_000);
  const env = replicasOnPostgres({ fast: true, names: [] });
  let a: Replica;
  let b: Replica;

  before(async () => {
    const args = ['--event-ttl=1s'];
    [a, b] = await Promise.all([env.cluster.start('a', args), env.cluster.start('b', args)]);
  });

  it('an event written through A expires, seen deleted through B', async () => {
    const ns = await createNamespace(a, 'ttl-rep');
    const watch = await watchFromList(b, `/api/v1/namespaces/${ns}/events`);
    try {
      const made = await a.request('POST', `/api/v1/namespaces/${ns}/events`, {
        body: coreEvent(ns, 'fleeting', { kind: 'Namespace', name: ns, namespace: ns }),
      });
      expect(made.status, made.body).to.equal(201);
      expect((await watch.next(10_000)).type).to.equal('ADDED');
      const gone = await watch.next(10_000);
      expect([gone.type, gone.object.metadata?.name]).to.deep.equal(['DELETED', 'fleeting']);
    } finally {
      watch.close();
    }
    expect((await a.request('GET', `/api/v1/namespaces/${ns}/events/fleeting`)).status).to.equal(404);
  });
});
