// ReplicaSet `scale`: an autoscaling/v1 Scale projected from the ReplicaSet, read and written over HTTP (JSON and
// protobuf), its writes landing in spec.replicas under the ReplicaSet's resourceVersion, listed in both discovery
// forms and authorized as the subresource `scale`.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, MERGE } from '../helpers/api.js';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';
import { bindingBody, RBAC_V1, roleBody, startRbacGatehouse, tokenOf } from '../helpers/rbac.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

const replicaSet = (name: string, replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'ReplicaSet',
  metadata: { name },
  spec: {
    replicas,
    selector: {
      matchLabels: { app: name },
      matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }],
    },
    template: {
      metadata: { labels: { app: name, tier: 'web' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
    },
  },
});

describe('the ReplicaSet scale subresource', function () {
  let gh: TestGatehouse;
  let ns: string;
  let rsPath: (name: string) => string;

  before(async () => {
    gh = await startTestGatehouse();
    ns = await createNamespace(gh, 'scale');
    rsPath = (name) => `/apis/apps/v1/namespaces/${ns}/replicasets/${name}`;
  });
  after(async () => gh.close());

  async function createReplicaSet(name: string, replicas = 2): Promise<any> {
    const res = await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, {
      body: replicaSet(name, replicas),
    });
    expect(res.status, res.body).to.equal(201);
    return res.json();
  }

  it('answers the Scale of a ReplicaSet: identity from the ReplicaSet, replicas and the selector as a string', async () => {
    const rs = await createReplicaSet('get');
    const status = await gh.request('PUT', `${rsPath('get')}/status`, { body: { ...rs, status: { replicas: 1 } } });
    expect(status.status, status.body).to.equal(200);
    const res = await gh.request('GET', `${rsPath('get')}/scale`);
    expect(res.status).to.equal(200);
    expect(res.json()).to.deep.equal({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name: 'get',
        namespace: ns,
        uid: rs.metadata.uid,
        resourceVersion: status.json().metadata.resourceVersion,
        creationTimestamp: rs.metadata.creationTimestamp,
      },
      spec: { replicas: 2 },
      status: { replicas: 1, selector: 'app=get,tier in (api,web)' },
    });
    expect(JSON.stringify(Object.keys(res.json()))).to.equal('["kind","apiVersion","metadata","spec","status"]');
    expectFailure(await gh.request('GET', `${rsPath('missing')}/scale`), 404, 'NotFound');
  });

  it('writes spec.replicas through PUT, guarded by the resourceVersion', async () => {
    await createReplicaSet('put');
    const scale = (await gh.request('GET', `${rsPath('put')}/scale`)).json();
    const put = await gh.request('PUT', `${rsPath('put')}/scale`, { body: { ...scale, spec: { replicas: 5 } } });
    expect(put.status, put.body).to.equal(200);
    expect(put.json().spec).to.deep.equal({ replicas: 5 });
    const rs = (await gh.request('GET', rsPath('put'))).json();
    expect(rs.spec.replicas).to.equal(5);
    expect(rs.metadata.generation).to.equal(2);
    expect(put.json().metadata.resourceVersion).to.equal(rs.metadata.resourceVersion);

    const stale = expectFailure(
      await gh.request('PUT', `${rsPath('put')}/scale`, { body: { ...scale, spec: { replicas: 7 } } }),
      409,
      'Conflict',
    );
    expect(stale.message).to.equal(
      'Operation cannot be fulfilled on replicasets.apps "put": the object has been modified; please apply your changes to the latest version and try again',
    );
    expect((await gh.request('GET', rsPath('put'))).json().spec.replicas).to.equal(5);

    // Without a resourceVersion the write is unconditional; spec.replicas left out is 0, as Go decodes it.
    const unconditional = await gh.request('PUT', `${rsPath('put')}/scale`, {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'put' }, spec: {} },
    });
    expect(unconditional.status, unconditional.body).to.equal(200);
    expect(unconditional.json().spec).to.deep.equal({});
    expect((await gh.request('GET', rsPath('put'))).json().spec.replicas).to.equal(0);
  });

  it('refuses negative replicas with 422 naming spec.replicas, and bodies of another kind or name with 400', async () => {
    await createReplicaSet('bad');
    const scale = (await gh.request('GET', `${rsPath('bad')}/scale`)).json();
    const invalid = expectFailure(
      await gh.request('PUT', `${rsPath('bad')}/scale`, { body: { ...scale, spec: { replicas: -1 } } }),
      422,
      'Invalid',
    );
    expect(invalid.message).to.equal(
      'Scale.autoscaling "bad" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    );
    expect(invalid.details).to.deep.include({ name: 'bad', group: 'autoscaling', kind: 'Scale' });
    const patched = expectFailure(
      await gh.request('PATCH', `${rsPath('bad')}/scale`, { body: { spec: { replicas: -3 } }, headers: MERGE }),
      422,
      'Invalid',
    );
    expect(patched.message).to.equal(
      'Scale.autoscaling "bad" is invalid: spec.replicas: Invalid value: -3: must be greater than or equal to 0',
    );
    const wrongKind = expectFailure(
      await gh.request('PUT', `${rsPath('bad')}/scale`, {
        body: { ...scale, apiVersion: 'apps/v1', kind: 'ReplicaSet' },
      }),
      400,
      'BadRequest',
    );
    expect(wrongKind.message).to.equal(
      'ReplicaSet in version "v1" cannot be handled as a Scale: converting (v1.ReplicaSet) to (autoscaling.Scale): unknown conversion',
    );
    const wrongVersion = expectFailure(
      await gh.request('PUT', `${rsPath('bad')}/scale`, { body: { ...scale, apiVersion: 'apps/v1' } }),
      400,
      'BadRequest',
    );
    expect(wrongVersion.message).to.equal(
      'the API version in the data (apps/v1) does not match the expected API version (autoscaling/v1)',
    );
    const wrongName = expectFailure(
      await gh.request('PUT', `${rsPath('bad')}/scale`, { body: { ...scale, metadata: { name: 'other' } } }),
      400,
      'BadRequest',
    );
    expect(wrongName.message).to.equal('the name of the object (other) does not match the name on the URL (bad)');
    const wrongUid = expectFailure(
      await gh.request('PUT', `${rsPath('bad')}/scale`, {
        body: { ...scale, metadata: { ...scale.metadata, uid: 'other' } },
      }),
      409,
      'Conflict',
    );
    expect(wrongUid.message).to.match(
      /^Operation cannot be fulfilled on replicasets\/scale\.apps "bad": Precondition failed: UID in precondition: other, UID in object meta: /,
    );
    expect((await gh.request('GET', rsPath('bad'))).json().spec.replicas).to.equal(2);
  });

  it('applies merge, JSON and strategic merge patches to the Scale, and refuses apply patches with 415', async () => {
    await createReplicaSet('patch');
    const merge = await gh.request('PATCH', `${rsPath('patch')}/scale?fieldManager=scaler`, {
      body: { spec: { replicas: 3 } },
      headers: MERGE,
    });
    expect(merge.status, merge.body).to.equal(200);
    expect(merge.json().spec.replicas).to.equal(3);
    // The ReplicaSet records the write as the manager's, through the scale subresource.
    const managed = (await gh.request('GET', rsPath('patch'))).json().metadata.managedFields;
    expect(managed.find((e: any) => e.manager === 'scaler')).to.deep.include({
      operation: 'Update',
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:spec': { 'f:replicas': {} } },
      subresource: 'scale',
    });
    const json = await gh.request('PATCH', `${rsPath('patch')}/scale`, {
      body: [{ op: 'replace', path: '/spec/replicas', value: 4 }],
      headers: { 'content-type': 'application/json-patch+json' },
    });
    expect(json.json().spec.replicas).to.equal(4);
    const strategic = await gh.request('PATCH', `${rsPath('patch')}/scale`, {
      body: { spec: { replicas: 6 } },
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
    });
    expect(strategic.json().spec.replicas).to.equal(6);
    expect((await gh.request('GET', rsPath('patch'))).json().spec.replicas).to.equal(6);
    const apply = await gh.request('PATCH', `${rsPath('patch')}/scale?fieldManager=x`, {
      body: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 1 } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    expectFailure(apply, 415, 'UnsupportedMediaType');
    expectFailure(await gh.request('POST', `${rsPath('patch')}/scale`, { body: {} }), 405, 'MethodNotAllowed');
  });

  it('reads and writes the Scale as protobuf with upstream field numbers', async () => {
    await createReplicaSet('proto', 2);
    const got = await gh.request('GET', `${rsPath('proto')}/scale`, { headers: { accept: PROTOBUF } });
    expect(got.headers['content-type']).to.equal(PROTOBUF);
    const scale = decodeProtobufObject(got.raw, SCALE_KIND) as any;
    expect(scale.spec).to.deep.equal({ replicas: 2 });
    expect(scale.status).to.deep.equal({ replicas: 0, selector: 'app=proto,tier in (api,web)' });
    // ScaleSpec.replicas is field 1, varint: 0x0a (spec, field 2 of Scale is 0x12) … 0x08 0x09 for 9 replicas.
    const body = encodeProtobufObject({ ...scale, apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 9 } });
    expect(body.includes(Buffer.from([0x12, 0x02, 0x08, 0x09]))).to.equal(true);
    const put = await gh.request('PUT', `${rsPath('proto')}/scale`, {
      body,
      headers: { 'content-type': PROTOBUF, accept: 'application/json' },
    });
    expect(put.status, put.body).to.equal(200);
    expect((await gh.request('GET', rsPath('proto'))).json().spec.replicas).to.equal(9);
  });

  it('lists replicasets/scale in legacy and aggregated discovery with the autoscaling/v1 Scale kind', async () => {
    const legacy = (await gh.request('GET', '/apis/apps/v1')).json();
    expect(legacy.resources.find((r: any) => r.name === 'replicasets/scale')).to.deep.equal({
      name: 'replicasets/scale',
      singularName: '',
      namespaced: true,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
    // Right after its kind, subresources in name order, as upstream lists them.
    expect(legacy.resources.map((r: any) => r.name)).to.deep.equal([
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
    ]);
    const aggregated = (await gh.request('GET', '/apis', { headers: { accept: AGGREGATED } })).json();
    const apps = aggregated.items.find((g: any) => g.metadata.name === 'apps');
    const rs = apps.versions[0].resources.find((r: any) => r.resource === 'replicasets');
    expect(rs.subresources).to.deep.include({
      subresource: 'scale',
      responseKind: SCALE_KIND,
      verbs: ['get', 'patch', 'update'],
    });
    expect(rs.subresources.map((r: any) => r.subresource)).to.deep.equal(['scale', 'status']);
  });
});

describe('the ReplicaSet scale subresource under RBAC', function () {
  let gh: Awaited<ReturnType<typeof startRbacGatehouse>>;
  const ns = 'scale-rbac';
  const path = `/apis/apps/v1/namespaces/${ns}/replicasets/x`;
  const asBob = { token: tokenOf('bob') };

  before(async () => {
    gh = await startRbacGatehouse();
    expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(201);
    expect(
      (await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets`, { body: replicaSet('x', 1) })).status,
    ).to.equal(201);
    // bob may read and patch replicasets/scale and nothing else: the subresource is a resource of its own to RBAC.
    const role = roleBody('scaler', [
      { apiGroups: ['apps'], resources: ['replicasets/scale'], verbs: ['get', 'patch'] },
    ]);
    expect((await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/roles`, { body: role })).status).to.equal(201);
    expect(
      (
        await gh.request('POST', `${RBAC_V1}/namespaces/${ns}/rolebindings`, {
          body: bindingBody('scaler', 'Role', 'scaler', ['bob']),
        })
      ).status,
    ).to.equal(201);
  });
  after(async () => gh.close());

  it('authorizes get and patch on replicasets/scale apart from replicasets and its other verbs', async () => {
    expect((await gh.request('GET', `${path}/scale`, asBob)).status).to.equal(200);
    expect(
      (await gh.request('PATCH', `${path}/scale`, { ...asBob, body: { spec: { replicas: 2 } }, headers: MERGE }))
        .status,
    ).to.equal(200);
    const put = expectFailure(
      await gh.request('PUT', `${path}/scale`, {
        ...asBob,
        body: { apiVersion: 'autoscaling/v1', kind: 'Scale', spec: { replicas: 3 } },
      }),
      403,
      'Forbidden',
    );
    expect(put.message).to.equal(
      `replicasets.apps "x" is forbidden: User "bob" cannot update resource "replicasets/scale" in API group "apps" in the namespace "${ns}"`,
    );
    expectFailure(await gh.request('GET', path, asBob), 403, 'Forbidden');
    expect((await gh.request('GET', path)).json().spec.replicas).to.equal(2);
  });
});
