// events.platform.io/v1 Event (also served as events.k8s.io/v1): the newer API over the same objects as core/v1
// Event. Objects are stored in their core form (KindDefinition.storedAs) and validated in it, with the stricter rules
// of this API (api/core/v1/event-rules.ts).
import type { KindDefinition } from '../../scheme.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema, objectReferenceSchema } from '../../common/object-meta.js';
import { describe, int32, named, obj, str, time } from '../../common/schema-builders.js';
import { eventColumns, eventSelectableFields, eventSourceSchema, microTime } from '../../core/v1/event.js';
import { validateEventCreate, validateEventUpdate } from '../../core/v1/event-rules.js';
import { coreToEventsV1, EVENTS_GROUP, EVENTS_GROUP_ALIASES, eventsV1ToCore } from './event-conversion.js';

const seriesSchema = named(
  'io.platform.api.events.v1.EventSeries',
  obj(
    {
      count: int32('count is the number of occurrences in this series up to the last heartbeat time.'),
      lastObservedTime: microTime(
        'lastObservedTime is the time when last Event from the series was seen before last heartbeat.',
      ),
    },
    'EventSeries contain information on series of events, i.e. thing that was/is happening continuously for some time.',
    ['count', 'lastObservedTime'],
  ),
);

const schema = kindSchema({
  group: EVENTS_GROUP,
  version: 'v1',
  kind: 'Event',
  description:
    'Event is a report of an event somewhere in the cluster. It generally denotes some state change in the system. Events have a limited retention time and triggers and messages may evolve with time.  Event consumers should not rely on the timing of an event with a given Reason reflecting a consistent underlying trigger, or the continued existence of events with that Reason.  Events should be treated as informative, best-effort, supplemental data.',
  properties: {
    eventTime: microTime('eventTime is the time when this Event was first observed. It is required.'),
    series: describe(
      seriesSchema,
      "series is data about the Event series this event represents or nil if it's a singleton Event.",
    ),
    reportingController: str(
      'reportingController is the name of the controller that emitted this Event, e.g. `kubernetes.io/kubelet`. This field cannot be empty for new Events.',
    ),
    reportingInstance: str(
      'reportingInstance is the ID of the controller instance, e.g. `kubelet-xyzf`. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    action: str(
      'action is what action was taken/failed regarding to the regarding object. It is machine-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    reason: str(
      'reason is why the action was taken. It is human-readable. This field cannot be empty for new Events and it can have at most 128 characters.',
    ),
    regarding: describe(objectReferenceSchema, 'regarding contains the object this Event is about.'),
    related: describe(objectReferenceSchema, 'related is the optional secondary object for more complex actions.'),
    note: str(
      'note is a human-readable description of the status of this operation. Maximal length of the note is 1kB, but libraries should be prepared to handle values up to 64kB.',
    ),
    type: str(
      'type is the type of this event (Normal, Warning), new types could be added in the future. It is machine-readable. This field cannot be empty for new Events.',
    ),
    deprecatedSource: describe(
      eventSourceSchema,
      'deprecatedSource is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedFirstTimestamp: time(
      'deprecatedFirstTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedLastTimestamp: time(
      'deprecatedLastTimestamp is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
    deprecatedCount: int32(
      'deprecatedCount is the deprecated field assuring backward compatibility with core.v1 Event type.',
    ),
  },
  // eventTime is required of new objects only (validateCreate): events written through core/v1 may lack it.
});

/** The field selectors of events.k8s.io/v1 (upstream's label conversion): the core ones under this API's names. */
function selectableFields(e: KObject): Record<string, string> {
  const core = eventSelectableFields(eventsV1ToCore(e));
  const ref = (key: string) => core[`involvedObject.${key}`];
  return {
    'regarding.kind': ref('kind'),
    'regarding.namespace': ref('namespace'),
    'regarding.name': ref('name'),
    'regarding.uid': ref('uid'),
    'regarding.apiVersion': ref('apiVersion'),
    'regarding.resourceVersion': ref('resourceVersion'),
    'regarding.fieldPath': ref('fieldPath'),
    reason: core.reason,
    reportingController: core.reportingComponent,
    type: core.type,
  };
}

export const eventsV1Event: KindDefinition = {
  group: EVENTS_GROUP,
  version: 'v1',
  kind: 'Event',
  resource: 'events',
  singular: 'event',
  groupAliases: EVENTS_GROUP_ALIASES,
  namespaced: true,
  shortNames: ['ev'],
  statusSubresource: false,
  tracksGeneration: false,
  allowCreateOnUpdate: true,
  schema,
  validateCreate: (obj) => validateEventCreate(eventsV1ToCore(obj), 'events'),
  validateUpdate: (obj, old) => validateEventUpdate(eventsV1ToCore(obj), eventsV1ToCore(old), 'events'),
  selectableFields,
  tableColumns: eventColumns(eventsV1ToCore),
  tableColumnsIncludeName: true,
  storedAs: {
    group: '',
    resource: 'events',
    fromStorage: (stored) => coreToEventsV1(stored),
    toStorage: eventsV1ToCore,
  },
};
