// The rules both Event APIs share. Events are validated in their core/v1 form whichever API they arrive through, as
// kube-apiserver validates its internal form; what differs is how strict the rules are: core/v1 keeps the lenient
// legacy rules old clients rely on, events.platform.io/v1 adds the rules of the new API (required reporting fields,
// Normal or Warning, no deprecated fields in new objects). Field paths are the internal names, as upstream reports
// them, except where upstream names the version's own field.
import { fieldErrors, type FieldError } from '../../meta/field-errors.js';
import type { KObject } from '../../meta/types.js';
import { dns1123Subdomain, qualifiedName } from '../../meta/validation.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { asObj, asStr, immutable, type Obj } from '../../common/validation-helpers.js';

export type EventApi = 'core' | 'events';

export const EVENT_TYPE_NORMAL = 'Normal';
export const EVENT_TYPE_WARNING = 'Warning';

const REPORTING_INSTANCE_MAX = 128;
const ACTION_MAX = 128;
const REASON_MAX = 128;
const NOTE_MAX = 1024;

const str = (o: Obj, key: string): string => asStr(o[key]) ?? '';
const timeSet = (v: unknown): boolean => typeof v === 'string' && v !== '';

/** The rules every event passes, whichever API wrote it (legacyValidateEvent). */
function legacyRules(event: KObject, api: EventApi): FieldError[] {
  const errs: FieldError[] = [];
  const e = event as Obj;
  const involved = asObj(e.involvedObject) ?? {};
  const involvedNamespace = str(involved, 'namespace');
  const namespace = event.metadata.namespace ?? '';
  const mismatch = () =>
    fieldErrors.invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!timeSet(e.eventTime)) {
    // Old-style events (no eventTime): the namespaces agree, or a cluster-scoped object's event sits in default.
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace)
      errs.push(mismatch());
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') errs.push(mismatch());
    const controllerField = api === 'core' ? 'reportingComponent' : 'reportingController';
    const controller = str(e, 'reportingComponent');
    if (controller === '') errs.push(fieldErrors.required(controllerField));
    for (const msg of qualifiedName(controller)) errs.push(fieldErrors.invalid(controllerField, controller, msg));
    const instance = str(e, 'reportingInstance');
    if (instance === '') errs.push(fieldErrors.required('reportingInstance'));
    if (instance.length > REPORTING_INSTANCE_MAX)
      errs.push(fieldErrors.invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_MAX} characters`));
    const action = str(e, 'action');
    if (action === '') errs.push(fieldErrors.required('action'));
    if (action.length > ACTION_MAX)
      errs.push(fieldErrors.invalid('action', '', `can have at most ${ACTION_MAX} characters`));
    const reason = str(e, 'reason');
    if (reason === '') errs.push(fieldErrors.required('reason'));
    if (reason.length > REASON_MAX)
      errs.push(fieldErrors.invalid('reason', '', `can have at most ${REASON_MAX} characters`));
    if (str(e, 'message').length > NOTE_MAX)
      errs.push(fieldErrors.invalid('message', '', `can have at most ${NOTE_MAX} characters`));
  }
  for (const msg of dns1123Subdomain(namespace)) errs.push(fieldErrors.invalid('namespace', namespace, msg));
  return errs;
}

function seriesRules(e: Obj): FieldError[] {
  const series = asObj(e.series);
  if (!series) return [];
  const errs: FieldError[] = [];
  if (typeof series.count !== 'number' || series.count < 2)
    errs.push(fieldErrors.invalid('series.count', '', 'should be at least 2'));
  if (!timeSet(series.lastObservedTime)) errs.push(fieldErrors.required('series.lastObservedTime'));
  return errs;
}

/** A create through `api`; `event` is in its core/v1 form. */
export function validateEventCreate(event: KObject, api: EventApi): FieldError[] {
  const errs = legacyRules(event, api);
  if (api === 'core') {
    // Upstream runs the generic metadata rules (path-segment names) only once the kind's own rules passed.
    return errs.length > 0 ? errs : validateMetadata(event, true, 'pathSegment');
  }
  const e = event as Obj;
  errs.push(...validateMetadata(event, true, 'subdomain'), ...seriesRules(e));
  if (!timeSet(e.eventTime)) errs.push(fieldErrors.required('eventTime'));
  const type = str(e, 'type');
  if (type !== EVENT_TYPE_NORMAL && type !== EVENT_TYPE_WARNING)
    errs.push(fieldErrors.invalid('type', '', `has invalid value: ${type}`));
  if (timeSet(e.firstTimestamp)) errs.push(fieldErrors.invalid('deprecatedFirstTimestamp', '', 'needs to be unset'));
  if (timeSet(e.lastTimestamp)) errs.push(fieldErrors.invalid('deprecatedLastTimestamp', '', 'needs to be unset'));
  if (typeof e.count === 'number' && e.count !== 0)
    errs.push(fieldErrors.invalid('deprecatedCount', '', 'needs to be unset'));
  const source = asObj(e.source) ?? {};
  if (str(source, 'component') !== '' || str(source, 'host') !== '')
    errs.push(fieldErrors.invalid('deprecatedSource', '', 'needs to be unset'));
  return errs;
}

/** Fields the events API may not change once written: internal name → the path upstream reports. */
const IMMUTABLE_THROUGH_EVENTS_API: [string, string][] = [
  ...[
    'involvedObject',
    'reason',
    'message',
    'source',
    'firstTimestamp',
    'lastTimestamp',
    'count',
    'type',
    'eventTime',
    'action',
    'related',
  ].map((f): [string, string] => [f, f]),
  ['reportingComponent', 'reportingController'],
  ['reportingInstance', 'reportingInstance'],
];

/** An update through `api`; both objects in their core/v1 form. */
export function validateEventUpdate(event: KObject, old: KObject, api: EventApi): FieldError[] {
  const errs = legacyRules(event, api);
  if (api === 'core') return errs;
  const e = event as Obj;
  const o = old as Obj;
  if (JSON.stringify(e.series) !== JSON.stringify(o.series)) errs.push(...seriesRules(e));
  for (const [field, path] of IMMUTABLE_THROUGH_EVENTS_API) errs.push(...immutable(path, e[field], o[field]));
  return errs;
}
