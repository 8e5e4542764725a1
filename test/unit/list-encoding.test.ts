// Large lists are encoded in chunks (JSON, YAML, Tables in either) or in batches (protobuf): the pieces must join to
// exactly the bytes of the one-step encoding.
import { expect } from 'chai';
import { createJsonSerializer } from '../../gateway/negotiation/json.js';
import { createYamlSerializer } from '../../gateway/negotiation/yaml.js';
import { createProtobufSerializer } from '../../gateway/negotiation/protobuf.js';
import type { ListValue } from '../../gateway/negotiation/serializer.js';

const json = createJsonSerializer();
const yaml = createYamlSerializer();
const protobuf = createProtobufSerializer();

/** ConfigMaps whose data holds what encoders treat specially: multi-line text, blank lines, quotes, look-alikes. */
function configMapList(n: number): ListValue {
  const values = [
    'plain',
    'two\nlines',
    'blank\n\nline\n',
    '  leading spaces\nx',
    'true',
    '1',
    '',
    'é"\\',
    '- dash',
    'a: b',
    '\ttab',
    'keep\n\n',
  ];
  return {
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '7', continue: 'abc' },
    items: Array.from({ length: n }, (_, i) => ({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: {
        name: `cm-${i}`,
        namespace: 'default',
        labels: { i: String(i) },
        annotations: i % 5 === 0 ? {} : { note: values[i % values.length] },
      },
      data: { v: values[i % values.length], w: values[(i * 7) % values.length], list: '' },
    })),
  };
}

const table = (n: number): ListValue =>
  ({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '9' },
    columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: 'x', priority: 0 }],
    rows: Array.from({ length: n }, (_, i) => ({
      cells: [`cm-${i}`, null],
      object: { kind: 'PartialObjectMetadata', metadata: { name: `cm-${i}` } },
    })),
  }) as unknown as ListValue;

const joined = (pieces: Iterable<Buffer> | undefined): string => {
  expect(pieces, 'chunked').to.not.equal(undefined);
  return Buffer.concat([...pieces!]).toString('utf8');
};

describe('large list encoding', () => {
  for (const n of [1, 3, 101, 2500, 9000]) {
    it(`YAML chunks join to the whole encoding, ${n} items, and read back as the list`, () => {
      const value = configMapList(n);
      const text = joined(yaml.encodeList?.(value));
      expect(text).to.equal(yaml.encode(value).toString('utf8'));
      expect(yaml.decode(Buffer.from(text)).value).to.deep.equal(value);
    });

    it(`pretty JSON chunks join to the whole indented encoding, ${n} items`, () => {
      const value = configMapList(n);
      expect(joined(json.encodeList?.(value, undefined, { pretty: true }))).to.equal(
        json.encode(value, { pretty: true }).toString('utf8'),
      );
    });

    it(`Table rows are chunked in JSON (compact and pretty) and YAML, ${n} rows`, () => {
      const value = table(n);
      expect(joined(json.encodeList?.(value))).to.equal(json.encode(value).toString('utf8'));
      expect(joined(json.encodeList?.(value, undefined, { pretty: true }))).to.equal(
        json.encode(value, { pretty: true }).toString('utf8'),
      );
      expect(joined(yaml.encodeList?.(value))).to.equal(yaml.encode(value).toString('utf8'));
    });

    it(`protobuf batches join to the whole encoding, ${n} items`, async () => {
      const value = configMapList(n);
      const pieces = await protobuf.encodeListInBatches!(value);
      expect(Buffer.concat(pieces).equals(protobuf.encode(value))).to.equal(true);
    });
  }

  it('pretty JSON of an empty list and of a list without other fields match the whole encoding', () => {
    for (const value of [{ ...configMapList(0) }, { items: [{ a: 1 }, { b: [] }] }] as ListValue[]) {
      expect(joined(json.encodeList?.(value, undefined, { pretty: true }))).to.equal(
        json.encode(value, { pretty: true }).toString('utf8'),
      );
    }
  });

  it('YAML declines an empty list (its elements field is written inline) and a list whose items are not last', () => {
    expect(yaml.encodeList?.(configMapList(0))).to.equal(undefined);
    expect(yaml.encodeList?.({ kind: 'X', items: [{}], metadata: {} })).to.equal(undefined);
  });
});
