import { expect } from 'chai';
import { cloneJson } from '../../api/meta/clone.js';

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
