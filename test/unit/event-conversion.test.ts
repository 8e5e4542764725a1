// events.platform.io/v1 ⇄ core/v1 Event conversion and the per-API validation rules, without a server.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { coreToEventsV1, eventsV1ToCore } from '../../api/events/v1/event-conversion.js';
import { validateEventCreate, validateEventUpdate } from '../../api/core/v1/event-rules.js';

const core = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'cm.1', namespace: 'a' },
  involvedObject: { kind: 'ConfigMap', namespace: 'a', name: 'cm' },
  reason: 'R',
  message: 'M',
  source: { component: 'c', host: 'h' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:01:00Z',
  count: 2,
  type: 'Normal',
  eventTime: '2026-01-01T00:00:00.000001Z',
  series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' },
  action: 'A',
  related: { kind: 'Secret', name: 's' },
  reportingComponent: 'example.com/c',
  reportingInstance: 'i',
} as unknown as KObject;

const fields = (o: object) => Object.keys(o);

describe('Event conversion', () => {
  it("renames every field both ways, in each version's field order, and round-trips", () => {
    const v1 = coreToEventsV1(core);
    expect(fields(v1)).to.deep.equal([
      'kind',
      'apiVersion',
      'metadata',
      'eventTime',
      'series',
      'reportingController',
      'reportingInstance',
      'action',
      'reason',
      'regarding',
      'related',
      'note',
      'type',
      'deprecatedSource',
      'deprecatedFirstTimestamp',
      'deprecatedLastTimestamp',
      'deprecatedCount',
    ]);
    expect(v1).to.include({
      apiVersion: 'events.platform.io/v1',
      note: 'M',
      reportingController: 'example.com/c',
      deprecatedCount: 2,
    });
    const back = eventsV1ToCore(v1);
    expect(back).to.deep.equal(core);
    expect(fields(back)).to.deep.equal(['kind', 'apiVersion', 'metadata', ...fields(core).slice(3)]);
  });

  it('writes what the Go types always write: regarding, involvedObject and the reporting strings', () => {
    const bare = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'x' } } as KObject;
    expect(coreToEventsV1(bare)).to.deep.equal({
      kind: 'Event',
      apiVersion: 'events.platform.io/v1',
      metadata: { name: 'x' },
      regarding: {},
    });
    expect(eventsV1ToCore(coreToEventsV1(bare))).to.deep.include({
      involvedObject: {},
      reportingComponent: '',
      reportingInstance: '',
    });
  });
});

describe('Event validation', () => {
  const old = (extra: object) =>
    ({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: { kind: 'Node', name: 'n1' },
      ...extra,
    }) as unknown as KObject;

  it('lets old-style events of cluster-scoped objects live in default only, and checks the namespaces agree', () => {
    expect(validateEventCreate(old({}), 'core')).to.deep.equal([]);
    const elsewhere = old({ metadata: { name: 'e', namespace: 'apps' } });
    expect(validateEventCreate(elsewhere, 'core').map((e) => e.field)).to.deep.equal(['involvedObject.namespace']);
    const namespaced = old({
      metadata: { name: 'e', namespace: 'apps' },
      involvedObject: { kind: 'ConfigMap', name: 'c', namespace: 'apps' },
    });
    expect(validateEventCreate(namespaced, 'core')).to.deep.equal([]);
  });

  it('keeps core/v1 lenient on names and updates, and events/v1 strict', () => {
    expect(
      validateEventCreate(old({ metadata: { name: 'system:node.17', namespace: 'default' } }), 'core'),
    ).to.deep.equal([]);
    const strict = validateEventCreate(
      eventsV1ToCore(coreToEventsV1(old({ metadata: { name: 'Bad_Name', namespace: 'default' } }))),
      'events',
    );
    expect(strict.map((e) => e.field)).to.include.members(['metadata.name', 'eventTime', 'type']);
    const before = eventsV1ToCore(coreToEventsV1(core));
    const after = { ...before, message: 'changed', reportingComponent: 'example.com/other' } as KObject;
    expect(validateEventUpdate(after, before, 'core')).to.deep.equal([]);
    expect(validateEventUpdate(after, before, 'events').map((e) => e.field)).to.deep.equal([
      'message',
      'reportingController',
    ]);
  });
});
