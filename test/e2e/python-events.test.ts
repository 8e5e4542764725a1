// The official Kubernetes Python client records and reads events through both APIs: CoreV1Api for core/v1 and
// EventsV1Api, which hard-codes events.k8s.io/v1. Its typed models refuse an Event without involvedObject (core) or
// regarding (events/v1), which the server therefore always writes, as upstream's JSON does.
import { expect } from 'chai';
import { createNamespace } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { runPython } from '../helpers/python-client.js';

describe('the Python client and events', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'pyevents');
  });
  after(async () => {
    await gh?.close();
  });

  it('creates a new-style event with EventsV1Api and lists it with CoreV1Api, and the other way round', async () => {
    const result = await runPython(
      gh.kubeconfigPath,
      `
import datetime
from kubernetes import client, config
config.load_kube_config()
core = client.CoreV1Api()
events = client.EventsV1Api()
ns = ${JSON.stringify(ns)}
now = datetime.datetime.now(datetime.timezone.utc)
events.create_namespaced_event(ns, client.EventsV1Event(
    metadata=client.V1ObjectMeta(name="py-new"), event_time=now, action="Testing", reason="Tested", type="Normal",
    reporting_controller="example.com/py", reporting_instance="py-1", note="from python",
    regarding=client.V1ObjectReference(kind="Secret", name="s", namespace=ns)))
core.create_namespaced_event(ns, client.CoreV1Event(
    metadata=client.V1ObjectMeta(name="py-old"), involved_object=client.V1ObjectReference(kind="ConfigMap", name="x", namespace=ns),
    reason="Old", message="old style", type="Normal", count=1, first_timestamp=now, last_timestamp=now))
for e in sorted(core.list_namespaced_event(ns).items, key=lambda e: e.metadata.name):
    print("core", e.metadata.name, e.message, e.reporting_component or "-", e.involved_object.kind or "-")
# An event about nothing in particular (allowed in default): the typed model still finds an involvedObject.
events.create_namespaced_event("default", client.EventsV1Event(
    metadata=client.V1ObjectMeta(name=ns + "-bare"), event_time=now, action="Testing", reason="Bare", type="Normal",
    reporting_controller="example.com/py", reporting_instance="py-1"))
bare = core.read_namespaced_event(ns + "-bare", "default")
print("bare", bare.reason, bare.involved_object.to_dict() == client.V1ObjectReference().to_dict())
core.delete_namespaced_event(ns + "-bare", "default")
new = events.read_namespaced_event("py-new", ns)
print("v1", new.metadata.name, new.note, new.reporting_controller, new.regarding.kind or "-")
`,
    );
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout.trim().split('\n')).to.deep.equal([
      'core py-new from python example.com/py Secret',
      'core py-old old style - ConfigMap',
      'bare Bare True',
      'v1 py-new from python example.com/py Secret',
    ]);
  });
});
