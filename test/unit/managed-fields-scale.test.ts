// Server-side apply's walks over very long lists and over map keys named like Object.prototype members. Field
// ownership is computed on every write, so a list of tens of thousands of elements must cost linear time (the bound
// is far above linear and far below quadratic, not a benchmark), and a key is data whatever its name.
import { expect } from 'chai';
import { compare, merge, removePaths, toFieldSet } from '../../gateway/registry/managed-fields/typed.js';
import { configMap } from '../../api/core/v1/config-map.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';

const N = 20_000;
const BOUND_MS = 5_000;

function timed<T>(what: string, run: () => T): T {
  const started = performance.now();
  const result = run();
  const elapsed = performance.now() - started;
  expect(elapsed, `${what} took ${Math.round(elapsed)} ms`).to.be.below(BOUND_MS);
  return result;
}

const containers = (from: number, n: number, image: string) =>
  Array.from({ length: n }, (_, i) => ({ name: `c-${from + i}`, image }));
const rs = (list: unknown[]) => ({ spec: { template: { spec: { containers: list } } } });

describe('server-side apply on long lists', () => {
  it('merges, compares and removes tens of thousands of keyed elements in linear time', () => {
    const live = rs(containers(0, N, 'old'));
    const config = rs(containers(N / 2, N, 'new'));
    const merged: any = timed('merge', () => merge(live, config, replicaSet.schema));
    expect(merged.spec.template.spec.containers).to.have.length(N + N / 2);
    const diff = timed('compare', () => compare(live, merged, replicaSet.schema));
    expect([...diff.added.paths()].length).to.be.above(N / 2);
    // The applier stops applying its first half: every one of those elements goes, in one pass.
    const owned = toFieldSet(rs(containers(0, N / 2, 'old')), replicaSet.schema);
    const elements = [...owned.paths()].filter((p) => p.length === 5);
    expect(elements).to.have.length(N / 2);
    timed('removePaths', () => removePaths(merged, elements, replicaSet.schema));
    expect(merged.spec.template.spec.containers.map((c: { name: string }) => c.name)).to.deep.equal(
      containers(N / 2, N, '').map((c) => c.name),
    );
  });
});

describe('server-side apply and keys named like Object.prototype members', () => {
  it('keeps "__proto__" and "constructor" as data keys through merge, compare and removal', () => {
    const live = JSON.parse('{"data":{"__proto__":"p","keep":"k"}}');
    const config = JSON.parse('{"data":{"constructor":"c","__proto__":"q"}}');
    const merged: any = merge(live, config, configMap.schema);
    expect(Object.getPrototypeOf(merged.data)).to.equal(Object.prototype);
    expect(Object.hasOwn(merged.data, '__proto__')).to.equal(true);
    expect(JSON.stringify(merged.data)).to.equal('{"__proto__":"q","keep":"k","constructor":"c"}');
    const diff = compare(live, merged, configMap.schema);
    expect([...diff.added.paths()].map((p) => p.join('.'))).to.deep.equal(['f:data.f:constructor']);
    expect([...diff.modified.paths()].map((p) => p.join('.'))).to.deep.equal(['f:data.f:__proto__']);
    removePaths(merged, [['f:data', 'f:__proto__']], configMap.schema);
    expect(JSON.stringify(merged.data)).to.equal('{"keep":"k","constructor":"c"}');
  });
});
