// CBOR over real HTTPS (alpha, CBORServingAndStorage): with the gate, application/cbor bodies and answers,
// application/cbor-seq watches, application/apply-patch+cbor and Status errors in CBOR; no other patch type in CBOR;
// and without the gate the 415s and 406s of a server that has no CBOR at all.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure, uniqueName } from '../helpers/api.js';
import {
  CBOR,
  CBOR_HEADERS,
  cborBody,
  expectCborFailure,
  openCborWatch,
  readCbor,
  type CborWatch,
} from '../helpers/cbor.js';

const APPLY_CBOR = { 'content-type': 'application/apply-patch+cbor', accept: CBOR };
const cm = (name: string, data: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

describe('CBOR over HTTPS', function () {
  this.timeout(30_000);

  describe('with CBORServingAndStorage=true', () => {
    let gh: TestGatehouse;
    let ns: string;
    let cms: string;
    const watches: CborWatch[] = [];

    before(async () => {
      gh = await startTestGatehouse(['--feature-gates=CBORServingAndStorage=true']);
      ns = await createNamespace(gh, 'cbor');
      cms = `/api/v1/namespaces/${ns}/configmaps`;
    });
    afterEach(() => {
      for (const w of watches.splice(0)) w.close();
    });
    after(async () => gh?.close());

    it('creates from a CBOR body (with or without the self-described tag) and answers get, list and update in CBOR', async () => {
      const created = readCbor(
        await gh.request('POST', cms, { body: cborBody(cm('one', { k: 'v', empty: '' })), headers: CBOR_HEADERS }),
        201,
      );
      expect(created).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(created.metadata).to.include({ name: 'one', namespace: ns });
      expect(created.data).to.deep.equal({ k: 'v', empty: '' });
      readCbor(
        await gh.request('POST', cms, { body: cborBody(cm('two', { k: 'w' }), false), headers: CBOR_HEADERS }),
        201,
      );

      // The CBOR answer holds exactly what the JSON answer holds.
      const json = (await gh.request('GET', `${cms}/one`)).json();
      const got = readCbor(await gh.request('GET', `${cms}/one`, { headers: { accept: CBOR } }), 200);
      expect(got).to.deep.equal(json);

      const list = readCbor(await gh.request('GET', cms, { headers: { accept: CBOR } }), 200);
      expect(list).to.include({ apiVersion: 'v1', kind: 'ConfigMapList' });
      expect(list.metadata.resourceVersion).to.be.a('string');
      expect(list.items.map((i: any) => i.metadata.name)).to.deep.equal(['one', 'two']);
      expect(list.items[0]).to.deep.equal(json);

      const updated = readCbor(
        await gh.request('PUT', `${cms}/one`, { body: cborBody({ ...got, data: { k: 'v2' } }), headers: CBOR_HEADERS }),
        200,
      );
      expect(updated.data).to.deep.equal({ k: 'v2' });
      expect(updated.metadata.resourceVersion).to.not.equal(got.metadata.resourceVersion);
      // A CBOR body may be answered in JSON: the two directions are negotiated separately.
      const mixed = await gh.request('POST', cms, {
        body: cborBody(cm('three', {})),
        headers: { 'content-type': CBOR },
      });
      expect(mixed.status, mixed.body).to.equal(201);
      expect(mixed.json().metadata.name).to.equal('three');
    });

    it('streams a watch as application/cbor-seq, one self-described data item per event', async () => {
      const name = uniqueName('watched');
      const rv = readCbor(await gh.request('GET', cms, { headers: { accept: CBOR } }), 200).metadata.resourceVersion;
      const w = await openCborWatch(gh.url, `${cms}?watch=true&resourceVersion=${rv}`, {
        ca: gh.ca,
        token: gh.adminToken,
      });
      watches.push(w);
      expect(w.status).to.equal(200);
      expect(String(w.headers['content-type'])).to.equal('application/cbor-seq');
      expect(
        (await gh.request('POST', cms, { body: cborBody(cm(name, { a: '1' })), headers: CBOR_HEADERS })).status,
      ).to.equal(201);
      expect(
        (
          await gh.request('PATCH', `${cms}/${name}`, {
            body: { data: { a: '2' } },
            headers: { 'content-type': 'application/merge-patch+json' },
          })
        ).status,
      ).to.equal(200);
      expect((await gh.request('DELETE', `${cms}/${name}`)).status).to.equal(200);
      const added = await w.next();
      expect(added.type).to.equal('ADDED');
      expect(added.object).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
      expect(added.object.metadata.name).to.equal(name);
      const modified = await w.next();
      expect(modified.type).to.equal('MODIFIED');
      expect(modified.object.data).to.deep.equal({ a: '2' });
      expect((await w.next()).type).to.equal('DELETED');
    });

    it('server-side applies a CBOR body: creates, then updates, recording the manager in managedFields', async () => {
      const name = uniqueName('applied');
      const path = `${cms}/${name}?fieldManager=cbor-tool`;
      const created = readCbor(
        await gh.request('PATCH', path, {
          body: cborBody({ ...cm(name, { a: '1' }), metadata: { name, labels: { app: 'x' } } }),
          headers: APPLY_CBOR,
        }),
        201,
      );
      expect(created.data).to.deep.equal({ a: '1' });
      expect(created.metadata.managedFields).to.have.length(1);
      expect(created.metadata.managedFields[0]).to.include({
        manager: 'cbor-tool',
        operation: 'Apply',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
      });
      expect(created.metadata.managedFields[0].fieldsV1).to.deep.equal({
        'f:data': { 'f:a': {} },
        'f:metadata': { 'f:labels': { 'f:app': {} } },
      });

      // The same intent in YAML by another manager, then a CBOR apply that drops a field it owned alone.
      const yaml = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  b: "2"\n`;
      expect(
        (
          await gh.request('PATCH', `${cms}/${name}?fieldManager=yaml-tool`, {
            body: yaml,
            headers: { 'content-type': 'application/apply-patch+yaml' },
          })
        ).status,
      ).to.equal(200);
      const updated = readCbor(
        await gh.request('PATCH', path, { body: cborBody(cm(name, { a: '3' })), headers: APPLY_CBOR }),
        200,
      );
      expect(updated.data).to.deep.equal({ a: '3', b: '2' });
      expect(updated.metadata.labels ?? {}).to.deep.equal({});
      const managers = updated.metadata.managedFields.map((e: any) => `${e.manager}/${e.operation}`).sort();
      expect(managers).to.deep.equal(['cbor-tool/Apply', 'yaml-tool/Apply']);

      // Conflicts come back as a CBOR Status.
      const conflict = await gh.request('PATCH', path, {
        body: cborBody(cm(name, { a: '3', b: 'mine' })),
        headers: APPLY_CBOR,
      });
      expect(expectCborFailure(conflict, 409, 'Conflict').message).to.contain('yaml-tool');
    });

    it('has no CBOR form of the other patch types (415), and apply still needs a fieldManager', async () => {
      const name = uniqueName('patched');
      readCbor(await gh.request('POST', cms, { body: cborBody(cm(name, { a: '1' })), headers: CBOR_HEADERS }), 201);
      for (const type of [
        'application/merge-patch+cbor',
        'application/json-patch+cbor',
        'application/strategic-merge-patch+cbor',
      ]) {
        const res = await gh.request('PATCH', `${cms}/${name}`, {
          body: cborBody({ data: { a: '2' } }),
          headers: { 'content-type': type, accept: CBOR },
        });
        const status = expectCborFailure(res, 415, 'UnsupportedMediaType');
        expect(status.message, type).to.contain(type).and.contain('application/apply-patch+cbor');
      }
      const noManager = await gh.request('PATCH', `${cms}/${name}`, {
        body: cborBody(cm(name, { a: '1' })),
        headers: APPLY_CBOR,
      });
      expect(noManager.status).to.equal(422);
    });

    it('answers errors as CBOR Status objects when the client accepts CBOR', async () => {
      const missing = expectCborFailure(
        await gh.request('GET', `${cms}/nope`, { headers: { accept: CBOR } }),
        404,
        'NotFound',
      );
      expect(missing.message).to.equal('configmaps "nope" not found');
      // A client that accepts JSON too gets JSON first only when it prefers it.
      expectFailure(
        await gh.request('GET', `${cms}/nope`, { headers: { accept: 'application/json, application/cbor' } }),
        404,
        'NotFound',
      );
    });

    it('refuses malformed bodies, trailing bytes and bignum tags with 400', async () => {
      const bodies: Array<[string, Buffer, RegExp]> = [
        ['trailing bytes', Buffer.concat([cborBody(cm('t', {})), Buffer.from([0x00])]), /extraneous data/],
        ['two data items', Buffer.concat([cborBody(cm('t', {})), cborBody(cm('u', {}))]), /extraneous data/],
        ['a truncated map', cborBody(cm('t', { k: 'v' })).subarray(0, 20), /error decoding CBOR body/],
        [
          'a bignum',
          Buffer.concat([
            Buffer.from('a2', 'hex'),
            cborBody('kind', false),
            cborBody('ConfigMap', false),
            cborBody('data', false),
            Buffer.from('c24101', 'hex'),
          ]),
          /unsupported CBOR tag 2 \(bignum\) at data/,
        ],
        ['JSON under the CBOR type', Buffer.from(JSON.stringify(cm('t', {}))), /error decoding CBOR body/],
      ];
      for (const [what, body, message] of bodies) {
        const res = await gh.request('POST', cms, { body, headers: CBOR_HEADERS });
        expect(expectCborFailure(res, 400, 'BadRequest').message, what).to.match(message);
      }
      expect((await gh.request('GET', `${cms}/t`)).status).to.equal(404);
    });

    describe('fieldValidation', () => {
      // {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"k":"1","k":"2"}}: cborg cannot write
      // a repeated key, so the map is spelled out.
      const duplicateBody = (): Buffer =>
        Buffer.concat([
          Buffer.from('d9d9f7a4', 'hex'),
          Buffer.from(cborBody('apiVersion', false)),
          Buffer.from(cborBody('v1', false)),
          Buffer.from(cborBody('kind', false)),
          Buffer.from(cborBody('ConfigMap', false)),
          Buffer.from(cborBody('metadata', false)),
          Buffer.from(cborBody({ name: 'dup' }, false)),
          Buffer.from(cborBody('data', false)),
          Buffer.from('a2616b6131616b6132', 'hex'),
        ]);

      it('repeated map keys follow fieldValidation as in JSON: Strict 400, Warn a Warning header, Ignore the last value', async () => {
        const strict = await gh.request('POST', `${cms}?fieldValidation=Strict`, {
          body: duplicateBody(),
          headers: CBOR_HEADERS,
        });
        expect(expectCborFailure(strict, 400, 'BadRequest').message).to.contain('duplicate field "data.k"');
        const strictApply = await gh.request('PATCH', `${cms}/dup?fieldManager=m&fieldValidation=Strict`, {
          body: duplicateBody(),
          headers: APPLY_CBOR,
        });
        expectCborFailure(strictApply, 400, 'BadRequest');
        const warn = await gh.request('POST', `${cms}?fieldValidation=Warn`, {
          body: duplicateBody(),
          headers: CBOR_HEADERS,
        });
        expect(readCbor(warn, 201).data).to.deep.equal({ k: '2' });
        expect(String(warn.headers.warning)).to.contain('duplicate field').and.contain('data.k');
        expect((await gh.request('DELETE', `${cms}/dup`)).status).to.equal(200);
        const ignore = await gh.request('POST', `${cms}?fieldValidation=Ignore`, {
          body: duplicateBody(),
          headers: CBOR_HEADERS,
        });
        expect(readCbor(ignore, 201).data).to.deep.equal({ k: '2' });
        expect(ignore.headers.warning).to.equal(undefined);
      });

      it('unknown fields follow fieldValidation as in JSON: Strict 400, Warn a Warning header, Ignore silence', async () => {
        const body = (name: string) => cborBody({ ...cm(name, { k: 'v' }), metadata: { name, labelz: { a: 'b' } } });
        const strict = await gh.request('POST', `${cms}?fieldValidation=Strict`, {
          body: body('strict'),
          headers: CBOR_HEADERS,
        });
        expect(expectCborFailure(strict, 400, 'BadRequest').message).to.contain('unknown field "metadata.labelz"');
        const warn = await gh.request('POST', `${cms}?fieldValidation=Warn`, {
          body: body('warn'),
          headers: CBOR_HEADERS,
        });
        expect(readCbor(warn, 201).metadata).to.not.have.property('labelz');
        expect(String(warn.headers.warning)).to.contain('unknown field').and.contain('metadata.labelz');
        const ignore = await gh.request('POST', `${cms}?fieldValidation=Ignore`, {
          body: body('ignore'),
          headers: CBOR_HEADERS,
        });
        readCbor(ignore, 201);
        expect(ignore.headers.warning).to.equal(undefined);
      });
    });

    it('serves no Table in CBOR, as kube-apiserver v1.32: 406 alone, the next Accept entry otherwise', async () => {
      const table = 'application/cbor;as=Table;v=v1;g=meta.k8s.io';
      expect((await gh.request('GET', cms, { headers: { accept: table } })).status).to.equal(406);
      const fallback = await gh.request('GET', cms, {
        headers: { accept: `${table}, application/json;as=Table;v=v1;g=meta.k8s.io` },
      });
      expect(fallback.status).to.equal(200);
      expect(fallback.json().kind).to.equal('Table');
      readCbor(await gh.request('GET', cms, { headers: { accept: `${table}, ${CBOR}` } }), 200);
    });
  });

  describe('without the gate (the default)', () => {
    let gh: TestGatehouse;
    let cms: string;

    before(async () => {
      gh = await startTestGatehouse();
      cms = `/api/v1/namespaces/${await createNamespace(gh, 'nocbor')}/configmaps`;
      expect((await gh.request('POST', cms, { body: cm('present', { a: '1' }) })).status).to.equal(201);
    });
    after(async () => gh?.close());

    it('answers CBOR bodies with 415 and CBOR-only Accept headers with 406, in JSON', async () => {
      const create = expectFailure(
        await gh.request('POST', cms, { body: cborBody(cm('x', {})), headers: CBOR_HEADERS }),
        415,
        'UnsupportedMediaType',
      );
      expect(create.message.split('accepted media types include')[1]).to.not.contain('cbor');
      expect(
        expectFailure(await gh.request('GET', `${cms}/present`, { headers: { accept: CBOR } }), 406, 'NotAcceptable')
          .message,
      ).to.not.contain('cbor');
      expect(
        (await gh.request('GET', `${cms}?watch=true`, { headers: { accept: CBOR }, timeoutMs: 5000 })).status,
      ).to.equal(406);
      const apply = await gh.request('PATCH', `${cms}/present?fieldManager=m`, {
        body: cborBody(cm('present', {})),
        headers: APPLY_CBOR,
      });
      expect(
        expectFailure(apply, 415, 'UnsupportedMediaType').message.split('accepted media types include')[1],
      ).to.not.contain('cbor');
      // JSON still works beside it.
      expect(
        (await gh.request('GET', `${cms}/present`, { headers: { accept: `${CBOR}, application/json` } })).json().data,
      ).to.deep.equal({ a: '1' });
    });
  });
});
