import { expect } from 'chai';
import { createJsonSerializer } from '../../gateway/negotiation/json.js';
import { createYamlSerializer } from '../../gateway/negotiation/yaml.js';
import { statusErrorOf } from '../helpers/assertions.js';

const json = createJsonSerializer();
const yaml = createYamlSerializer();
const buf = (s: string) => Buffer.from(s);

describe('JSON codec', () => {
  it('decodes a value without duplicates', () => {
    const r = json.decode(buf('{"a":{"b":[1,{"c":2}]},"d":null}'));
    expect(r.value).to.deep.equal({ a: { b: [1, { c: 2 }] }, d: null });
    expect(r.duplicateFields).to.deep.equal([]);
  });

  it('reports duplicate fields with dotted and indexed paths in document order, keeping the last value', () => {
    const text = `{"metadata":{"name":"a","labels":{"app":"x","app":"y"},"name":"b"},
      "spec":{"taints":[{"key":"k"},{"key":"a","key":"b"}],"x":{"deep":[[{"k":1,"k":2}]]}}}`;
    const r = json.decode(buf(text));
    expect(r.duplicateFields).to.deep.equal([
      'metadata.labels.app',
      'metadata.name',
      'spec.taints[1].key',
      'spec.x.deep[0][0].k',
    ]);
    expect((r.value as { metadata: { name: string } }).metadata.name).to.equal('b');
  });

  it('skips the duplicate scan when asked', () => {
    expect(json.decode(buf('{"a":1,"a":2}'), { reportDuplicates: false }).duplicateFields).to.deep.equal([]);
    expect(json.decode(buf('{"a":1,"a":2}')).duplicateFields).to.deep.equal(['a']);
  });

  it('decodes any top-level value', () => {
    expect(json.decode(buf(' [1, "x"] ')).value).to.deep.equal([1, 'x']);
    expect(json.decode(buf('42')).value).to.equal(42);
  });

  it('rejects malformed JSON with 400, the problem and its position', () => {
    const e = statusErrorOf(() => json.decode(buf('{\n  "a": 1,\n  }')));
    expect(e.code).to.equal(400);
    expect(e.reason).to.equal('BadRequest');
    expect(e.message).to.equal('error decoding JSON body: expected a property name (found "}") at line 3 column 3');
    expect(statusErrorOf(() => json.decode(buf('{"a": tru}'))).message).to.match(
      /^error decoding JSON body: .* at line 1 column 7$/,
    );
    expect(statusErrorOf(() => json.decode(buf('{"a":1} {"b":2}'))).message).to.contain(
      'unexpected content after the top-level value',
    );
    expect(statusErrorOf(() => json.decode(buf('{"a":'))).message).to.contain('found the end of the body');
    expect(statusErrorOf(() => json.decode(buf('  '))).message).to.equal('error decoding JSON body: the body is empty');
    expect(statusErrorOf(() => json.decode(buf('{"a":1,}'))).code).to.equal(400);
    expect(statusErrorOf(() => json.decode(buf('{"a":1 /* c */}'))).message).to.contain('comments are not allowed');
  });

  it("encodes compact with a closing newline, and pretty without one (as Go's MarshalIndent)", () => {
    expect(json.encode({ a: [1, 2] }).toString()).to.equal('{"a":[1,2]}\n');
    expect(json.encode({ a: [1] }, { pretty: true }).toString()).to.equal('{\n  "a": [\n    1\n  ]\n}');
    expect(json.encode(undefined).toString()).to.equal('null\n');
  });

  it('frames watch events one JSON document per line', () => {
    expect(json.streamMediaType).to.equal('application/json');
    const line = json.encodeWatchEvent({ type: 'ADDED', object: { a: 'x\ny' } }).toString();
    expect(line).to.equal('{"type":"ADDED","object":{"a":"x\\ny"}}\n');
    expect(line.indexOf('\n')).to.equal(line.length - 1);
  });
});

describe('YAML codec', () => {
  it('decodes with the core schema: timestamps stay strings, no custom tags', () => {
    const r = yaml.decode(
      buf('metadata:\n  creationTimestamp: 2024-01-01T00:00:00Z\n  n: 3\n  b: true\n  s: "3"\n  e: ~\n'),
    );
    expect(r.value).to.deep.equal({
      metadata: { creationTimestamp: '2024-01-01T00:00:00Z', n: 3, b: true, s: '3', e: null },
    });
    expect(statusErrorOf(() => yaml.decode(buf('a: !!js/function "function(){}"'))).code).to.equal(400);
  });

  it('supports anchors and merge keys', () => {
    const r = yaml.decode(buf('base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  y: 3\n'));
    expect(r.value).to.deep.equal({ base: { x: 1, y: 2 }, derived: { x: 1, y: 3 } });
    expect(r.duplicateFields).to.deep.equal([]);
  });

  it('reports duplicate keys as paths instead of failing', () => {
    const text = [
      'metadata:',
      '  name: a',
      '  labels:',
      '    app: x',
      '    app: y',
      '  name: b',
      'spec:',
      '  taints:',
      '  - key: k',
      '  - key: a',
      '    key: b',
      '  list:',
      '  - p',
      '  - {f: 1, f: 2}',
    ].join('\n');
    const r = yaml.decode(buf(text));
    expect(r.duplicateFields).to.deep.equal([
      'metadata.labels.app',
      'metadata.name',
      'spec.taints[1].key',
      'spec.list[1].f',
    ]);
    expect((r.value as { metadata: { labels: { app: string } } }).metadata.labels.app).to.equal('y');
  });

  it('reads JSON bodies through the JSON codec, duplicates included', () => {
    const r = yaml.decode(buf('{"a": {"b": 1, "b": 2}}'));
    expect(r.value).to.deep.equal({ a: { b: 2 } });
    expect(r.duplicateFields).to.deep.equal(['a.b']);
    expect(yaml.decode(buf('{a: 1}')).value).to.deep.equal({ a: 1 });
  });

  it('rejects several documents, empty bodies and malformed YAML with 400', () => {
    expect(statusErrorOf(() => yaml.decode(buf('a: 1\n---\nb: 2\n'))).message).to.equal(
      'error decoding YAML body: expected one document, found 2',
    );
    expect(yaml.decode(buf('---\na: 1\n')).value).to.deep.equal({ a: 1 });
    expect(statusErrorOf(() => yaml.decode(buf(''))).message).to.equal('error decoding YAML body: the body is empty');
    const e = statusErrorOf(() => yaml.decode(buf('a: [1, 2\nb: 3\n')));
    expect(e.code).to.equal(400);
    expect(e.message).to.match(/^error decoding YAML body: .* at line \d+ column \d+$/);
  });

  it('refuses alias bombs', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 7; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(', ')}]`,
      );
    expect(statusErrorOf(() => yaml.decode(buf(lines.join('\n')))).message).to.contain('too many nodes');
  });

  it('encodes plain YAML, quoting strings that would read as other types', () => {
    const text = yaml.encode({ a: 'true', b: '1', c: 'yes', d: [1], e: 'x'.repeat(200), f: null }).toString();
    expect(text).to.equal(`a: 'true'\nb: '1'\nc: 'yes'\nd:\n  - 1\ne: ${'x'.repeat(200)}\nf: null\n`);
    const shared = { k: 'v' };
    expect(yaml.encode({ p: shared, q: shared }).toString()).not.to.contain('&');
    expect(yaml.decode(yaml.encode({ a: 'true', n: 1 })).value).to.deep.equal({ a: 'true', n: 1 });
  });

  it('does not stream watches', () => {
    expect(yaml.streamMediaType).to.equal('');
    expect(statusErrorOf(() => yaml.encodeWatchEvent({ type: 'ADDED', object: {} })).code).to.equal(406);
  });
});

describe('JSON list encoding in chunks', () => {
  const json = createJsonSerializer();
  const list = (n: number) => ({
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: '7', continue: 'abc' },
    items: Array.from({ length: n }, (_, i) => ({
      metadata: { name: `cm-${i}`, labels: { i: String(i) } },
      data: { v: 'é"\\'.repeat(i % 7) },
    })),
  });

  for (const n of [0, 1, 101, 2500]) {
    it(`is byte-identical to the whole encoding for ${n} items`, () => {
      const value = list(n);
      const chunks = json.encodeList?.(value);
      expect(chunks).to.not.equal(undefined);
      expect(Buffer.concat([...chunks!]).toString('utf8')).to.equal(json.encode(value).toString('utf8'));
    });
  }

  // Every third item has its encoding ready (as a GET or a write leaves it), in runs and alone, first and last.
  for (const n of [1, 2, 101, 2500]) {
    it(`copies ready item encodings and stays byte-identical, ${n} items`, () => {
      const value = list(n);
      const ready = new Map<unknown, Buffer>();
      value.items.forEach((item, i) => {
        if (i % 3 !== 1) ready.set(item, json.encode(item));
      });
      let asked = 0;
      const chunks = json.encodeList?.(value, (item) => {
        asked++;
        return ready.get(item);
      });
      expect(Buffer.concat([...chunks!]).toString('utf8')).to.equal(json.encode(value).toString('utf8'));
      expect(asked).to.be.at.least(n);
    });
  }

  it('encodes an item whose ready bytes do not end as a document does, rather than copying them', () => {
    const value = list(3);
    const chunks = json.encodeList?.(value, () => Buffer.from('{"not":"this"}'));
    expect(Buffer.concat([...chunks!]).toString('utf8')).to.equal(json.encode(value).toString('utf8'));
  });

  it('declines lists whose items field is not last, so field order stays as encoded', () => {
    const value = { kind: 'ConfigMapList', items: [], metadata: {} };
    expect(json.encodeList?.(value)).to.equal(undefined);
  });
});
