// A server-side apply conflict as the official Kubernetes Python client reads it: the 409 body deserialized into
// V1Status, each cause's kind in `reason` (the StatusCause key client-go reads too), with its message and field.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { pythonOk } from '../helpers/python-client.js';

const SCRIPT = `
import json
from kubernetes import client, config
from kubernetes.client.rest import ApiException

config.load_kube_config()
api = client.ApiClient()

# The REST layer sends a body it cannot encode for the content type as is: the apply body goes as JSON text.
def apply(manager, value):
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "owned"}, "data": {"a": value}}
    return api.call_api("/api/v1/namespaces/default/configmaps/owned", "PATCH",
        query_params=[("fieldManager", manager)],
        header_params={"Content-Type": "application/apply-patch+yaml", "Accept": "application/json"},
        body=json.dumps(body), auth_settings=["BearerToken"], response_type="object", _return_http_data_only=True)

apply("first", "1")
try:
    apply("second", "2")
    print("no conflict")
except ApiException as e:
    class Body:
        data = e.body
    status = api.deserialize(Body(), "V1Status")
    print(json.dumps({"code": status.code, "reason": status.reason,
        "causes": [{"reason": c.reason, "message": c.message, "field": c.field} for c in status.details.causes]}))
`;

describe('python client: server-side apply conflicts', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => gh.close());

  it("reads each cause's reason, message and field from the 409", async () => {
    const out = JSON.parse(await pythonOk(gh.kubeconfigPath, SCRIPT));
    expect(out).to.deep.equal({
      code: 409,
      reason: 'Conflict',
      causes: [{ reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.a' }],
    });
  });
});
