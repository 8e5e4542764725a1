// The official Kubernetes Python client (22.6): what it sends is what Gatehouse must read. It spells booleans
// `True` (allowWatchBookmarks, force, orphanDependents), and its Watch looks for the 410 of a compacted
// resourceVersion in an ERROR event of the stream.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace } from '../helpers/api.js';
import { pythonOk } from '../helpers/python-client.js';
import { ManualClock } from '../helpers/manual-clock.js';

const PRELUDE = `
import json, sys
from kubernetes import client, config, dynamic, watch
from kubernetes.client.rest import ApiException
config.load_kube_config()
v1 = client.CoreV1Api()
`;

describe('Kubernetes Python client', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'python');
  });
  after(async () => gh?.close());

  it('watches with allow_watch_bookmarks=True: events and bookmarks arrive', async () => {
    const out = await pythonOk(
      gh.kubeconfigPath,
      `${PRELUDE}
ns = ${JSON.stringify(ns)}
rv = v1.list_namespaced_config_map(ns).metadata.resource_version
# Made after the version the watch starts from, so it arrives whenever the watch opens.
v1.create_namespaced_config_map(ns, {"metadata": {"name": "watched"}})
w = watch.Watch()
seen = []
for event in w.stream(v1.list_namespaced_config_map, ns, resource_version=rv, allow_watch_bookmarks=True, timeout_seconds=20):
    metadata = event["raw_object"]["metadata"]
    seen.append([event["type"], metadata.get("name"), metadata["resourceVersion"]])
    if any(s[0] == "BOOKMARK" for s in seen) and any(s[0] == "ADDED" for s in seen):
        w.stop()
print(json.dumps(seen))
`,
    );
    const seen = JSON.parse(out) as [string, string | null, string][];
    expect(seen.filter((s) => s[0] !== 'BOOKMARK').map((s) => s.slice(0, 2))).to.deep.equal([['ADDED', 'watched']]);
    const bookmark = seen.find((s) => s[0] === 'BOOKMARK');
    expect(bookmark, JSON.stringify(seen)).to.not.equal(undefined);
    expect(bookmark![2]).to.match(/^\d+$/);
  });

  it('takes force_conflicts=True on a server-side apply (dynamic client), taking over a field', async () => {
    const out = await pythonOk(
      gh.kubeconfigPath,
      `${PRELUDE}
ns = ${JSON.stringify(ns)}
dyn = dynamic.DynamicClient(client.ApiClient())
cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
# The client's REST layer sends an apply body only as a string (JSON is YAML), so name and namespace are given apart.
def apply(value, manager, **kwargs):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "applied", "namespace": ns}, "data": {"a": value}}
    return dyn.server_side_apply(cms, body=json.dumps(body), name="applied", namespace=ns, field_manager=manager, **kwargs)
apply("first", "first")
try:
    apply("second", "second")
    conflict = None
except ApiException as e:
    conflict = e.status
result = apply("second", "second", force_conflicts=True)
managers = sorted(m["manager"] for m in result.metadata.managedFields)
print(json.dumps({"conflict": conflict, "a": result.data.a, "managers": managers}))
`,
    );
    expect(JSON.parse(out)).to.deep.equal({ conflict: 409, a: 'second', managers: ['second'] });
  });

  it('deletes with orphan_dependents=True as an orphaning delete (200 while finalizers hold the object)', async () => {
    const out = await pythonOk(
      gh.kubeconfigPath,
      `${PRELUDE}
ns = ${JSON.stringify(ns)}
codes = {}
for name, orphan in (("orphaned", True), ("cascaded", False)):
    v1.create_namespaced_config_map(ns, {"metadata": {"name": name, "finalizers": ["example.com/hold"]}})
    _, status, _ = v1.delete_namespaced_config_map_with_http_info(name, ns, orphan_dependents=orphan)
    codes[name] = status
print(json.dumps(codes))
`,
    );
    expect(JSON.parse(out)).to.deep.equal({ orphaned: 200, cascaded: 202 });
  });

  it('sees the 410 of a compacted resourceVersion in the watch stream, then lists and watches again', async function () {
    const clock = new ManualClock();
    const small = await startTestGatehouse(['--history-window=1s'], { clock });
    try {
      const first = (
        await small.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'a' } } })
      ).json();
      // The history window is time-based: the next write after it has passed compacts the first one away.
      clock.advance(1200);
      await small.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'b' } } });
      const old = Number(first.metadata.resourceVersion) - 1;
      const out = await pythonOk(
        small.kubeconfigPath,
        `${PRELUDE}
try:
    for event in watch.Watch().stream(v1.list_namespaced_config_map, "default", resource_version="${old}", timeout_seconds=10):
        print(json.dumps({"unexpected": event["type"]}))
    expired = None
except ApiException as e:
    expired = {"status": e.status, "reason": e.reason}
rv = v1.list_namespaced_config_map("default").metadata.resource_version
v1.create_namespaced_config_map("default", {"metadata": {"name": "after"}})
w = watch.Watch()
resumed = None
for event in w.stream(v1.list_namespaced_config_map, "default", resource_version=rv, timeout_seconds=10):
    resumed = [event["type"], event["object"].metadata.name]
    w.stop()
print(json.dumps({"expired": expired, "resumed": resumed}))
`,
      );
      const result = JSON.parse(out.trim().split('\n').pop()!);
      // The client raises the stream's ERROR event with its reason and message; a bare HTTP 410 would read "Gone".
      expect(result.expired.status).to.equal(410);
      expect(result.expired.reason).to.match(new RegExp(`^Expired: too old resource version: ${old} `));
      expect(result.resumed).to.deep.equal(['ADDED', 'after']);
      expect(out).to.not.contain('unexpected');
    } finally {
      await small.close();
    }
  });
});
