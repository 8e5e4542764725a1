// Bounded fuzzing of every body decoder and patch type with generated bodies from fixed seeds: whatever the input,
// the answer is a value or a 4xx Status (never another error, which the server would answer 500), and no single
// call holds the event loop past a generous bound. Deep, wide, repeated and prototype-named structures are generated
// on purpose, as are truncated and byte-flipped encodings.
import { expect } from 'chai';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { configMap } from '../../api/core/v1/config-map.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';
import { decodeJsonText } from '../../gateway/negotiation/json.js';
import { decodeYamlText, encodeYaml } from '../../gateway/negotiation/yaml.js';
import { decodeCbor } from '../../gateway/negotiation/cbor-decode.js';
import { encodeCbor } from '../../gateway/negotiation/cbor.js';
import { createProtobufSerializer } from '../../gateway/negotiation/protobuf.js';
import { PATCH_TYPES } from '../../gateway/patch/patch-types.js';

const CASES_PER_TARGET = 60;
/** Generous (the machine is shared): a 2 MB YAML body takes a few hundred ms; the unbounded calls took seconds. */
const CALL_BOUND_MS = 2000;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  'metadata',
  'name',
  'data',
  'spec',
  'items',
  '__proto__',
  'constructor',
  'prototype',
  '$patch',
  '$retainKeys',
  'a',
  '日本',
  'q"b',
  '',
];

/** `longestChain`: YAML's block form of a chain grows with the square of its depth, so YAML asks for shorter ones. */
function generator(rnd: () => number, longestChain = 1200) {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const int = (n: number) => Math.floor(rnd() * n);
  const scalar = (): unknown =>
    pick([null, true, false, 0, -1, 1e308, 0.5, '', 'x', 'x'.repeat(int(2000)), '\u0000\u0007', '\ud800', '日本'])!;
  function value(depth: number): unknown {
    const r = rnd();
    if (depth <= 0 || r < 0.3) return scalar();
    // Now and then one long chain, to reach past the depth limit.
    if (r < 0.35) return chain(int(longestChain));
    if (r < 0.65) return Array.from({ length: int(6) }, () => value(depth - 1));
    const o: Record<string, unknown> = {};
    for (let i = int(6); i > 0; i--)
      Object.defineProperty(o, pick(KEYS), {
        value: value(depth - 1),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    return o;
  }
  function chain(depth: number): unknown {
    let v: unknown = scalar();
    for (let i = 0; i < depth; i++) v = rnd() < 0.5 ? [v] : { a: v };
    return v;
  }
  /** A valid encoding cut short, with bytes flipped or inserted, or left alone. */
  function mangle(bytes: Buffer): Buffer {
    const r = rnd();
    if (r < 0.3 || bytes.length === 0) return bytes;
    const copy = Buffer.from(bytes);
    if (r < 0.5) return copy.subarray(0, int(copy.length));
    for (let i = int(4) + 1; i > 0; i--) copy[int(copy.length)] = int(256);
    return copy;
  }
  const pointer = () =>
    pick([
      '',
      '/metadata',
      '/metadata/name',
      '/data',
      '/data/a',
      '/zz',
      '/zz/-',
      '/zz/0',
      '/__proto__/x',
      '/data/constructor/prototype',
      '/metadata/x',
      '/a/b/c',
    ]);
  const jsonPatch = () =>
    Array.from({ length: int(30) }, () => ({
      op: pick(['add', 'remove', 'replace', 'move', 'copy', 'test', 'bogus']),
      path: pointer(),
      from: pointer(),
      value: value(3),
    }));
  return { value, mangle, jsonPatch, int, pick };
}

function object(): KObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'fuzz', labels: { a: 'b' } },
    data: { a: '1', b: '2' },
  };
}

/** Runs one call: it may return or throw a 4xx Status, nothing else, within the bound. */
function survives(what: string, call: () => unknown): void {
  const started = performance.now();
  try {
    call();
  } catch (e) {
    if (!isStatusError(e)) expect.fail(`${what}: threw ${(e as Error)?.stack ?? String(e)}`);
    expect(e.code, `${what}: ${e.message}`).to.be.within(400, 499);
  }
  expect(performance.now() - started, `${what}: milliseconds`).to.be.below(CALL_BOUND_MS);
}

describe('decoder and patch fuzzing (fixed seeds, bounded)', function () {
  this.timeout(60_000);

  it('JSON: generated and mangled bodies decode or answer 4xx', () => {
    const g = generator(random(1));
    for (let i = 0; i < CASES_PER_TARGET; i++) {
      const text = g.mangle(Buffer.from(JSON.stringify(g.value(6)) ?? 'null')).toString('utf8');
      survives(`json #${i}`, () => decodeJsonText(text));
    }
  });

  it('YAML: generated and mangled bodies, aliases and flow nesting decode or answer 4xx', () => {
    const g = generator(random(2), 150);
    for (let i = 0; i < CASES_PER_TARGET; i++) {
      const v = g.value(6);
      const r = i % 4;
      const text =
        r === 0
          ? encodeYaml(v)
          : r === 1
            ? `a: &x {b: [*x, *x]}\nc: ${'['.repeat(g.int(3000))}`
            : r === 2
              ? `${'- '.repeat(g.int(4000))}x\n`
              : g.mangle(Buffer.from(encodeYaml(v))).toString('utf8');
      survives(`yaml #${i}`, () => decodeYamlText(text));
    }
  });

  it('CBOR: generated and mangled bodies decode or answer 4xx', () => {
    const g = generator(random(3));
    for (let i = 0; i < CASES_PER_TARGET; i++) {
      let bytes: Buffer;
      try {
        bytes = encodeCbor(g.value(5));
      } catch {
        bytes = Buffer.from([0x9f, 0x9f, 0x9f]);
      }
      const body = g.mangle(bytes);
      survives(`cbor #${i}`, () => decodeCbor(body));
    }
  });

  it('protobuf: mangled envelopes decode or answer 4xx', () => {
    const g = generator(random(4));
    const protobuf = createProtobufSerializer();
    const valid = protobuf.encode(object());
    for (let i = 0; i < CASES_PER_TARGET; i++) {
      const body = i % 5 === 0 ? Buffer.from(Array.from({ length: g.int(200) }, () => g.int(256))) : g.mangle(valid);
      survives(`protobuf #${i}`, () =>
        protobuf.decode(body, { expected: { group: '', version: 'v1', kind: 'ConfigMap' } }),
      );
    }
  });

  for (const [type, seed] of [
    ['application/json-patch+json', 5],
    ['application/merge-patch+json', 6],
    ['application/strategic-merge-patch+json', 7],
  ] as const) {
    it(`${type}: generated patches apply or answer 4xx`, () => {
      const g = generator(random(seed));
      const patchFn = PATCH_TYPES[type];
      for (let i = 0; i < CASES_PER_TARGET; i++) {
        const patch = type === 'application/json-patch+json' && i % 5 !== 0 ? g.jsonPatch() : g.value(6);
        const text = JSON.stringify(patch) ?? 'null';
        const schema = i % 2 === 0 ? configMap.schema : replicaSet.schema;
        survives(`${type} #${i}`, () => patchFn(object(), decodeJsonText(text).value, schema));
      }
    });
  }

  it('JSON patch: doubling copies stop at the copy limit within the bound', () => {
    const patch = [
      { op: 'add', path: '/zz', value: ['x'.repeat(1000)] },
      ...Array.from({ length: 40 }, () => ({ op: 'copy', from: '/zz', path: '/zz/-' })),
    ];
    survives('doubling copies', () => PATCH_TYPES['application/json-patch+json'](object(), patch, configMap.schema));
  });

  it('JSON patch: inserts at the front of a long array stop at the shift limit within the bound', () => {
    const current = object();
    current.metadata.finalizers = Array.from({ length: 500_000 }, (_, i) => `f${i}`);
    const patch = Array.from({ length: 10_000 }, () => ({ op: 'add', path: '/metadata/finalizers/0', value: 'x' }));
    let status: unknown;
    survives('front inserts', () => {
      try {
        PATCH_TYPES['application/json-patch+json'](current, patch, configMap.schema);
      } catch (e) {
        status = e;
        throw e;
      }
    });
    expect((status as { code?: number } | undefined)?.code).to.equal(422);
    // Appending shifts nothing: the same number of appends is applied.
    const appends = patch.map((op) => ({ ...op, path: '/metadata/finalizers/-' }));
    const result = PATCH_TYPES['application/json-patch+json'](current, appends, configMap.schema) as typeof current;
    expect(result.metadata.finalizers).to.have.length(510_000);
  });
});
