// Keys named like Object.prototype's members ("__proto__", "constructor", "toString", ...) are fields like any other:
// a lookup that finds an inherited member instead of a schema property or a table entry let them escape pruning and
// Strict validation, and "__proto__" in a merge patch became the patched object's prototype. Every object node of
// every served kind is tried with every such key.
import { expect } from 'chai';
import { startTestGatehouse, type TestGatehouse } from '../helpers/gatehouse.js';
import { everyType } from '../helpers/every-type.js';

const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'isPrototypeOf',
];

type Json = Record<string, any>;

/** The path (as keys and indexes) of every object node in `value`. */
function objectNodes(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => objectNodes(v, [...at, i]));
  if (typeof value !== 'object' || value === null) return [];
  return [at, ...Object.entries(value).flatMap(([k, v]) => objectNodes(v, [...at, k]))];
}

function nodeAt(root: unknown, path: (string | number)[]): Json | undefined {
  let node: any = root;
  for (const step of path) node = node !== undefined && Object.hasOwn(node, step) ? node[step] : undefined;
  return node;
}

/** The object with an own `key: "v"` at `path` (JSON.parse makes even "__proto__" an own key). */
function withKey(obj: Json, path: (string | number)[], key: string, value: string): string {
  const copy = JSON.parse(JSON.stringify(obj));
  const node = nodeAt(copy, path)!;
  Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  return JSON.stringify(copy);
}

function collectionOf(itemPath: string): string {
  return itemPath.slice(0, itemPath.lastIndexOf('/'));
}

describe('keys named like Object.prototype members', function () {
  this.timeout(120_000);
  let gh: TestGatehouse;
  const ns = 'proto-keys';

  before(async () => {
    gh = await startTestGatehouse();
    expect((await gh.request('POST', '/api/v1/namespaces', { body: { metadata: { name: ns } } })).status).to.equal(201);
  });
  after(async () => gh.close());

  it('are refused by Strict validation or kept as map keys, at every object node of every kind, never dropped or a 5xx', async () => {
    let n = 0;
    for (const { obj, path: itemPath } of everyType(ns)) {
      if (obj.kind === 'Namespace') continue; // the test's own namespace; its schema is covered by the others' metadata
      for (const nodePath of objectNodes(obj)) {
        for (const key of PROTOTYPE_KEYS) {
          const name = `p${n++}`;
          const body = JSON.parse(JSON.stringify(obj));
          body.metadata.name = name;
          // A Secret's data values are base64 ("v" would fail decoding first): "dg==" is "v".
          const value = obj.kind === 'Secret' && nodePath[0] === 'data' ? Buffer.from('v').toString('base64') : 'v';
          const text = withKey(body, nodePath, key, value);
          const where = `${obj.kind} at ${[...nodePath, key].join('.')}`;
          const res = await gh.request('POST', `${collectionOf(itemPath)}?fieldValidation=Strict`, { body: text });
          expect(res.status, `${where}: ${res.body}`).to.be.oneOf([201, 400, 422]);
          if (res.status === 400) {
            expect(res.json().message, where).to.contain('unknown field').and.contain(key);
          } else if (res.status === 201) {
            // Accepted by Strict: only a map may hold the key, and then it is stored as it was sent.
            const stored = JSON.parse((await gh.request('GET', `${collectionOf(itemPath)}/${name}`)).body);
            // A Secret's stringData is write-only: its keys land in data, base64-encoded.
            const [storedPath, expected] =
              nodePath[0] === 'stringData' ? [['data'], Buffer.from('v').toString('base64')] : [nodePath, value];
            const node = nodeAt(stored, storedPath);
            expect(node && Object.hasOwn(node, key) && node[key], `${where}: stored ${JSON.stringify(node)}`).to.equal(
              expected,
            );
          }
        }
      }
    }
  });

  for (const [mediaType, label] of [
    ['application/merge-patch+json', 'merge'],
    ['application/strategic-merge-patch+json', 'strategic merge'],
  ]) {
    it(`a ${label} patch's "__proto__" is a field: Strict refuses it, and nothing reaches the object through a prototype`, async () => {
      const name = `smuggle-${label.replace(' ', '-')}`;
      const cms = `/api/v1/namespaces/${ns}/configmaps`;
      expect((await gh.request('POST', cms, { body: { metadata: { name }, data: { a: '1' } } })).status).to.equal(201);
      const patch = '{"metadata":{"__proto__":{"labels":{"smuggled":"yes"},"finalizers":["x/y"]}},"data":{"b":"2"}}';
      const strict = await gh.request('PATCH', `${cms}/${name}?fieldValidation=Strict`, {
        body: patch,
        headers: { 'content-type': mediaType },
      });
      expect(strict.status, strict.body).to.equal(400);
      expect(strict.json().message).to.contain('unknown field "metadata.__proto__"');
      const lax = await gh.request('PATCH', `${cms}/${name}`, { body: patch, headers: { 'content-type': mediaType } });
      expect(lax.status, lax.body).to.equal(200);
      const stored = JSON.parse((await gh.request('GET', `${cms}/${name}`)).body);
      expect(stored.data).to.deep.equal({ a: '1', b: '2' });
      expect(stored.metadata.labels).to.equal(undefined);
      expect(stored.metadata.finalizers).to.equal(undefined);
      expect(Object.hasOwn(stored.metadata, '__proto__')).to.equal(false);
    });
  }

  it('a subresource path segment named like a member is a 404, not a handler found through the prototype', async () => {
    expect(
      (await gh.request('POST', `/api/v1/namespaces/${ns}/serviceaccounts`, { body: { metadata: { name: 'robot' } } }))
        .status,
    ).to.equal(201);
    for (const sub of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      for (const method of ['GET', 'POST', 'PUT']) {
        const res = await gh.request(
          method,
          `/api/v1/namespaces/${ns}/serviceaccounts/robot/${sub}`,
          method === 'GET' ? {} : { body: {} },
        );
        expect(res.status, `${method} ${sub}: ${res.body}`).to.equal(404);
      }
    }
  });

  it('a patch media type named like a member is a 415, not a call of what it finds', async () => {
    expect(
      (await gh.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { metadata: { name: 'media' } } }))
        .status,
    ).to.equal(201);
    for (const type of ['constructor', '__proto__', 'tostring']) {
      const res = await gh.request('PATCH', `/api/v1/namespaces/${ns}/configmaps/media`, {
        body: '{}',
        headers: { 'content-type': type },
      });
      expect(res.status, `${type}: ${res.body}`).to.equal(415);
    }
  });

  it('a selector operator and a quantity suffix named like members are field errors', async () => {
    const policy = {
      apiVersion: 'networking.platform.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: 'op' },
      spec: { podSelector: { matchExpressions: [{ key: 'app', operator: 'constructor', values: ['a'] }] } },
    };
    const bad = await gh.request('POST', `/apis/networking.platform.io/v1/namespaces/${ns}/networkpolicies`, {
      body: policy,
    });
    expect(bad.status, bad.body).to.equal(422);
    expect(bad.json().message).to.contain('spec.podSelector.matchExpressions[0].operator');
    const quota = {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { cpu: '1constructor', memory: '1__proto__' } },
    };
    const res = await gh.request('POST', `/api/v1/namespaces/${ns}/resourcequotas`, { body: quota });
    expect(res.status, res.body).to.equal(422);
    expect(res.json().message).to.contain('spec.hard[cpu]').and.contain('spec.hard[memory]');
  });
});
