// The event recorder controllers report through: one core/v1 Event per distinct event, repeats counted on it (count
// and lastTimestamp, as client-go's correlator does), cluster-scoped objects' events in `default`, and failures
// logged rather than thrown. The events are readable through both Event APIs.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import { createRegistry, type Registry } from '../../gateway/registry/registry.js';
import type { WriteContext } from '../../gateway/registry/admission-types.js';
import { createEventRecorder } from '../../gateway/controllers/event-recorder.js';
import { EVERYTHING } from '../../backends/storage.js';

const WRITE: WriteContext = { dryRun: false, fieldValidation: 'Strict', duplicateFields: [], warnings: [] };

describe('event recorder', () => {
  let registry: Registry;
  let logs: string[];
  let configMap: KObject;
  let node: KObject;

  beforeEach(async () => {
    registry = createRegistry(builtinKinds, createMemoryStorage(), createKindValidator);
    logs = [];
    for (const name of ['default', 'apps']) await registry.byKind('', 'Namespace')!.create('', { metadata: { name } }, { ...WRITE, warnings: [] });
    configMap = await registry.byKind('', 'ConfigMap')!.create('apps', { metadata: { name: 'settings' } }, { ...WRITE, warnings: [] });
    node = await registry.byKind('', 'Node')!.create('', { metadata: { name: 'n1' } }, { ...WRITE, warnings: [] });
  });

  const events = async (namespace: string) => (await registry.byKind('', 'Event')!.list(namespace, { predicate: EVERYTHING })).items;

  it('records an event about an object as client-go would, and counts repeats on it', async () => {
    const recorder = createEventRecorder(registry, { component: 'namespace-controller', host: 'replica-a', log: (l) => logs.push(l) });
    await recorder.event(configMap, 'Normal', 'Synced', 'all good');
    await recorder.event(configMap, 'Normal', 'Synced', 'all good');
    await Promise.all([recorder.event(configMap, 'Normal', 'Synced', 'all good'), recorder.event(configMap, 'Warning', 'Failed', 'not good')]);
    const recorded = await events('apps');
    expect(recorded).to.have.length(2);
    const synced = recorded.find((e) => e.reason === 'Synced')!;
    expect(synced.metadata.name).to.match(/^settings\.[0-9a-f]+$/);
    expect(synced).to.include({ type: 'Normal', message: 'all good', count: 3, reportingComponent: 'namespace-controller', reportingInstance: 'replica-a' });
    expect(synced.source).to.deep.equal({ component: 'namespace-controller', host: 'replica-a' });
    expect(synced.involvedObject).to.deep.equal({
      kind: 'ConfigMap', namespace: 'apps', name: 'settings', uid: configMap.metadata.uid, apiVersion: 'v1', resourceVersion: configMap.metadata.resourceVersion,
    });
    expect(synced.metadata.managedFields?.[0]?.manager).to.equal('namespace-controller');
    const v1 = await registry.byKind('events.platform.io', 'Event')!.get('apps', synced.metadata.name!);
    expect(v1).to.include({ reportingController: 'namespace-controller', note: 'all good', deprecatedCount: 3 });
    expect(logs).to.deep.equal([]);
  });

  it('puts the events of cluster-scoped objects in default, and starts over when the counted event is gone', async () => {
    const recorder = createEventRecorder(registry, { component: 'test-controller', log: (l) => logs.push(l) });
    await recorder.event(node, 'Normal', 'Registered', 'seen');
    const [first] = await events('default');
    expect(first!.involvedObject).to.not.have.property('namespace');
    await registry.byKind('', 'Event')!.delete('default', first!.metadata.name!, {}, { ...WRITE, warnings: [] });
    await recorder.event(node, 'Normal', 'Registered', 'seen');
    const [second] = await events('default');
    expect(second!.metadata.name).to.not.equal(first!.metadata.name);
    expect(second!.count).to.equal(1);
  });

  it('logs a write that fails instead of failing its caller', async () => {
    const recorder = createEventRecorder(registry, { component: 'test-controller', log: (l) => logs.push(l) });
    const orphan = { ...configMap, metadata: { ...configMap.metadata, namespace: 'missing' } } as KObject;
    await recorder.event(orphan, 'Warning', 'Lost', 'nowhere to go');
    expect(logs).to.have.length(1);
    expect(logs[0]).to.contain('Warning Lost for ConfigMap settings');
  });
});
