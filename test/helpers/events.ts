// Event bodies the Event tests send: an old-style core/v1 Event and a new-style events.k8s.io/v1 one.

export function coreEvent(
  ns: string,
  name: string,
  involved: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: ns },
    involvedObject: involved,
    reason: 'Tested',
    message: `something happened to ${String(involved.name)}`,
    type: 'Normal',
    source: { component: 'events-test' },
    firstTimestamp: '2026-01-01T00:00:00Z',
    lastTimestamp: '2026-01-01T00:00:00Z',
    count: 1,
    ...extra,
  };
}

export function eventsV1Event(ns: string, name: string, group = 'events.k8s.io', extra: Record<string, unknown> = {}) {
  return {
    apiVersion: `${group}/v1`,
    kind: 'Event',
    metadata: { name, namespace: ns },
    eventTime: '2026-01-01T00:00:00.123456Z',
    reportingController: 'example.com/tester',
    reportingInstance: 'tester-1',
    action: 'Testing',
    reason: 'Tested',
    regarding: { kind: 'ConfigMap', namespace: ns, name: 'cm1', apiVersion: 'v1' },
    note: 'a new-style event',
    type: 'Normal',
    ...extra,
  };
}
