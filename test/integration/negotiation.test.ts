// Media types over real HTTPS: JSON and YAML both ways, ?pretty, server-side Tables (meta.k8s.io and
// meta.platform.io), 406/415/413, malformed bodies, fieldValidation, and gzip. Each test works in its own namespace
// so that lists and watches only ever see what the test itself wrote.
import { expect } from 'chai';
import https from 'node:https';
import { gunzipSync } from 'node:zlib';
import yaml from 'js-yaml';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { openWatch } from '../helpers/watch-client.js';
import { createNamespace, expectFailure } from '../helpers/api.js';

const TABLE_K8S = 'application/json;as=Table;v=v1;g=meta.k8s.io';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Header names and values as sent, so repeated headers (Warning) can be counted. */
  rawHeaders: string[];
  body: Buffer;
}

/** Like gh.request, but keeps the body as bytes (gzip) and the raw header list (repeated Warning headers). */
function rawRequest(
  gh: TestGatehouse,
  method: string,
  path: string,
  opts: { body?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${gh.adminToken}`, ...opts.headers };
    const req = https.request(new URL(path, gh.url), { method, headers, ca: gh.ca }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

function headerValues(res: RawResponse, name: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2)
    if (res.rawHeaders[i].toLowerCase() === name) out.push(res.rawHeaders[i + 1]);
  return out;
}

async function createConfigMap(
  gh: TestGatehouse,
  ns: string,
  name: string,
  data: Record<string, string> = { k: 'v' },
): Promise<any> {
  const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'neg' } }, data },
  });
  expect(res.status, res.body).to.equal(201);
  return res.json();
}

describe('media types and negotiation', function () {
  this.timeout(30_000);
  let gh: TestGatehouse;
  before(async () => {
    gh = await startTestGatehouse();
  });
  after(async () => {
    await gh?.close();
  });

  describe('JSON and YAML', () => {
    it('accepts a YAML request body and answers YAML when asked', async () => {
      const ns = await createNamespace(gh, 'yaml');
      const body =
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-yaml\n  labels:\n    app: y\ndata:\n  key: "1"\n';
      const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body,
        headers: { 'content-type': 'application/yaml', accept: 'application/yaml' },
      });
      expect(res.status, res.body).to.equal(201);
      expect(String(res.headers['content-type'])).to.match(/^application\/yaml/);
      const created = yaml.load(res.body) as any;
      expect(created).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1', data: { key: '1' } });
      expect(created.metadata).to.include({ name: 'from-yaml', namespace: ns });
      expect(created.metadata.uid).to.be.a('string').and.not.empty;

      // The stored object is the same whichever encoding reads it back.
      const asJson = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/from-yaml`);
      expect(String(asJson.headers['content-type'])).to.match(/^application\/json/);
      expect(asJson.json().data).to.deep.equal({ key: '1' });
      const list = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { accept: 'application/yaml' },
      });
      expect(list.status, list.body).to.equal(200);
      const parsed = yaml.load(list.body) as any;
      expect(parsed.kind).to.equal('ConfigMapList');
      expect(parsed.items.map((i: any) => i.metadata.name)).to.deep.equal(['from-yaml']);
    });

    it('indents with ?pretty=true and writes one line without it', async () => {
      const ns = await createNamespace(gh, 'pretty');
      await createConfigMap(gh, ns, 'p');
      const plain = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/p`);
      expect(plain.body.trimEnd()).to.not.contain('\n');
      const pretty = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/p?pretty=true`);
      expect(pretty.body).to.match(/^\{\n {2}"/);
      expect(pretty.json()).to.deep.equal(plain.json());
    });
  });

  describe('Tables', () => {
    let ns: string;
    before(async () => {
      ns = await createNamespace(gh, 'table');
      await createConfigMap(gh, ns, 'alpha', { a: '1' });
      await createConfigMap(gh, ns, 'beta', { b: '2' });
      // Roles have no printer columns of their own, so they show the spec's default Table.
      for (const name of ['alpha', 'beta']) {
        const role = {
          apiVersion: 'rbac.authorization.platform.io/v1',
          kind: 'Role',
          metadata: { name, labels: { app: 'neg' } },
          rules: [],
        };
        expect((await gh.request('POST', `${rolesPath()}`, { body: role })).status).to.equal(201);
      }
    });
    const rolesPath = () => `/apis/rbac.authorization.platform.io/v1/namespaces/${ns}/roles`;

    it('answers a meta.k8s.io/v1 Table with the default columns and partial object metadata', async () => {
      const res = await gh.request('GET', rolesPath(), { headers: { accept: TABLE_K8S } });
      expect(res.status, res.body).to.equal(200);
      expect(String(res.headers['content-type'])).to.contain('as=Table').and.contain('g=meta.k8s.io');
      const table = res.json();
      expect(table).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(table.metadata.resourceVersion).to.be.a('string').and.not.empty;
      const [name, created] = table.columnDefinitions;
      expect(table.columnDefinitions).to.have.length(2);
      expect(name).to.include({ name: 'Name', type: 'string', format: 'name' });
      expect(created).to.include({ name: 'Created At', type: 'date' });
      expect(table.rows.map((r: any) => r.cells[0])).to.deep.equal(['alpha', 'beta']);
      expect(table.rows[0].cells[1]).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const obj = table.rows[0].object;
      expect(obj).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(obj.metadata).to.include({ name: 'alpha', namespace: ns });
      expect(obj.metadata.labels).to.deep.equal({ app: 'neg' });
      // Metadata only: the Role's rules stay out of the row.
      expect(obj).to.not.have.property('rules');
    });

    it('renders a single object as a one-row Table', async () => {
      const res = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/beta`, {
        headers: { accept: TABLE_K8S },
      });
      expect(res.status, res.body).to.equal(200);
      const table = res.json();
      expect(table.kind).to.equal('Table');
      expect(table.rows).to.have.length(1);
      expect(table.rows[0].cells[0]).to.equal('beta');
    });

    it('includes the whole object with includeObject=Object and none with None', async () => {
      const whole = (
        await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=Object`, {
          headers: { accept: TABLE_K8S },
        })
      ).json();
      expect(whole.rows[0].object).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1', data: { a: '1' } });
      const none = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps?includeObject=None`, {
        headers: { accept: TABLE_K8S },
      });
      expect(none.status, none.body).to.equal(200);
      for (const row of none.json().rows) expect(row.object ?? null).to.equal(null);
    });

    for (const v of ['v1', 'v1beta1']) {
      it(`answers meta.platform.io/${v} Tables`, async () => {
        const res = await gh.request('GET', rolesPath(), {
          headers: { accept: `application/json;as=Table;v=${v};g=meta.platform.io` },
        });
        expect(res.status, res.body).to.equal(200);
        const table = res.json();
        expect(table).to.include({ kind: 'Table', apiVersion: `meta.platform.io/${v}` });
        expect(table.columnDefinitions.map((c: any) => c.name)).to.deep.equal(['Name', 'Created At']);
        expect(table.rows).to.have.length(2);
      });
    }

    it('falls back to JSON when the Table group is unknown and JSON is also accepted', async () => {
      const res = await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { accept: 'application/json;as=Table;g=foo;v=v1, application/json' },
      });
      expect(res.status, res.body).to.equal(200);
      expect(String(res.headers['content-type'])).to.not.contain('as=Table');
      expect(res.json().kind).to.equal('ConfigMapList');
    });

    it('sends Table event objects on a watch with a Table Accept header', async () => {
      const wns = await createNamespace(gh, 'tablewatch');
      const rv = (await gh.request('GET', `/api/v1/namespaces/${wns}/configmaps`)).json().metadata.resourceVersion;
      // Not awaited before the write: the watch starts at rv, so the event arrives whenever the headers do (the
      // header timing has its own test below).
      const opening = openWatch(gh.url, `/api/v1/namespaces/${wns}/configmaps?watch=true&resourceVersion=${rv}`, {
        ca: gh.ca,
        token: gh.adminToken,
        headers: { accept: TABLE_K8S },
      });
      await createConfigMap(gh, wns, 'watched');
      const w = await opening;
      try {
        expect(w.status).to.equal(200);
        const ev = await w.next();
        expect(ev.type).to.equal('ADDED');
        const table = ev.object as any;
        expect(table).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
        expect(table.rows).to.have.length(1);
        expect(table.rows[0].cells[0]).to.equal('watched');
        expect(table.rows[0].object.metadata.name).to.equal('watched');
      } finally {
        w.close();
      }
    });

    it('answers a watch with its headers before any event exists', async () => {
      const wns = await createNamespace(gh, 'watchheaders');
      const rv = (await gh.request('GET', `/api/v1/namespaces/${wns}/configmaps`)).json().metadata.resourceVersion;
      // client-go returns a watch only once the response headers arrived; a server that holds them back until the
      // first event leaves an idle watcher hanging.
      const opening = openWatch(gh.url, `/api/v1/namespaces/${wns}/configmaps?watch=true&resourceVersion=${rv}`, {
        ca: gh.ca,
        token: gh.adminToken,
        headers: { accept: TABLE_K8S },
      });
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), 3000);
      });
      const first = await Promise.race([opening, deadline]);
      clearTimeout(timer);
      if (first === 'timeout') {
        // Unblock the pending request so the watch can be closed.
        await createConfigMap(gh, wns, 'unblock');
        (await opening).close();
        expect.fail('no watch response headers within 3 s of an idle watch');
      }
      first.close();
      expect(first.status).to.equal(200);
      expect(String(first.headers['content-type'])).to.contain('as=Table');
    });
  });

  describe('refusals', () => {
    it('answers 406 NotAcceptable for an Accept header it cannot serve', async () => {
      const res = await gh.request('GET', '/api/v1/namespaces/default/configmaps', {
        headers: { accept: 'application/xml' },
      });
      expectFailure(res, 406, 'NotAcceptable');
    });

    it('answers 415 UnsupportedMediaType for a text/plain body', async () => {
      const res = await gh.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: 'name: x',
        headers: { 'content-type': 'text/plain' },
      });
      expectFailure(res, 415, 'UnsupportedMediaType');
    });

    it('answers 400 naming the problem for malformed JSON', async () => {
      const res = await gh.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"bad",}}',
      });
      const status = expectFailure(res, 400, 'BadRequest');
      // The message must say what is wrong (and where), not merely that the request was bad.
      expect(status.message)
        .to.match(/json/i)
        .and.match(/invalid character|expected|line \d+/i);
    });

    it('answers 400 for malformed YAML', async () => {
      const res = await gh.request('POST', '/api/v1/namespaces/default/configmaps', {
        body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n',
        headers: { 'content-type': 'application/yaml' },
      });
      const status = expectFailure(res, 400, 'BadRequest');
      expect(status.message).to.match(/yaml/i);
    });

    it('answers 413 for a body above --max-request-body-bytes', async () => {
      const small = await startTestGatehouse(['--max-request-body-bytes=2048']);
      try {
        const big = {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'big' },
          data: { blob: 'x'.repeat(4096) },
        };
        const res = await small.request('POST', '/api/v1/namespaces/default/configmaps', { body: big });
        expectFailure(res, 413, 'RequestEntityTooLarge');
        // The same server still takes a body under the limit.
        const ok = await small.request('POST', '/api/v1/namespaces/default/configmaps', {
          body: { ...big, data: { blob: 'x' } },
        });
        expect(ok.status, ok.body).to.equal(201);
      } finally {
        await small.close();
      }
    });
  });

  describe('fieldValidation', () => {
    // One unknown field (metadata.labelz) and one duplicate (data.k), as raw text: JSON.stringify cannot repeat a key.
    const bodyWith = (name: string): string =>
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labelz":{"a":"b"}},"data":{"k":"1","k":"2"}}`;

    it('Strict rejects with 400 listing the unknown and the duplicate field', async () => {
      const ns = await createNamespace(gh, 'strict');
      const res = await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`, {
        body: bodyWith('s'),
      });
      const status = expectFailure(res, 400, 'BadRequest');
      expect(status.message).to.contain('unknown field "metadata.labelz"').and.contain('duplicate field "data.k"');
      expect((await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/s`)).status).to.equal(404);
    });

    it('Strict rejects an unknown spec field on a ReplicaSet', async () => {
      const ns = await createNamespace(gh, 'strictrs');
      const rs = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name: 'rs' },
        spec: {
          foo: 1,
          selector: { matchLabels: { app: 'a' } },
          template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'img' }] } },
        },
      };
      const res = await gh.request('POST', `/apis/apps/v1/namespaces/${ns}/replicasets?fieldValidation=Strict`, {
        body: rs,
      });
      expect(expectFailure(res, 400, 'BadRequest').message).to.contain('unknown field "spec.foo"');
    });

    it('Warn (the default) creates and sends one Warning header per problem', async () => {
      const ns = await createNamespace(gh, 'warn');
      const res = await rawRequest(gh, 'POST', `/api/v1/namespaces/${ns}/configmaps`, {
        body: bodyWith('w'),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, res.body.toString()).to.equal(201);
      const warnings = headerValues(res, 'warning');
      expect(warnings).to.have.length(2);
      expect(warnings.some((w) => w.includes('unknown field') && w.includes('metadata.labelz'))).to.equal(true);
      expect(warnings.some((w) => w.includes('duplicate field') && w.includes('data.k'))).to.equal(true);
      const stored = JSON.parse(res.body.toString());
      // Unknown fields are dropped; of a duplicate the last value wins, as in kube.
      expect(stored.metadata).to.not.have.property('labelz');
      expect(stored.data).to.deep.equal({ k: '2' });
    });

    it('Ignore creates with no Warning header', async () => {
      const ns = await createNamespace(gh, 'ignore');
      const res = await rawRequest(gh, 'POST', `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Ignore`, {
        body: bodyWith('i'),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, res.body.toString()).to.equal(201);
      expect(headerValues(res, 'warning')).to.deep.equal([]);
    });

    it('Strict applies to PUT bodies too, duplicates included', async () => {
      const ns = await createNamespace(gh, 'strictput');
      const cm = await createConfigMap(gh, ns, 'u');
      const put = await gh.request('PUT', `/api/v1/namespaces/${ns}/configmaps/u?fieldValidation=Strict`, {
        body: bodyWith('u'),
      });
      expect(expectFailure(put, 400, 'BadRequest').message)
        .to.contain('unknown field "metadata.labelz"')
        .and.contain('duplicate field "data.k"');
      expect(
        (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/u`)).json().metadata.resourceVersion,
      ).to.equal(cm.metadata.resourceVersion);
    });

    it('Strict applies to merge-patch bodies too, duplicates included', async () => {
      const ns = await createNamespace(gh, 'strictpatch');
      const cm = await createConfigMap(gh, ns, 'u');
      // The duplicate sits in the patch document itself: only a decoder that reports duplicates can see it.
      const patch = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/u?fieldValidation=Strict`, {
        body: '{"metadata":{"labelz":{"a":"b"}},"data":{"k":"1","k":"2"}}',
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(expectFailure(patch, 400, 'BadRequest').message)
        .to.contain('unknown field "metadata.labelz"')
        .and.contain('duplicate field "data.k"');
      expect(
        (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps/u`)).json().metadata.resourceVersion,
      ).to.equal(cm.metadata.resourceVersion);
    });

    it('refuses an unknown fieldValidation value with 422 naming the options field, as kube-apiserver does', async () => {
      const res = await gh.request('POST', '/api/v1/namespaces/default/configmaps?fieldValidation=Loose', {
        body: bodyWith('x'),
      });
      expect(expectFailure(res, 422, 'Invalid').message).to.contain('fieldValidation');
    });
  });

  describe('gzip', () => {
    it('compresses a list for Accept-Encoding: gzip', async () => {
      const ns = await createNamespace(gh, 'gzip');
      await createConfigMap(gh, ns, 'g1');
      const res = await rawRequest(gh, 'GET', `/api/v1/namespaces/${ns}/configmaps`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(res.status).to.equal(200);
      expect(res.headers['content-encoding']).to.equal('gzip');
      const list = JSON.parse(gunzipSync(res.body).toString('utf8'));
      expect(list.kind).to.equal('ConfigMapList');
      expect(list.items.map((i: any) => i.metadata.name)).to.deep.equal(['g1']);
      // A get is compressed as well.
      const one = await rawRequest(gh, 'GET', `/api/v1/namespaces/${ns}/configmaps/g1`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(one.headers['content-encoding']).to.equal('gzip');
      expect(JSON.parse(gunzipSync(one.body).toString('utf8')).metadata.name).to.equal('g1');
    });

    it('does not compress a watch stream', async () => {
      const ns = await createNamespace(gh, 'gzipwatch');
      const rv = (await gh.request('GET', `/api/v1/namespaces/${ns}/configmaps`)).json().metadata.resourceVersion;
      const opening = openWatch(gh.url, `/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${rv}`, {
        ca: gh.ca,
        token: gh.adminToken,
        headers: { 'accept-encoding': 'gzip' },
      });
      await createConfigMap(gh, ns, 'streamed');
      const w = await opening;
      try {
        expect(w.headers['content-encoding']).to.equal(undefined);
        // The watch client parses plain JSON lines; a gzip stream would never produce this event.
        const ev = await w.next();
        expect(ev.type).to.equal('ADDED');
        expect(ev.object.metadata?.name).to.equal('streamed');
      } finally {
        w.close();
      }
    });

    it('does not compress with --feature-gates=APIResponseCompression=false', async () => {
      const plain = await startTestGatehouse(['--feature-gates=APIResponseCompression=false']);
      try {
        const res = await rawRequest(plain, 'GET', '/api/v1/namespaces', { headers: { 'accept-encoding': 'gzip' } });
        expect(res.status).to.equal(200);
        expect(res.headers['content-encoding']).to.equal(undefined);
        expect(JSON.parse(res.body.toString('utf8')).kind).to.equal('NamespaceList');
      } finally {
        await plain.close();
      }
    });
  });
});
