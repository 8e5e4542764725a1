// Both Event APIs over real HTTPS: core/v1 events and events.platform.io/v1 (also spelled events.k8s.io/v1) serve one
// set of objects, each in its own form; validation per API; the field selectors kubectl describe and kubectl events
// send; the printer columns of `kubectl get events`; protobuf both ways.
import { expect } from 'chai';
import { createNamespace, eventually, expectFailure } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';
import { PROTOBUF_HEADERS, PROTOBUF_MEDIA_TYPE } from '../helpers/protobuf.js';
import { coreEvent, eventsV1Event } from '../helpers/events.js';
import { openWatch } from '../helpers/watch-client.js';

const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

describe('Event APIs (core/v1 and events.platform.io/v1)', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'events');
  });
  after(async () => {
    await gh?.close();
  });

  const ok = async (method: string, path: string, body?: unknown, code = 200, headers?: Record<string, string>) => {
    const res = await gh.request(method, path, { body, headers });
    expect(res.status, res.body).to.equal(code);
    return res.json();
  };

  it('creates an events.k8s.io/v1 Event, reads it as core/v1 and back as events.platform.io/v1', async () => {
    const made = await ok(
      'POST',
      `/apis/events.k8s.io/v1/namespaces/${ns}/events`,
      eventsV1Event(ns, 'new-style'),
      201,
    );
    expect(made).to.include({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      note: 'a new-style event',
      reportingController: 'example.com/tester',
    });
    const core = await ok('GET', `/api/v1/namespaces/${ns}/events/new-style`);
    expect(core).to.include({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'a new-style event',
      reportingComponent: 'example.com/tester',
      reportingInstance: 'tester-1',
      action: 'Testing',
    });
    expect(core.involvedObject).to.deep.equal({ kind: 'ConfigMap', namespace: ns, name: 'cm1', apiVersion: 'v1' });
    expect(core).to.not.have.any.keys('regarding', 'note', 'reportingController');
    expect(core.metadata.resourceVersion).to.equal(made.metadata.resourceVersion);
    const ours = await ok('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events/new-style`);
    expect(ours.apiVersion).to.equal('events.platform.io/v1');
    const { apiVersion: _a, ...madeRest } = made;
    const { apiVersion: _b, ...oursRest } = ours;
    expect(oursRest).to.deep.equal(madeRest);
  });

  it('reads a core/v1 Event through events.platform.io/v1 with the deprecated fields, and writes it back', async () => {
    await ok(
      'POST',
      `/api/v1/namespaces/${ns}/events`,
      coreEvent(ns, 'old-style', { kind: 'ConfigMap', namespace: ns, name: 'cm2' }),
      201,
    );
    const v1 = await ok('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events/old-style`);
    expect(v1).to.include({
      note: 'something happened to cm2',
      deprecatedCount: 1,
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      type: 'Normal',
    });
    expect(v1.deprecatedSource).to.deep.equal({ component: 'events-test' });
    expect(v1.regarding).to.deep.equal({ kind: 'ConfigMap', namespace: ns, name: 'cm2' });
    // An update through the new API may not change what the event says, but may touch metadata.
    const labelled = await ok('PUT', `/apis/events.platform.io/v1/namespaces/${ns}/events/old-style`, {
      ...v1,
      metadata: { ...v1.metadata, labels: { seen: 'yes' } },
    });
    expect(labelled.metadata.labels).to.deep.equal({ seen: 'yes' });
    const changed = expectFailure(
      await gh.request('PUT', `/apis/events.platform.io/v1/namespaces/${ns}/events/old-style`, {
        body: { ...labelled, note: 'rewritten' },
      }),
      422,
      'Invalid',
    );
    expect(changed.message).to.contain('message: Invalid value: "rewritten": field is immutable');
    const core = await ok('GET', `/api/v1/namespaces/${ns}/events/old-style`);
    expect(core.metadata.labels).to.deep.equal({ seen: 'yes' });
    expect(core.count).to.equal(1);
  });

  it('lists, watches and deletes one set of objects through both APIs', async () => {
    const core = await ok('GET', `/api/v1/namespaces/${ns}/events`);
    const v1 = await ok('GET', `/apis/events.platform.io/v1/namespaces/${ns}/events`);
    expect(v1.kind).to.equal('EventList');
    expect(v1.items.map((e: any) => e.metadata.name).sort()).to.deep.equal(
      core.items.map((e: any) => e.metadata.name).sort(),
    );
    expect(v1.items.every((e: any) => e.apiVersion === 'events.platform.io/v1')).to.equal(true);
    expect(v1.metadata.resourceVersion).to.be.a('string');

    const watch = await openWatch(
      gh.url,
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?watch=true&resourceVersion=${v1.metadata.resourceVersion}`,
      { ca: gh.ca, token: gh.adminToken },
    );
    try {
      await ok(
        'POST',
        `/api/v1/namespaces/${ns}/events`,
        coreEvent(ns, 'watched', { kind: 'ConfigMap', namespace: ns, name: 'cm9' }),
        201,
      );
      const added = await watch.next(5_000);
      expect(added.type).to.equal('ADDED');
      expect(added.object).to.include({
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        note: 'something happened to cm9',
        deprecatedCount: 1,
      });
      await ok('DELETE', `/apis/events.k8s.io/v1/namespaces/${ns}/events/watched`);
      const deleted = await watch.next(5_000);
      expect([deleted.type, deleted.object.apiVersion, deleted.object.metadata?.name]).to.deep.equal([
        'DELETED',
        'events.k8s.io/v1',
        'watched',
      ]);
    } finally {
      watch.close();
    }
    expectFailure(await gh.request('GET', `/api/v1/namespaces/${ns}/events/watched`), 404, 'NotFound');
  });

  it('refuses new events.platform.io/v1 Events that miss what the new API requires, naming each field', async () => {
    const body = eventsV1Event(ns, 'bad', 'events.platform.io', {
      type: 'Info',
      action: '',
      reportingController: '',
      reportingInstance: '',
      reason: 'x'.repeat(129),
      deprecatedCount: 3,
      deprecatedSource: { component: 'old' },
      deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      deprecatedLastTimestamp: '2026-01-01T00:00:00Z',
      series: { count: 1, lastObservedTime: '2026-01-01T00:00:00.000001Z' },
    });
    const status = expectFailure(
      await gh.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, { body }),
      422,
      'Invalid',
    );
    expect(status.message).to.match(/^Event\.events\.platform\.io "bad" is invalid: /);
    const fields = status.details.causes.map((c: any) => c.field);
    for (const field of [
      'type',
      'action',
      'reason',
      'reportingController',
      'reportingInstance',
      'deprecatedCount',
      'deprecatedSource',
      'deprecatedFirstTimestamp',
      'deprecatedLastTimestamp',
      'series.count',
    ]) {
      expect(fields, field).to.include(field);
    }
    expect(status.message).to.contain('type: Invalid value: "": has invalid value: Info');
    expect(status.message).to.contain('deprecatedCount: Invalid value: "": needs to be unset');
    const untimed = expectFailure(
      await gh.request('POST', `/apis/events.platform.io/v1/namespaces/${ns}/events`, {
        body: eventsV1Event(ns, 'untimed', 'events.platform.io', { eventTime: undefined }),
      }),
      422,
      'Invalid',
    );
    expect(untimed.message).to.equal('Event.events.platform.io "untimed" is invalid: eventTime: Required value');
  });

  it('asks new-style core/v1 Events for the reporting fields under their core names', async () => {
    const body = coreEvent(
      ns,
      'half-new',
      { kind: 'ConfigMap', namespace: ns, name: 'cm3' },
      { eventTime: '2026-01-01T00:00:00.000000Z' },
    );
    const status = expectFailure(await gh.request('POST', `/api/v1/namespaces/${ns}/events`, { body }), 422, 'Invalid');
    expect(status.message).to.contain('reportingComponent: Required value');
    expect(status.message).to.contain('reportingInstance: Required value');
    expect(status.message).to.contain('action: Required value');
  });

  it('refuses a core/v1 Event whose involved object lives in another namespace', async () => {
    const body = coreEvent(ns, 'elsewhere', { kind: 'ConfigMap', namespace: 'other', name: 'cm' });
    const status = expectFailure(await gh.request('POST', `/api/v1/namespaces/${ns}/events`, { body }), 422, 'Invalid');
    expect(status.message).to.equal(
      `Event "elsewhere" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace`,
    );
  });

  it('selects events by the involved object, as kubectl describe asks', async () => {
    await ok(
      'POST',
      `/api/v1/namespaces/${ns}/events`,
      coreEvent(
        ns,
        'sel-a',
        { kind: 'ConfigMap', namespace: ns, name: 'target', uid: 'u-1' },
        { type: 'Warning', reason: 'Broken' },
      ),
      201,
    );
    await ok(
      'POST',
      `/api/v1/namespaces/${ns}/events`,
      coreEvent(ns, 'sel-b', { kind: 'Secret', namespace: ns, name: 'target' }),
      201,
    );
    const selector = encodeURIComponent(
      `involvedObject.name=target,involvedObject.namespace=${ns},involvedObject.kind=ConfigMap,involvedObject.uid=u-1`,
    );
    const list = await ok('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=${selector}`);
    expect(list.items.map((e: any) => e.metadata.name)).to.deep.equal(['sel-a']);
    for (const [sel, names] of [
      ['type=Warning', ['sel-a']],
      ['reason=Broken', ['sel-a']],
      ['source=events-test,involvedObject.name=target', ['sel-a', 'sel-b']],
    ] as const) {
      const found = await ok('GET', `/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent(sel)}`);
      expect(found.items.map((e: any) => e.metadata.name).sort(), sel).to.deep.equal(names);
    }
    const v1 = await ok(
      'GET',
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent('regarding.kind=Secret')}`,
    );
    expect(v1.items.map((e: any) => e.metadata.name)).to.deep.equal(['sel-b']);
    expectFailure(
      await gh.request(
        'GET',
        `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=involvedObject.name%3Dtarget`,
      ),
      400,
      'BadRequest',
    );
  });

  it('prints LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and the wide columns with the name last', async () => {
    const table = await ok(
      'GET',
      `/api/v1/namespaces/${ns}/events?fieldSelector=metadata.name%3Dsel-a`,
      undefined,
      200,
      { accept: TABLE },
    );
    expect(table.columnDefinitions.map((c: any) => [c.name, c.priority])).to.deep.equal([
      ['Last Seen', 0],
      ['Type', 0],
      ['Reason', 0],
      ['Object', 0],
      ['Subobject', 1],
      ['Source', 1],
      ['Message', 0],
      ['First Seen', 1],
      ['Count', 1],
      ['Name', 1],
    ]);
    const [cells] = table.rows.map((r: any) => r.cells);
    expect(cells.slice(1, 4)).to.deep.equal(['Warning', 'Broken', 'configmap/target']);
    expect(cells.slice(5)).to.deep.equal(['events-test', 'something happened to target', cells[7], 1, 'sel-a']);
    const v1 = await ok(
      'GET',
      `/apis/events.k8s.io/v1/namespaces/${ns}/events?fieldSelector=metadata.name%3Dnew-style`,
      undefined,
      200,
      { accept: TABLE },
    );
    expect(v1.rows[0].cells.slice(1, 7)).to.deep.equal([
      'Normal',
      'Tested',
      'configmap/cm1',
      '',
      'example.com/tester, tester-1',
      'a new-style event',
    ]);
  });

  it('speaks protobuf on both APIs, with upstream field numbers', async () => {
    const body = eventsV1Event(ns, 'proto-v1', 'events.k8s.io', {
      series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.500000Z' },
    });
    const res = await gh.request('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, {
      body: encodeProtobufObject(body),
      headers: PROTOBUF_HEADERS,
    });
    expect(res.status, res.body).to.equal(201);
    const made = decodeProtobufObject(res.raw) as any;
    expect(made).to.include({
      apiVersion: 'events.k8s.io/v1',
      note: 'a new-style event',
      eventTime: '2026-01-01T00:00:00.123456Z',
    });
    expect(made.series).to.deep.equal({ count: 2, lastObservedTime: '2026-01-01T00:00:01.500000Z' });
    const core = await gh.request('GET', `/api/v1/namespaces/${ns}/events/proto-v1`, {
      headers: { accept: PROTOBUF_MEDIA_TYPE },
    });
    const decoded = decodeProtobufObject(core.raw) as any;
    expect(decoded).to.include({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'a new-style event',
      reportingComponent: 'example.com/tester',
      action: 'Testing',
    });
    expect(decoded.involvedObject).to.deep.equal({ kind: 'ConfigMap', namespace: ns, name: 'cm1', apiVersion: 'v1' });
  });

  it('takes the patches recorders send: strategic merges counting a core/v1 event and moving an events/v1 series', async () => {
    await ok(
      'POST',
      `/api/v1/namespaces/${ns}/events`,
      coreEvent(ns, 'counted', { kind: 'ConfigMap', namespace: ns, name: 'cm4' }),
      201,
    );
    const counted = await ok(
      'PATCH',
      `/api/v1/namespaces/${ns}/events/counted`,
      { count: 2, lastTimestamp: '2026-01-01T00:01:00Z', message: 'something happened to cm4' },
      200,
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(counted).to.include({ count: 2, lastTimestamp: '2026-01-01T00:01:00Z' });
    await ok('POST', `/apis/events.k8s.io/v1/namespaces/${ns}/events`, eventsV1Event(ns, 'series'), 201);
    const series = await ok(
      'PATCH',
      `/apis/events.k8s.io/v1/namespaces/${ns}/events/series`,
      { series: { count: 2, lastObservedTime: '2026-01-01T00:02:00.000000Z' } },
      200,
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    expect(series.series).to.deep.equal({ count: 2, lastObservedTime: '2026-01-01T00:02:00.000000Z' });
    const badSeries = expectFailure(
      await gh.request('PATCH', `/apis/events.k8s.io/v1/namespaces/${ns}/events/series`, {
        body: { series: { count: 1, lastObservedTime: '2026-01-01T00:03:00.000000Z' } },
        headers: { 'content-type': 'application/merge-patch+json' },
      }),
      422,
      'Invalid',
    );
    expect(badSeries.message).to.contain('series.count: Invalid value: "": should be at least 2');
  });

  it('goes with its namespace: deleting the namespace removes its events, once for both APIs', async () => {
    const doomed = await createNamespace(gh, 'events-doomed');
    await ok(
      'POST',
      `/api/v1/namespaces/${doomed}/events`,
      coreEvent(doomed, 'old', { kind: 'ConfigMap', namespace: doomed, name: 'x' }),
      201,
    );
    await ok(
      'POST',
      `/apis/events.platform.io/v1/namespaces/${doomed}/events`,
      eventsV1Event(doomed, 'new', 'events.platform.io'),
      201,
    );
    await ok('DELETE', `/api/v1/namespaces/${doomed}`);
    await eventually(
      'the namespace is finalized',
      async () => (await gh.request('GET', `/api/v1/namespaces/${doomed}`)).status === 404,
    );
    expect((await ok('GET', `/api/v1/namespaces/${doomed}/events`)).items).to.deep.equal([]);
  });
});
