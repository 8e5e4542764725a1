// --event-ttl: events are deleted a TTL after their last write, on every backend, by each replica's expiry timers.
// The TTL here is short and the test awaits the DELETED watch event rather than sleeping.
import { expect } from 'chai';
import { createNamespace } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch } from '../helpers/watch-client.js';
import { lastWriteTime } from '../../gateway/controllers/event-ttl.js';
import { coreEvent } from '../helpers/events.js';

describe('--event-ttl', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startTestGatehouse(['--event-ttl=1500ms']);
    ns = await createNamespace(gh, 'ttl');
  });
  after(async () => {
    await gh?.close();
  });

  it('deletes an event once the TTL passed since its last write, and leaves other kinds alone', async () => {
    const cm = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
      body: { metadata: { name: 'stays' } },
    });
    expect(cm.status).to.equal(201);
    const made = await gh.request('POST', `/api/v1/namespaces/${ns}/events`, {
      body: coreEvent(ns, 'short-lived', { kind: 'ConfigMap', namespace: ns, name: 'stays' }),
    });
    expect(made.status, made.body).to.equal(201);
    const createdAt = Date.now();
    const watch = await openWatch(
      gh.url,
      `/api/v1/namespaces/${ns}/events?watch=true&resourceVersion=${made.json().metadata.resourceVersion}`,
      { ca: gh.ca, token: gh.adminToken },
    );
    try {
      // A write restarts the clock: the event must outlive the first deadline.
      const labelled = await gh.request('PATCH', `/api/v1/namespaces/${ns}/events/short-lived`, {
        body: { metadata: { labels: { touched: 'yes' } } },
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(labelled.status, labelled.body).to.equal(200);
      const touchedAt = Date.now();
      expect((await watch.next(5_000)).type).to.equal('MODIFIED');
      const gone = await watch.next(10_000);
      expect(gone.type).to.equal('DELETED');
      expect(gone.object.metadata?.name).to.equal('short-lived');
      expect(Date.now() - touchedAt).to.be.at.least(1_400);
      expect(Date.now() - createdAt).to.be.at.least(1_500);
    } finally {
      watch.close();
    }
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/events/short-lived`)).status).to.equal(404);
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/stays`)).status).to.equal(200);
  });

  it('counts an event listed at start from the newest write time it records', () => {
    const obj = {
      metadata: {
        creationTimestamp: '2026-01-01T00:00:00Z',
        managedFields: [
          { manager: 'a', time: '2026-01-01T00:10:00Z' },
          { manager: 'b', time: '2026-01-01T00:05:00Z' },
        ],
      },
    };
    expect(lastWriteTime(obj)).to.equal(Date.parse('2026-01-01T00:10:00Z'));
    expect(lastWriteTime({ metadata: {} })).to.equal(undefined);
  });
});
