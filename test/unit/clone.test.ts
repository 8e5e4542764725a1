import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cloneJson, shallowCopy, withoutProperty, withProperty } from '../../api/meta/clone.js';
import type { KObject } from '../../api/meta/types.js';
import { contentJson } from '../../backends/storage-support.js';

describe('cloneJson', () => {
  it('copies a JSON tree deeply, leaving the original untouched', () => {
    const original = { metadata: { name: 'a', labels: { x: 'y' } }, items: [{ n: 1 }, null, 'text', true], count: 0 };
    const copy = cloneJson(original);
    expect(copy).to.deep.equal(original);
    copy.metadata.labels.x = 'changed';
    (copy.items[0] as { n: number }).n = 2;
    copy.items.push('more');
    expect(original.metadata.labels.x).to.equal('y');
    expect(original.items).to.deep.equal([{ n: 1 }, null, 'text', true]);
  });

  it('gives unfrozen copies of frozen objects', () => {
    const frozen: { data: { k: string } } = Object.freeze({ data: Object.freeze({ k: 'v' }) });
    const copy = cloneJson(frozen);
    expect(Object.isFrozen(copy)).to.equal(false);
    expect(Object.isFrozen(copy.data)).to.equal(false);
    copy.data.k = 'w';
    expect(frozen.data.k).to.equal('v');
  });

  it('keeps a "__proto__" key as data instead of setting the prototype', () => {
    const parsed = JSON.parse('{"data":{"__proto__":{"polluted":true},"k":"v"}}') as { data: Record<string, unknown> };
    const copy = cloneJson(parsed);
    expect(Object.getPrototypeOf(copy.data)).to.equal(Object.prototype);
    expect(Object.keys(copy.data)).to.deep.equal(['__proto__', 'k']);
    expect((copy.data as { polluted?: boolean }).polluted).to.equal(undefined);
    expect(JSON.stringify(copy)).to.equal(JSON.stringify(parsed));
  });

  it('copies values that are not plain JSON exactly (buffers, dates)', () => {
    const original = { raw: new Uint8Array([1, 2, 3]), at: new Date(0) };
    const copy = cloneJson(original);
    expect(copy.raw).to.be.instanceOf(Uint8Array);
    expect([...copy.raw]).to.deep.equal([1, 2, 3]);
    expect(copy.raw).to.not.equal(original.raw);
    expect(copy.at.getTime()).to.equal(0);
  });
});

describe('withProperty', () => {
  it('copies the object with one property set, in the order a spread gives, leaving the source untouched', () => {
    const source = Object.freeze({ name: 'a', resourceVersion: '1', uid: 'u' });
    const added = withProperty(source, 'generation', 2);
    expect(Object.keys(added)).to.deep.equal(['name', 'resourceVersion', 'uid', 'generation']);
    const replaced = withProperty(source, 'resourceVersion', '7');
    expect(Object.keys(replaced)).to.deep.equal(['name', 'resourceVersion', 'uid']);
    expect(replaced).to.deep.equal({ ...source, resourceVersion: '7' });
    expect(source.resourceVersion).to.equal('1');
    expect(Object.isFrozen(replaced)).to.equal(false);
  });

  it('keeps a "__proto__" key as data', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"k":"v"}') as Record<string, unknown>;
    const copy = withProperty(parsed, 'resourceVersion', '3');
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
    expect(Object.keys(copy)).to.deep.equal(['__proto__', 'k', 'resourceVersion']);
    expect((copy as { polluted?: boolean }).polluted).to.equal(undefined);
  });

  // V8 internals are only visible with --allow-natives-syntax, hence a child process. Before the stamping used
  // withProperty, this read false for both backends: every stored object had a hidden class of its own.
  it('lets stored objects of one shape share their hidden class, however many shapes storage stamped before', () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const module = (p: string): string => JSON.stringify(pathToFileURL(path.resolve(here, '../..', p)).href);
    const script = `
      import { createRevisionHistory } from ${module('backends/memory/revision-history.ts')};
      import { decodeObject } from ${module('backends/postgres/queries.ts')};
      const history = createRevisionHistory();
      // More shapes than an inline cache keeps apart, as storage sees from every kind's metadata.
      const shapes = Array.from({ length: 12 }, (_, i) => ({ name: 's' + i, ['k' + i]: 'v' }));
      shapes.forEach((metadata, i) => history.commit('/s/' + i, { apiVersion: 'v1', kind: 'X', metadata }, 0));
      shapes.forEach((metadata, i) => decodeObject(JSON.stringify({ metadata }), BigInt(i + 1)));
      const stored = (name) => history.commit('/cm/' + name, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'n' } }, 0).object;
      const read = (name, rv) => decodeObject(JSON.stringify({ metadata: { name, namespace: 'n' } }), rv);
      process.stdout.write(JSON.stringify({
        memory: %HaveSameMap(stored('one').metadata, stored('two').metadata),
        postgres: %HaveSameMap(read('one', 20n).metadata, read('two', 21n).metadata),
      }));`;
    const out = execFileSync(
      process.execPath,
      ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(out)).to.deep.equal({ memory: true, postgres: true });
  });
});

describe('shallowCopy', () => {
  it('copies the own keys in order, shares their values, keeps "__proto__" as data and leaves the copy writable', () => {
    const parsed = JSON.parse('{"b":{"x":1},"__proto__":{"polluted":true},"a":2}') as Record<string, unknown>;
    const copy = shallowCopy(Object.freeze(parsed) as Record<string, unknown>);
    expect(Object.keys(copy)).to.deep.equal(['b', '__proto__', 'a']);
    expect(copy.b).to.equal(parsed.b);
    expect(Object.getPrototypeOf(copy)).to.equal(Object.prototype);
    copy.c = 3;
    expect(parsed.c).to.equal(undefined);
  });
});

describe('withoutProperty and contentJson', () => {
  it('copy without the one property, in order, whether or not it was there', () => {
    const source = Object.freeze({ name: 'a', resourceVersion: '1', uid: 'u' });
    expect(Object.keys(withoutProperty(source, 'resourceVersion'))).to.deep.equal(['name', 'uid']);
    expect(withoutProperty(source, 'absent')).to.deep.equal(source);
    expect(source.resourceVersion).to.equal('1');
  });

  it('give the bytes of the object with metadata.resourceVersion left out, whatever metadata is', () => {
    const old = (o: KObject): string =>
      JSON.stringify({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
    const objects = [
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'a', resourceVersion: '7', uid: 'u' },
        data: { k: 'v' },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } },
      JSON.parse('{"kind":"X","metadata":{"__proto__":{"x":1},"resourceVersion":"3"}}'),
      { kind: 'X', metadata: null },
      { kind: 'X' },
    ] as KObject[];
    for (const o of objects) expect(contentJson(o)).to.equal(old(o));
  });
});
