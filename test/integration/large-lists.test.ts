// A large list in every encoding arrives complete and exact while the event loop keeps turning: the gateway runs in
// this process, so a heartbeat timer here is delayed by every step the gateway takes. Encoding such a list in one
// step (a YAML dump, a protobuf encode, a Table of whole objects) held the loop for as long as the encoding took.
import { expect } from 'chai';
import yaml from 'js-yaml';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { decodeProtobufObject } from '../../api/proto/object-codec.js';
import { eventually } from '../helpers/api.js';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { PROTOBUF_MEDIA_TYPE } from '../helpers/protobuf.js';

/** Past the size lists are streamed at; each item wide enough that the list is many encoder steps. */
const ITEMS = 1200;
const KEYS = 100;
/**
 * A stall is judged against the whole answer's time, so that a slow or loaded machine (or a garbage collection) does
 * not fail it: one-step encoding stalls for most of that time, chunks for a small part of it.
 */
const stallBound = (totalMs: number): number => Math.max(250, totalMs / 3);

describe('large lists', function () {
  this.timeout(180_000);
  let gh: TestGatehouse;
  const path = '/api/v1/namespaces/default/configmaps';
  let expected: Array<{ metadata: { name: string }; data: Record<string, string> }>;

  before(async () => {
    gh = await startTestGatehouse(['--storage-backend=memory']);
    const data = (i: number) =>
      Object.fromEntries(
        Array.from({ length: KEYS }, (_, k) => [
          `key-${k}`,
          k % 10 === 0 ? `line one ${i}\nline two\n` : `value-${i}-${k}`,
        ]),
      );
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < ITEMS) {
          const i = next++;
          const res = await gh.request('POST', path, {
            body: {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `big-${String(i).padStart(5, '0')}` },
              data: data(i),
            },
          });
          expect(res.status, res.body).to.equal(201);
        }
      }),
    );
    expected = (await gh.request('GET', path)).json().items;
    expect(expected).to.have.length(ITEMS);
  });
  after(async () => gh.close());

  /**
   * The answer to `accept`, and the longest the event loop went without running a 5 ms heartbeat while it arrived
   * (the body is joined and decoded after, which is the test's own work).
   */
  function listWithHeartbeat(
    accept: string,
    query = '',
  ): Promise<{ status: number; contentType: string; body: Buffer; longest: number; bound: number }> {
    const started = performance.now();
    let last = started;
    let longest = 0;
    const beat = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 5);
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(`${path}${query}`, gh.url),
        { ca: gh.ca, headers: { accept, authorization: `Bearer ${gh.adminToken}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            clearInterval(beat);
            longest = Math.max(longest, performance.now() - last);
            const bound = stallBound(performance.now() - started);
            resolve({
              status: res.statusCode ?? 0,
              contentType: String(res.headers['content-type']),
              body: Buffer.concat(chunks),
              longest,
              bound,
            });
          });
          res.on('error', reject);
        },
      );
      req.on('error', (e) => {
        clearInterval(beat);
        reject(e);
      });
      req.end();
    });
  }

  const names = (items: Array<{ metadata: { name: string } }>) => items.map((i) => i.metadata.name);

  it('JSON, compact and indented', async () => {
    for (const query of ['', '?pretty=true']) {
      const { status, body, longest, bound } = await listWithHeartbeat('application/json', query);
      expect(status).to.equal(200);
      expect(JSON.parse(body.toString('utf8')).items).to.deep.equal(expected);
      expect(longest, `longest stall ${query}`).to.be.below(bound);
    }
  });

  it('YAML', async () => {
    const { status, contentType, body, longest, bound } = await listWithHeartbeat('application/yaml');
    expect([status, contentType]).to.deep.equal([200, 'application/yaml']);
    expect((yaml.load(body.toString('utf8')) as { items: unknown[] }).items).to.deep.equal(expected);
    expect(longest).to.be.below(bound);
  });

  it('protobuf', async () => {
    const { status, contentType, body, longest, bound } = await listWithHeartbeat(PROTOBUF_MEDIA_TYPE);
    expect([status, contentType]).to.deep.equal([200, PROTOBUF_MEDIA_TYPE]);
    const list = decodeProtobufObject(body) as {
      kind: string;
      items: Array<{ metadata: { name: string }; data: Record<string, string> }>;
    };
    expect(list.kind).to.equal('ConfigMapList');
    expect(names(list.items)).to.deep.equal(names(expected));
    expect(list.items.map((i) => i.data)).to.deep.equal(expected.map((i) => i.data));
    expect(longest).to.be.below(bound);
  });

  it('Tables of whole objects, in JSON and YAML', async () => {
    for (const accept of [
      'application/json;as=Table;v=v1;g=meta.k8s.io',
      'application/yaml;as=Table;v=v1;g=meta.k8s.io',
    ]) {
      const { status, body, longest, bound } = await listWithHeartbeat(accept, '?includeObject=Object');
      expect(status).to.equal(200);
      const table = (
        accept.startsWith('application/json') ? JSON.parse(body.toString('utf8')) : yaml.load(body.toString('utf8'))
      ) as { kind: string; rows: Array<{ cells: unknown[]; object: unknown }> };
      expect(table.kind).to.equal('Table');
      expect(table.rows.map((r) => r.cells[0])).to.deep.equal(names(expected));
      expect(table.rows.map((r) => r.object)).to.deep.equal(expected);
      expect(longest, `longest stall for ${accept}`).to.be.below(bound);
    }
  });

  it('counts a streamed list at its length in apiserver_response_sizes', async () => {
    /** The LIST series of ConfigMaps in one namespace: its count and sum. */
    const sizes = async () => {
      const text = (await gh.request('GET', '/metrics')).body;
      const of = (suffix: string) => {
        const line = text
          .split('\n')
          .find(
            (l) =>
              l.startsWith(`apiserver_response_sizes_${suffix}{`) &&
              l.includes('verb="LIST"') &&
              l.includes('resource="configmaps"') &&
              l.includes('scope="namespace"'),
          );
        return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
      };
      return { count: of('count'), sum: of('sum') };
    };
    const before = await sizes();
    const { status, body } = await listWithHeartbeat('application/json');
    expect(status).to.equal(200);
    // Streamed in chunks, without a Content-Length: a buffered answer would not test the count.
    expect(body.length).to.be.above(1_000_000);
    // Recorded when the server has written the last byte, which may follow the client's reading it by a moment.
    const after = await eventually('the streamed list observed', async () => {
      const now = await sizes();
      return now.count > before.count ? now : undefined;
    });
    expect(after.count - before.count).to.equal(1);
    expect(after.sum - before.sum).to.equal(body.length);
  });
});
