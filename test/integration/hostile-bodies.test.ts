// Bodies built to hurt the server: each answers its 4xx promptly, without holding the event loop (the gateway runs in
// this process, so the test's own event-loop delay is the server's), and a committed write is never answered 500.
import { expect } from 'chai';
import http2 from 'node:http2';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestGatehouse, type GatehouseResponse, type TestGatehouse } from '../helpers/gatehouse.js';
import { createNamespace, expectFailure } from '../helpers/api.js';

const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };
const STRATEGIC_PATCH = { 'content-type': 'application/strategic-merge-patch+json' };
const APPLY = { 'content-type': 'application/apply-patch+yaml' };
const YAML = { 'content-type': 'application/yaml' };
/** Far above what any of these requests needs once bounded, far below the seconds they took unbounded. */
const LOOP_DELAY_BOUND_MS = 1000;

/** Runs `work` and fails if the event loop was held longer than the bound at any moment meanwhile. */
async function withoutStall<T>(work: () => Promise<T>): Promise<T> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  try {
    return await work();
  } finally {
    delay.disable();
    expect(delay.max / 1e6, 'longest event-loop delay (ms)').to.be.below(LOOP_DELAY_BOUND_MS);
  }
}

const nested = (depth: number, open = '[', close = ']', leaf = ''): string =>
  open.repeat(depth) + leaf + close.repeat(depth);
const deepObject = (depth: number): string => nested(depth, '{"a":', '}', '1');
const TOO_DEEP = 1200;

describe('hostile request bodies', function () {
  this.timeout(60_000);
  let gh: TestGatehouse;
  let ns: string;
  let cms: string;
  const cm = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name },
    ...extra,
  });

  before(async () => {
    gh = await startTestGatehouse(['--storage-backend=memory']);
    ns = await createNamespace(gh, 'hostile');
    cms = `/api/v1/namespaces/${ns}/configmaps`;
    expect((await gh.request('POST', cms, { body: cm('target', { data: { a: '1' } }) })).status).to.equal(201);
  });
  after(async () => {
    await gh?.close();
  });

  describe('JSON patch amplification', () => {
    it('refuses 23 doubling copies of a 1 KB value with 422 once they pass 3 MiB, and /readyz answers meanwhile', async () => {
      const patch = [
        { op: 'add', path: '/zz', value: ['x'.repeat(1000)] },
        ...Array.from({ length: 23 }, () => ({ op: 'copy', from: '/zz', path: '/zz/-' })),
      ];
      const [res, ready] = await withoutStall(() =>
        Promise.all([
          gh.request('PATCH', `${cms}/target`, { body: patch, headers: JSON_PATCH, timeoutMs: 10_000 }),
          gh.request('GET', '/readyz', { timeoutMs: 5_000 }),
        ]),
      );
      const status = expectFailure(res, 422, 'Invalid');
      expect(status.message).to.equal('the server rejected our request due to an error in our request');
      expect(status.details.causes[0].message).to.match(
        /^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/,
      );
      expect(ready.status).to.equal(200);
      expect((await gh.request('GET', `${cms}/target`)).json().data).to.deep.equal({ a: '1' });
    });

    it('applies copies that stay within the limit', async () => {
      const patch = [
        { op: 'add', path: '/data/b', value: 'x'.repeat(100) },
        { op: 'copy', from: '/data/b', path: '/data/c' },
      ];
      const res = await gh.request('PATCH', `${cms}/target`, { body: patch, headers: JSON_PATCH });
      expect(res.status, res.body).to.equal(200);
      expect(res.json().data.c).to.equal('x'.repeat(100));
    });

    it('refuses more than 10,000 operations with 413, as upstream words it', async () => {
      const op = { op: 'test', path: '/kind', value: 'ConfigMap' };
      const res = await withoutStall(() =>
        gh.request('PATCH', `${cms}/target`, { body: Array.from({ length: 10_001 }, () => op), headers: JSON_PATCH }),
      );
      expect(expectFailure(res, 413, 'RequestEntityTooLarge').message).to.equal(
        'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
      );
      expect(
        (
          await gh.request('PATCH', `${cms}/target`, {
            body: Array.from({ length: 10_000 }, () => op),
            headers: JSON_PATCH,
          })
        ).status,
      ).to.equal(200);
    });

    it('answers a path through __proto__ with 422 and leaves the object as it was', async () => {
      for (const path of ['/__proto__/polluted', '/metadata/__proto__/x', '/data/constructor/prototype/x']) {
        const res = await gh.request('PATCH', `${cms}/target`, {
          body: [{ op: 'add', path, value: 'x' }],
          headers: JSON_PATCH,
        });
        expectFailure(res, 422, 'Invalid');
      }
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('answers a move of /metadata into /metadata/x with 422', async () => {
      const res = await gh.request('PATCH', `${cms}/target`, {
        body: [{ op: 'move', from: '/metadata', path: '/metadata/x' }],
        headers: JSON_PATCH,
      });
      expect(expectFailure(res, 422, 'Invalid').details.causes[0].message).to.contain('into its own child');
    });
  });

  describe('nesting depth', () => {
    const tooDeep = (res: GatehouseResponse, codec = 'JSON') => {
      expect(expectFailure(res, 400, 'BadRequest').message).to.match(
        new RegExp(`^error decoding ${codec} body: exceeded max depth of 1000`),
      );
    };

    it('refuses JSON nested past 1000 levels in create, update, apply and DeleteOptions with 400', async () => {
      const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep"},"zz":${nested(TOO_DEEP)}}`;
      await withoutStall(async () => {
        tooDeep(await gh.request('POST', cms, { body }));
        tooDeep(await gh.request('PUT', `${cms}/target`, { body }));
        tooDeep(await gh.request('PATCH', `${cms}/deep?fieldManager=m`, { body, headers: APPLY }));
        tooDeep(
          await gh.request('DELETE', `${cms}/target`, {
            body: `{"kind":"DeleteOptions","apiVersion":"v1","zz":${nested(TOO_DEEP)}}`,
          }),
        );
      });
      expect((await gh.request('GET', `${cms}/target`)).status).to.equal(200);
    });

    it('refuses deep json-patch values and merge and strategic patches nested 100,000 deep with 400', async () => {
      await withoutStall(async () => {
        tooDeep(
          await gh.request('PATCH', `${cms}/target`, {
            body: `[{"op":"add","path":"/zz","value":${nested(TOO_DEEP)}}]`,
            headers: JSON_PATCH,
          }),
        );
        tooDeep(
          await gh.request('PATCH', `${cms}/target`, { body: `{"zz":${deepObject(100_000)}}`, headers: MERGE_PATCH }),
        );
        tooDeep(
          await gh.request('PATCH', `${cms}/target`, {
            body: `{"data":${deepObject(100_000)}}`,
            headers: STRATEGIC_PATCH,
          }),
        );
      });
    });

    it('accepts a body just within the limit and answers for what it holds', async () => {
      const res = await gh.request('POST', cms, {
        body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"within"},"data":{"a":${deepObject(990)}}}`,
      });
      expectFailure(res, 422, 'Invalid');
      const merged = await gh.request('PATCH', `${cms}/target`, {
        body: `{"zz":${nested(990)}}`,
        headers: MERGE_PATCH,
      });
      expect(merged.status, merged.body).to.equal(200);
    });

    it('refuses a YAML alias that contains itself and YAML flow nested 50,000 deep with 400', async () => {
      await withoutStall(async () => {
        const alias = await gh.request('POST', cms, {
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: alias, x: *m}\n',
          headers: YAML,
        });
        expect(expectFailure(alias, 400, 'BadRequest').message).to.equal(
          'error decoding YAML body: an alias refers to a node that contains it',
        );
        const flow = await gh.request('POST', cms, {
          body: `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: flow}\nzz: ${nested(50_000)}\n`,
          headers: YAML,
        });
        expect(expectFailure(flow, 400, 'BadRequest').message).to.match(/^error decoding YAML body: /);
        const applied = await gh.request('PATCH', `${cms}/alias?fieldManager=m`, {
          body: 'apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: alias, x: *m}\n',
          headers: APPLY,
        });
        expectFailure(applied, 400, 'BadRequest');
      });
    });
  });

  describe('warnings', () => {
    it('bounds the warnings of 150,000 unknown fields under fieldValidation=Warn, and stores the object', async () => {
      const body: Record<string, unknown> = cm('many-unknown');
      for (let i = 0; i < 150_000; i++) body[`f${i}`] = 1;
      const res = await gh.request('POST', `${cms}?fieldValidation=Warn`, { body });
      expect(res.status, res.body.slice(0, 300)).to.equal(201);
      const warnings = warningTexts(res.headers.warning);
      expect(warnings[0]).to.equal('unknown field "f0"');
      const total = warnings.reduce((n, w) => n + [...w].length, 0);
      expect(total).to.be.within(4096 - 32, 4096 + 256);
      expect(warnings.every((w) => [...w].length <= 256)).to.equal(true);
    });

    it('writes a warning naming a non-Latin-1 field as its UTF-8 bytes over HTTP/1.1: the write is answered 201, not 500', async () => {
      const res = await gh.request('POST', cms, { body: { ...cm('utf8-warning'), 日本: 1 } });
      expect(res.status, res.body).to.equal(201);
      expect(utf8Of(res.headers.warning)).to.equal('299 - "unknown field \\"日本\\""');
    });

    it('writes the same UTF-8 bytes over HTTP/2', async () => {
      const session = http2.connect(gh.url, { ca: gh.ca });
      try {
        const { status, headers } = await h2Post(
          session,
          gh.adminToken,
          cms,
          JSON.stringify({ ...cm('utf8-warning-h2'), 日本: 1 }),
        );
        expect(status).to.equal(201);
        expect(utf8Of(headers.warning)).to.equal('299 - "unknown field \\"日本\\""');
      } finally {
        session.destroy();
      }
    });

    it('escapes only " and \\ in a warning, and drops a warning holding a control character', async () => {
      const res = await gh.request('POST', cms, { body: { ...cm('escaped-warning'), 'q"b\\s': 1, 'c\u0007x': 1 } });
      expect(res.status, res.body).to.equal(201);
      // The text is `unknown field "q"b\s"`; the control character's warning is gone.
      expect(utf8Of(res.headers.warning)).to.equal('299 - "unknown field \\"q\\"b\\\\s\\""');
    });
  });
});

/** A header as its bytes read as UTF-8 (Node's clients hand header bytes over one character each). */
function utf8Of(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(', ') : String(header);
  return Buffer.from(value, 'latin1').toString('utf8');
}

/** The texts of `299 - "..."` warning headers, unescaped. */
function warningTexts(header: string | string[] | undefined): string[] {
  const values = utf8Of(header).match(/299 - "(?:[^"\\]|\\.)*"/g) ?? [];
  return values.map((v) => v.slice(7, -1).replace(/\\(.)/g, '$1'));
}

function h2Post(
  session: http2.ClientHttp2Session,
  token: string,
  path: string,
  body: string,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
    });
    stream.on('response', (headers) => {
      stream.resume();
      stream.on('end', () => resolve({ status: Number(headers[':status']), headers }));
    });
    stream.on('error', reject);
    stream.end(body);
  });
}
