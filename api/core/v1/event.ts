// Event (core/v1): a report of something that happened to an object, read by `kubectl describe` and `kubectl events`.
// The same objects are served as events.platform.io/v1 Events (api/events/v1/event.ts); this is their stored form.
// Events expire --event-ttl after their last write (gateway/controllers/event-ttl.ts).
import type { KindDefinition, TableColumn } from '../../scheme.js';
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import { kindSchema, objectReferenceSchema } from '../../common/object-meta.js';
import { describe, int32, named, obj, str, time } from '../../common/schema-builders.js';
import { ageOf, column, pathOf } from '../../common/printers.js';
import { asObj, asStr } from '../../common/validation-helpers.js';
import { validateEventCreate, validateEventUpdate } from './event-rules.js';
import { fillCoreRequiredFields } from '../../events/v1/event-conversion.js';

export const microTimeSchema = named('io.platform.apimachinery.pkg.apis.meta.v1.MicroTime', {
  type: 'string',
  format: 'date-time',
  description: 'MicroTime is version of Time with microsecond level precision.',
} satisfies JSONSchema);
export const microTime = (description: string): JSONSchema => describe(microTimeSchema, description);

export const eventSourceSchema = named(
  'io.platform.api.core.v1.EventSource',
  obj(
    {
      component: str('Component from which the event is generated.'),
      host: str('Node name on which the event is generated.'),
    },
    'EventSource contains information for an event.',
  ),
);

const coreEventSeriesSchema = named(
  'io.platform.api.core.v1.EventSeries',
  obj(
    {
      count: int32('Number of occurrences in this series up to the last heartbeat time'),
      lastObservedTime: microTime('Time of the last occurrence observed'),
    },
    'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
  ),
);

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Event',
  description:
    'Event is a report of an event somewhere in the cluster.  Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.',
  properties: {
    involvedObject: describe(objectReferenceSchema, 'The object that this event is about.'),
    reason: str(
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
    ),
    message: str('A human-readable description of the status of this operation.'),
    source: describe(
      eventSourceSchema,
      'The component reporting this event. Should be a short machine understandable string.',
    ),
    firstTimestamp: time('The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)'),
    lastTimestamp: time('The time at which the most recent occurrence of this event was recorded.'),
    count: int32('The number of times this event has occurred.'),
    type: str('Type of this event (Normal, Warning), new types could be added in the future'),
    eventTime: microTime('Time when this Event was first observed.'),
    series: describe(
      coreEventSeriesSchema,
      "Data about the Event series this event represents or nil if it's a singleton Event.",
    ),
    action: str('What action was taken/failed regarding to the Regarding object.'),
    related: describe(objectReferenceSchema, 'Optional secondary object for more complex actions.'),
    reportingComponent: str('Name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`.'),
    reportingInstance: str('ID of the controller instance, e.g. `kubelet-xyzf`.'),
  },
});

const involvedOf = (e: KObject) => asObj(e.involvedObject) ?? {};

/** The field selectors of events (both APIs select over the core form); `source` falls back to the controller. */
export function eventSelectableFields(e: KObject): Record<string, string> {
  const involved = involvedOf(e);
  const ref = (key: string) => asStr(involved[key]) ?? '';
  const controller = asStr(e.reportingComponent) ?? '';
  return {
    'involvedObject.kind': ref('kind'),
    'involvedObject.namespace': ref('namespace'),
    'involvedObject.name': ref('name'),
    'involvedObject.uid': ref('uid'),
    'involvedObject.apiVersion': ref('apiVersion'),
    'involvedObject.resourceVersion': ref('resourceVersion'),
    'involvedObject.fieldPath': ref('fieldPath'),
    reason: asStr(e.reason) ?? '',
    reportingComponent: controller,
    source: asStr(pathOf(e, 'source', 'component')) || controller,
    type: asStr(e.type) ?? '',
  };
}

const timeSet = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** printEvent's timestamps and count: new-style events carry eventTime and series instead of the deprecated fields. */
function eventTimes(e: KObject): { first: string; last: string; count: number } {
  const first = timeSet(e.firstTimestamp) ? ageOf(e.firstTimestamp) : ageOf(e.eventTime);
  let last = timeSet(e.lastTimestamp) ? ageOf(e.lastTimestamp) : first;
  let count = typeof e.count === 'number' ? e.count : 0;
  const series = asObj(e.series);
  if (series) {
    last = ageOf(series.lastObservedTime);
    count = typeof series.count === 'number' ? series.count : 0;
  } else if (count === 0) {
    count = 1;
  }
  return { first, last, count };
}

function eventSource(e: KObject): string {
  const component = asStr(pathOf(e, 'source', 'component')) || (asStr(e.reportingComponent) ?? '');
  const instance = asStr(pathOf(e, 'source', 'host')) || (asStr(e.reportingInstance) ?? '');
  return instance ? `${component}, ${instance}` : component;
}

function eventTarget(e: KObject): string {
  const involved = involvedOf(e);
  const kind = (asStr(involved.kind) ?? '').toLowerCase();
  const name = asStr(involved.name) ?? '';
  return name ? `${kind}/${name}` : kind;
}

/** `kubectl get events`: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and in -o wide the rest, the name last. */
export function eventColumns(toCore: (obj: KObject) => KObject): TableColumn[] {
  const cell = (f: (e: KObject) => unknown) => (obj: KObject) => f(toCore(obj));
  return [
    column(
      'Last Seen',
      'The time at which the most recent occurrence of this event was recorded.',
      cell((e) => eventTimes(e).last),
    ),
    column(
      'Type',
      'Type of this event (Normal, Warning), new types could be added in the future',
      cell((e) => asStr(e.type) ?? ''),
    ),
    column(
      'Reason',
      "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      cell((e) => asStr(e.reason) ?? ''),
    ),
    column('Object', 'The object that this event is about.', cell(eventTarget)),
    column(
      'Subobject',
      'A path to a piece of the object instead of the whole, such as spec.containers{name}.',
      cell((e) => asStr(involvedOf(e).fieldPath) ?? ''),
      1,
    ),
    column(
      'Source',
      'The component reporting this event. Should be a short machine understandable string.',
      cell(eventSource),
      1,
    ),
    column(
      'Message',
      'A human-readable description of the status of this operation.',
      cell((e) => (asStr(e.message) ?? '').trim()),
    ),
    column(
      'First Seen',
      'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)',
      cell((e) => eventTimes(e).first),
      1,
    ),
    column(
      'Count',
      'The number of times this event has occurred.',
      cell((e) => eventTimes(e).count),
      1,
    ),
    {
      ...column(
        'Name',
        'Name must be unique within a namespace.',
        (obj) => asStr(pathOf(obj, 'metadata', 'name')) ?? '',
        1,
      ),
      format: 'name',
    },
  ];
}

export const event: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  singular: 'event',
  namespaced: true,
  shortNames: ['ev'],
  statusSubresource: false,
  tracksGeneration: false,
  // PUT on a missing event creates it, as upstream's event strategy allows.
  allowCreateOnUpdate: true,
  schema,
  defaults: (obj) => fillCoreRequiredFields(obj),
  validateCreate: (obj) => validateEventCreate(obj, 'core'),
  validateUpdate: (obj, old) => validateEventUpdate(obj, old, 'core'),
  selectableFields: eventSelectableFields,
  tableColumns: eventColumns((obj) => obj),
  tableColumnsIncludeName: true,
};
