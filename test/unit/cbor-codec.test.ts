// The CBOR codec: JSON → CBOR → JSON is lossless for every built-in kind, bodies carry the self-described tag, and
// every malformed, invalid or unsupported body is a 400 naming the problem (never a crash, never a silent guess).
import { expect } from 'chai';
import { encode as cborgEncode } from 'cborg';
import { builtinKinds } from '../../api/register.js';
import type { JSONSchema } from '../../api/schema.js';
import { isStatusError } from '../../api/meta/errors.js';
import { createCborSerializer, encodeCbor, SELF_DESCRIBED_PREFIX } from '../../gateway/negotiation/cbor.js';
import { decodeCbor } from '../../gateway/negotiation/cbor-decode.js';
import { defaultSerializers, negotiateRequest, negotiateResponse } from '../../gateway/negotiation/negotiate.js';
import { statusErrorOf } from '../helpers/assertions.js';

const hex = (h: string): Buffer => Buffer.from(h.replace(/\s+/g, ''), 'hex');

/** A value for every property the schema names (a few levels deep), with values of each JSON type's edge cases. */
function sampleOf(schema: JSONSchema | undefined, depth: number, seed: { n: number }): unknown {
  seed.n++;
  if (!schema || depth > 7) return `leaf-${seed.n}`;
  const options = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (options && options.length > 0 && !schema.type && !schema.properties)
    return sampleOf(options[seed.n % options.length], depth, seed);
  if (schema['x-kubernetes-int-or-string']) return seed.n % 2 === 0 ? 8080 : '25%';
  if (schema.enum && schema.enum.length > 0) return schema.enum[seed.n % schema.enum.length];
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) {
    return { free: { nested: [1, -1, 0.25, 'x', true, null, {}, []] } };
  }
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time'
        ? '2024-05-01T10:00:00Z'
        : schema.format === 'byte'
          ? 'aGVsbG8='
          : `s-${seed.n}-é✓𝄞`;
    case 'integer':
      return [0, 1, -1, 23, 24, 255, 256, 65536, -4294967297, Number.MAX_SAFE_INTEGER][seed.n % 10];
    case 'number':
      return [0.5, -1.25, 1e300, 3][seed.n % 4];
    case 'boolean':
      return seed.n % 2 === 0;
    case 'array':
      return [sampleOf(schema.items, depth + 1, seed), sampleOf(schema.items, depth + 1, seed)];
    default: {
      const out: Record<string, unknown> = {};
      for (const [name, prop] of Object.entries(schema.properties ?? {})) out[name] = sampleOf(prop, depth + 1, seed);
      if (typeof schema.additionalProperties === 'object') {
        out['example.com/key'] = sampleOf(schema.additionalProperties, depth + 1, seed);
        out[''] = sampleOf(schema.additionalProperties, depth + 1, seed);
      }
      return out;
    }
  }
}

function sampleObject(def: (typeof builtinKinds)[number]): Record<string, unknown> {
  const body = sampleOf(def.schema, 0, { n: 0 }) as Record<string, unknown>;
  return {
    ...body,
    apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
    kind: def.kind,
    metadata: {
      name: 'sample',
      namespace: def.namespaced ? 'default' : undefined,
      uid: '6f1c2a9e-3b1d-4c55-9a0e-2f1b7c0d4e11',
      resourceVersion: '12345',
      creationTimestamp: '2024-05-01T10:00:00Z',
      labels: { app: 'web' },
      annotations: {},
      finalizers: [],
      deletionTimestamp: null,
      managedFields: [
        {
          manager: 'm',
          operation: 'Apply',
          apiVersion: 'v1',
          time: '2024-05-01T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } },
        },
      ],
    },
  };
}

/** What JSON makes of a value: the reference every CBOR round trip must reproduce. */
const viaJson = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('CBOR codec', () => {
  describe('round trip', () => {
    for (const def of builtinKinds) {
      it(`${def.kind}: JSON → CBOR → JSON is identical`, () => {
        const json = viaJson(sampleObject(def));
        const decoded = decodeCbor(encodeCbor(json));
        expect(decoded.value).to.deep.equal(json);
        expect(decoded.duplicateFields).to.deep.equal([]);
      });
    }

    it('keeps integers, floats, nulls, empty containers, unicode and keys that look special', () => {
      // JSON.parse makes `__proto__` an own property; so must the CBOR decoder.
      const json = JSON.parse(
        '{"i":-9007199254740991,"f":1.5,"z":0,"n":null,"e":{},"a":[],"s":"\\u0000\u00e9\\ud83d\\ude00","__proto__":{"x":1}}',
      );
      expect(decodeCbor(encodeCbor(json)).value).to.deep.equal(json);
    });

    it('writes undefined the way JSON does: absent in objects, null in arrays', () => {
      expect(decodeCbor(encodeCbor({ a: undefined, b: [undefined, 1] })).value).to.deep.equal({ b: [null, 1] });
    });
  });

  describe('self-described tag 55799', () => {
    it('starts every encoded body and watch event', () => {
      expect(encodeCbor({ a: 1 }).subarray(0, 3)).to.deep.equal(hex('d9d9f7'));
      const event = createCborSerializer().encodeWatchEvent({ type: 'ADDED', object: { kind: 'Secret' } });
      expect(event.subarray(0, 3)).to.deep.equal(SELF_DESCRIBED_PREFIX);
      expect(decodeCbor(event).value).to.deep.equal({ type: 'ADDED', object: { kind: 'Secret' } });
    });

    it('is optional on input, and accepted on nested items and keys', () => {
      const bare = Buffer.from(cborgEncode({ kind: 'ConfigMap', data: { k: 'v' } }));
      expect(decodeCbor(bare).value).to.deep.equal({ kind: 'ConfigMap', data: { k: 'v' } });
      expect(decodeCbor(Buffer.concat([SELF_DESCRIBED_PREFIX, bare])).value).to.deep.equal({
        kind: 'ConfigMap',
        data: { k: 'v' },
      });
      // {tag(55799)"a": tag(55799) 1}
      expect(decodeCbor(hex('a1 d9d9f7 6161 d9d9f7 01')).value).to.deep.equal({ a: 1 });
    });
  });

  describe('repeated map keys', () => {
    it('reports them as duplicate fields by path, the last value winning, as the JSON decoder does', () => {
      expect(decodeCbor(hex('a2 6161 01 6161 02'))).to.deep.equal({ value: { a: 2 }, duplicateFields: ['a'] });
      const nested = decodeCbor(hex('a1 686d65746164617461 a1 666c6162656c73 a2 6161 01 6161 02'));
      expect(nested.duplicateFields).to.deep.equal(['metadata.labels.a']);
      expect(decodeCbor(hex('bf 6161 01 6161 02 ff')).duplicateFields).to.deep.equal(['a']);
    });
  });

  describe('decoding rules', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['an integer key', 'a1 01 01', /map keys must be text strings, found an integer/],
      ['a byte-string key', 'a1 4161 01', /map keys must be text strings, found a byte string/],
      ['an array key', 'a1 80 01', /map keys must be text strings/],
      ['a bignum tag', 'a1 6161 c2 4101', /unsupported CBOR tag 2 \(bignum\) at a/],
      ['a negative bignum tag', 'c3 4101', /unsupported CBOR tag 3/],
      [
        'a date/time tag around a number',
        'a1 6161 c0 01',
        /tag 0 must enclose an RFC 3339 date\/time text string at a/,
      ],
      ['a date/time tag around a non-RFC 3339 string', 'c0 6a323032342d30352d3031', /tag 0 must enclose/],
      ['an epoch tag around a string', 'c1 6161', /tag 1 must enclose a number of seconds/],
      ['undefined', 'a1 6161 f7', /undefined values are not supported/],
      ['a simple value', 'f0', /simple values are not supported/],
      ['a one-byte simple value', 'f8 20', /simple values are not supported/],
      ['NaN', 'f9 7e00', /NaN/],
      ['Infinity', 'fb 7ff0000000000000', /Infinity/],
      ['-Infinity', 'fa ff800000', /Infinity/],
      ['an unsigned integer past int64', '1b ffffffffffffffff', /integer 18446744073709551615 overflows int64/],
      ['a negative integer past int64', '3b 8000000000000000', /overflows int64/],
      ['invalid UTF-8 in a text string', 'a1 6161 62 c328', /invalid UTF-8 in text string at a/],
      ['invalid UTF-8 in a key', 'a1 61 ff 01', /invalid UTF-8/],
      ['a truncated map', 'a2 6161 01', /not enough entries/],
      ['a truncated string', '65 6162', /not enough data|unexpected end/i],
      ['a break outside an indefinite item', 'ff', /break/],
      ['a break where a map value belongs', 'bf 6161 ff', /unexpected break at a/],
      ['a reserved additional-information value', '1c', /invalid|minor/i],
      ['nesting deeper than 64 levels', `${'81'.repeat(65)}01`, /exceeded max nested level 64/],
      ['an array longer than 1024 elements', '9a 00010000', /exceeded max number of elements 1024 for CBOR array/],
      ['JSON sent as CBOR', Buffer.from('{"a":1}').toString('hex'), /error decoding CBOR body/],
    ];
    for (const [name, body, message] of cases) {
      it(`refuses ${name} with 400`, () => {
        const err = statusErrorOf(() => decodeCbor(hex(body)));
        expect(err.code).to.equal(400);
        expect(err.reason).to.equal('BadRequest');
        expect(err.message).to.match(/^error decoding CBOR body: /);
        expect(err.message).to.match(message);
      });
    }

    it('reads other tags as their content, and the time tags as RFC 3339 strings, as upstream decodes into interface{}', () => {
      // {"a": 42("x"), "t": 0("2024-05-01T10:00:00Z"), "e": 1(1714557600), "f": 1(1714557600.5)}
      const body = hex(
        `a4 6161 d82a 6178 6174 c0 74${Buffer.from('2024-05-01T10:00:00Z').toString('hex')} 6165 c1 1a663212a0 6166 c1 fb41d98c84a8200000`,
      );
      expect(decodeCbor(body).value).to.deep.equal({
        a: 'x',
        t: '2024-05-01T10:00:00Z',
        e: '2024-05-01T10:00:00Z',
        f: '2024-05-01T10:00:00.5Z',
      });
    });

    it('refuses an empty body and trailing bytes after the data item', () => {
      expect(statusErrorOf(() => decodeCbor(Buffer.alloc(0))).message).to.match(/the body is empty/);
      const body = Buffer.concat([encodeCbor({ kind: 'Secret' }), hex('01')]);
      const err = statusErrorOf(() => decodeCbor(body));
      expect(err.code).to.equal(400);
      expect(err.message).to.equal(
        `error decoding CBOR body: 1 bytes of extraneous data starting at index ${body.length - 1}`,
      );
      // A second whole data item is trailing data too: a body is one item, not a sequence.
      expect(statusErrorOf(() => decodeCbor(Buffer.concat([encodeCbor({}), encodeCbor({})]))).code).to.equal(400);
    });

    it('accepts what kube-apiserver accepts: indefinite lengths, byte strings as strings, int64 integers, 1024 elements, 64 levels', () => {
      expect(decodeCbor(hex('bf 6161 9f 01 02 ff ff')).value).to.deep.equal({ a: [1, 2] });
      expect(decodeCbor(hex('a1 6161 42 6869')).value).to.deep.equal({ a: 'hi' });
      expect(decodeCbor(hex('1b 7fffffffffffffff')).value).to.equal(2 ** 63);
      expect(decodeCbor(hex('3b 7fffffffffffffff')).value).to.equal(-(2 ** 63));
      expect(decodeCbor(hex('63 efbfbd')).value).to.equal('\uFFFD');
      expect((decodeCbor(encodeCbor(new Array(1024).fill(0))).value as unknown[]).length).to.equal(1024);
      expect(decodeCbor(hex(`${'81'.repeat(64)}01`)).value).to.be.an('array');
    });

    it('answers every mutation of a valid body with a value or a 400, never anything else', () => {
      const secret = viaJson(sampleObject(builtinKinds.find((k) => k.kind === 'Secret')!));
      const valid = encodeCbor(secret);
      let state = 12345;
      const random = (n: number): number => {
        state = (state * 1103515245 + 12345) % 2147483648;
        return state % n;
      };
      for (let i = 0; i < 2000; i++) {
        const body = Buffer.from(valid);
        for (let j = 0; j <= random(3); j++) body[random(body.length)] = random(256);
        const cut = random(4) === 0 ? body.subarray(0, random(body.length) + 1) : body;
        try {
          decodeCbor(cut);
        } catch (e) {
          expect(isStatusError(e), String(e)).to.equal(true);
          expect((e as { code: number }).code).to.equal(400);
        }
      }
    });
  });

  describe('negotiation', () => {
    const withCbor = defaultSerializers({ cbor: true });
    const without = defaultSerializers();

    it('is absent without the gate: 415 for CBOR bodies and 406 for CBOR-only Accept headers', () => {
      expect(statusErrorOf(() => negotiateRequest('application/cbor', without)).code).to.equal(415);
      expect(
        statusErrorOf(() => negotiateResponse('application/cbor', { allowTable: false, serializers: without })).code,
      ).to.equal(406);
      expect(
        statusErrorOf(() =>
          negotiateResponse('application/cbor', { allowTable: false, streaming: true, serializers: without }),
        ).code,
      ).to.equal(406);
    });

    it('reads and answers application/cbor with the gate, streaming watches as application/cbor-seq', () => {
      expect(negotiateRequest('application/cbor', withCbor).mediaType).to.equal('application/cbor');
      expect(negotiateResponse('application/cbor', { allowTable: false, serializers: withCbor }).contentType).to.equal(
        'application/cbor',
      );
      expect(
        negotiateResponse('application/cbor', { allowTable: false, streaming: true, serializers: withCbor })
          .contentType,
      ).to.equal('application/cbor-seq');
      // JSON stays the default for clients that do not ask.
      expect(negotiateResponse('*/*', { allowTable: false, serializers: withCbor }).contentType).to.equal(
        'application/json',
      );
    });

    it('passes over CBOR Tables as kube-apiserver v1.32 does, but serves PartialObjectMetadata', () => {
      const opts = { allowTable: true, allowPartialObjectMetadata: true, serializers: withCbor };
      expect(
        statusErrorOf(() => negotiateResponse('application/cbor;as=Table;v=v1;g=meta.k8s.io', opts)).code,
      ).to.equal(406);
      expect(negotiateResponse('application/cbor;as=Table;v=v1;g=meta.k8s.io, application/cbor', opts).as).to.equal(
        undefined,
      );
      expect(
        negotiateResponse('application/cbor;as=PartialObjectMetadata;v=v1;g=meta.k8s.io', opts).contentType,
      ).to.equal('application/cbor;as=PartialObjectMetadata;v=v1;g=meta.k8s.io');
    });
  });
});
