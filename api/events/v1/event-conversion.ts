// events.platform.io/v1 Event ⇄ core/v1 Event, field for field as upstream converts them (the core form is the stored
// one). Renamed: regarding ⇄ involvedObject, note ⇄ message, reportingController ⇄ reportingComponent, and the
// deprecated* fields ⇄ source, firstTimestamp, lastTimestamp, count. Keys come out in each version's field order.
// What upstream's JSON always carries is always there (core: involvedObject and the two reporting strings; events/v1:
// regarding), and empty strings the events/v1 JSON omits are left out, so a round trip gives back the same object.
import type { KObject } from '../../meta/types.js';

export const EVENTS_GROUP = 'events.platform.io';
export const EVENTS_GROUP_ALIASES = ['events.k8s.io'];

/** [core field, events/v1 field], in core/v1 field order. */
const CORE_ORDER: [string, string][] = [
  ['involvedObject', 'regarding'],
  ['reason', 'reason'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['type', 'type'],
  ['eventTime', 'eventTime'],
  ['series', 'series'],
  ['action', 'action'],
  ['related', 'related'],
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** events/v1 field order. */
const V1_ORDER = [
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
];

function copyFields(from: Record<string, unknown>, into: Record<string, unknown>, pairs: [string, string][]): void {
  for (const [source, target] of pairs) if (from[source] !== undefined) into[target] = from[source];
}

/** Fields neither version knows (none once pruned) ride along, so nothing is lost either way. */
function rest(obj: Record<string, unknown>, known: Set<string>, into: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(obj)) if (!known.has(k) && !(k in into)) into[k] = v;
}

/** The core/v1 fields Go always writes (no omitempty): clients that type Events (the Python client) require them. */
export function fillCoreRequiredFields(core: Record<string, unknown>): void {
  core.involvedObject ??= {};
  core.reportingComponent ??= '';
  core.reportingInstance ??= '';
}

const TYPE_META = new Set(['apiVersion', 'kind', 'metadata']);
const CORE_FIELDS = new Set([...TYPE_META, ...CORE_ORDER.map(([core]) => core)]);
const V1_FIELDS = new Set([...TYPE_META, ...V1_ORDER]);

export function coreToEventsV1(core: KObject, apiVersion = `${EVENTS_GROUP}/v1`): KObject {
  const out: Record<string, unknown> = { kind: 'Event', apiVersion, metadata: core.metadata };
  const renamed: Record<string, unknown> = {};
  copyFields(core, renamed, CORE_ORDER);
  renamed.regarding ??= {};
  for (const field of V1_ORDER) if (renamed[field] !== undefined && renamed[field] !== '') out[field] = renamed[field];
  rest(core, CORE_FIELDS, out);
  return out as KObject;
}

export function eventsV1ToCore(v1: KObject): KObject {
  const out: Record<string, unknown> = { kind: 'Event', apiVersion: 'v1', metadata: v1.metadata };
  // involvedObject first, where core/v1 has it, present or not.
  out.involvedObject = v1.regarding ?? {};
  copyFields(
    v1,
    out,
    CORE_ORDER.map(([core, v]) => [v, core]),
  );
  rest(v1, V1_FIELDS, out);
  fillCoreRequiredFields(out);
  return out as KObject;
}
