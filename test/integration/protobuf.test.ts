// Protobuf over real HTTPS, as client-go's typed clients speak it: protobuf bodies on create and update, protobuf
// answers to get, list, watch and errors, JSON where protobuf has no form (Tables, patches), and 400s for bad bodies.
import { expect } from 'chai';
import { decodeProtobufObject, encodeProtobufObject } from '../../api/proto/object-codec.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure } from '../helpers/api.js';
import {
  expectProtobufFailure,
  openProtobufWatch,
  PROTOBUF_HEADERS,
  PROTOBUF_MEDIA_TYPE,
  type ProtobufWatch,
} from '../helpers/protobuf.js';

const ACCEPT_ONLY = { accept: PROTOBUF_HEADERS.accept };

describe('protobuf over HTTPS', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  const watches: ProtobufWatch[] = [];

  before(async () => {
    gh = await startTestGatehouse();
  });
  afterEach(() => {
    for (const w of watches.splice(0)) w.close();
  });
  after(async () => gh?.close());

  const decode = (
    res: { status: number; headers: Record<string, unknown>; raw: Buffer; body: string },
    status: number,
  ): any => {
    expect(res.status, res.body).to.equal(status);
    expect(String(res.headers['content-type'])).to.equal(PROTOBUF_MEDIA_TYPE);
    return decodeProtobufObject(res.raw);
  };

  it('creates from a protobuf body and answers get, list and update in protobuf', async () => {
    const ns = await createNamespace(gh, 'pb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const body = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm', labels: { a: 'b' }, creationTimestamp: null },
      data: { k: 'v', empty: '' },
    });
    const created = decode(await gh.request('POST', path, { body, headers: PROTOBUF_HEADERS }), 201);
    expect(created).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(created.metadata).to.include({ name: 'cm', namespace: ns });
    expect(created.metadata.uid).to.be.a('string');
    expect(created.metadata.creationTimestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(created.data).to.deep.equal({ k: 'v', empty: '' });

    // The JSON answer for the same object agrees with the protobuf one.
    const json = (await gh.request('GET', `${path}/cm`)).json();
    const got = decode(await gh.request('GET', `${path}/cm`, { headers: ACCEPT_ONLY }), 200);
    expect(got).to.deep.equal(json);

    const list = decode(await gh.request('GET', path, { headers: ACCEPT_ONLY }), 200);
    expect(list).to.include({ apiVersion: 'v1', kind: 'ConfigMapList' });
    expect(list.metadata.resourceVersion).to.be.a('string');
    expect(list.items.map((i: any) => i.metadata.name)).to.deep.equal(['cm']);

    const update = encodeProtobufObject({ ...got, data: { k: 'v2' } });
    const updated = decode(await gh.request('PUT', `${path}/cm`, { body: update, headers: PROTOBUF_HEADERS }), 200);
    expect(updated.data).to.deep.equal({ k: 'v2' });
    expect(updated.metadata.resourceVersion).to.not.equal(got.metadata.resourceVersion);
  });

  it('reads a body whose envelope names no kind as the kind of the path', async () => {
    const ns = await createNamespace(gh, 'pb');
    const bytes = encodeProtobufObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } });
    // Rewrite the envelope with an empty typeMeta: k8s\0, field 1 (empty), field 2 raw.
    const unknown = bytes.subarray(4);
    const typeMetaLength = unknown[1];
    const bare = Buffer.concat([bytes.subarray(0, 4), Buffer.from([0x0a, 0x00]), unknown.subarray(2 + typeMetaLength)]);
    const created = decode(
      await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: bare, headers: PROTOBUF_HEADERS }),
      201,
    );
    expect(created).to.include({ apiVersion: 'v1', kind: 'ServiceAccount' });
    expect(created.metadata.name).to.equal('sa');
  });

  it('stores secret bytes from protobuf and platform-group kinds keep their apiVersion', async () => {
    const ns = await createNamespace(gh, 'pb');
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      type: 'Opaque',
      data: { bin: Buffer.from([0, 1, 254, 255]).toString('base64') },
    };
    decode(
      await gh.request('POST', `/api/v1/namespaces/${ns}/secrets`, {
        body: encodeProtobufObject(secret),
        headers: PROTOBUF_HEADERS,
      }),
      201,
    );
    expect((await gh.request('GET', `/api/v1/namespaces/${ns}/secrets/s`)).json().data).to.deep.equal(secret.data);

    const np = {
      apiVersion: 'networking.platform.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'np' },
      spec: {
        podSelector: {},
        ingress: [{ ports: [{ protocol: 'TCP', port: 'http' }, { port: 443 }] }],
        policyTypes: ['Ingress'],
      },
    };
    const created = decode(
      await gh.request('POST', `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies`, {
        body: encodeProtobufObject(np),
        headers: PROTOBUF_HEADERS,
      }),
      201,
    );
    expect(created.apiVersion).to.equal('networking.platform.io/v1');
    expect(created.spec.ingress[0].ports).to.deep.equal([
      { protocol: 'TCP', port: 'http' },
      { protocol: 'TCP', port: 443 },
    ]);
  });

  it('answers errors as protobuf Status objects', async () => {
    const ns = await createNamespace(gh, 'pb');
    const missing = expectProtobufFailure(
      await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/nope`, { headers: ACCEPT_ONLY }),
      404,
      'NotFound',
    );
    expect(missing.message).to.equal('configmaps "nope" not found');
    expect(missing.details).to.deep.equal({ name: 'nope', kind: 'configmaps' });
    const invalid = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Not_Valid' } });
    const status = expectProtobufFailure(
      await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: invalid, headers: PROTOBUF_HEADERS }),
      422,
      'Invalid',
    );
    expect(status.details.causes[0].field).to.equal('metadata.name');
  });

  it('answers 400 for malformed protobuf bodies', async () => {
    const ns = await createNamespace(gh, 'pb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const good = encodeProtobufObject({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    for (const body of [
      Buffer.from('{"kind":"ConfigMap"}'),
      good.subarray(0, good.length - 2),
      Buffer.concat([good.subarray(0, 4), Buffer.from([0xff, 0xff])]),
    ]) {
      const status = expectProtobufFailure(
        await gh.request('POST', path, { body, headers: PROTOBUF_HEADERS }),
        400,
        'BadRequest',
      );
      expect(status.message).to.match(/protobuf/);
    }
    // A kind that does not match the path is refused as for JSON.
    const secret = encodeProtobufObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'x' } });
    expectProtobufFailure(
      await gh.request('POST', path, { body: secret, headers: PROTOBUF_HEADERS }),
      400,
      'BadRequest',
    );
  });

  it('refuses protobuf patches with 415 and answers Tables in JSON only', async () => {
    const ns = await createNamespace(gh, 'pb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await gh.request('POST', path, { body: { metadata: { name: 'cm' } } })).status).to.equal(201);
    const patch = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cm' },
      data: { a: 'b' },
    });
    expectFailure(
      await gh.request('PATCH', `${path}/cm`, { body: patch, headers: { 'content-type': PROTOBUF_MEDIA_TYPE } }),
      415,
      'UnsupportedMediaType',
    );
    const tableAccept = `${PROTOBUF_MEDIA_TYPE};as=Table;v=v1;g=meta.k8s.io`;
    expectFailure(await gh.request('GET', path, { headers: { accept: tableAccept } }), 406, 'NotAcceptable');
    const res = await gh.request('GET', path, {
      headers: { accept: `${tableAccept},application/json;as=Table;v=v1;g=meta.k8s.io` },
    });
    expect(res.status).to.equal(200);
    expect(res.json()).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
  });

  it('deletes with a protobuf DeleteOptions body', async () => {
    const ns = await createNamespace(gh, 'pb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await gh.request('POST', path, { body: { metadata: { name: 'gone' } } })).status).to.equal(201);
    const options = encodeProtobufObject({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Background',
      dryRun: ['All'],
    });
    const res = await gh.request('DELETE', `${path}/gone`, { body: options, headers: PROTOBUF_HEADERS });
    expect(decode(res, 200)).to.include({ kind: 'Status', status: 'Success' });
    // dryRun came through the protobuf body: the object is still there.
    expect((await gh.request('GET', `${path}/gone`)).status).to.equal(200);
    const bad = encodeProtobufObject({ apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Sideways' });
    expectProtobufFailure(
      await gh.request('DELETE', `${path}/gone`, { body: bad, headers: PROTOBUF_HEADERS }),
      422,
      'Invalid',
    );
  });

  it('streams watch events as length-prefixed protobuf frames', async () => {
    const ns = await createNamespace(gh, 'pb');
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    const list = decode(await gh.request('GET', path, { headers: ACCEPT_ONLY }), 200);
    const w = await openProtobufWatch(
      gh.url,
      `${path}?watch=1&resourceVersion=${list.metadata.resourceVersion}&allowWatchBookmarks=true`,
      { ca: gh.ca, token: gh.adminToken },
    );
    watches.push(w);
    expect(w.status).to.equal(200);
    expect(w.headers['content-type']).to.equal(`${PROTOBUF_MEDIA_TYPE};stream=watch`);
    expect((await gh.request('POST', path, { body: { metadata: { name: 'w1' }, data: { a: '1' } } })).status).to.equal(
      201,
    );
    const added = await w.next();
    expect(added.type).to.equal('ADDED');
    expect(added.object).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
    expect(added.object.metadata.name).to.equal('w1');
    expect(added.object.data).to.deep.equal({ a: '1' });
    expect((await gh.request('DELETE', `${path}/w1`)).status).to.equal(200);
    const deleted = await w.next();
    expect(deleted.type).to.equal('DELETED');
    expect(deleted.object.metadata.name).to.equal('w1');
  });

  it('refuses a watch that cannot start with a protobuf Status, before any frame', async () => {
    const ns = await createNamespace(gh, 'pb');
    const res = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=abc`, {
      headers: ACCEPT_ONLY,
      timeoutMs: 5000,
    });
    const status = expectProtobufFailure(res, 400, 'BadRequest');
    expect(status.message).to.include('resourceVersion');
  });
});
