import { expect } from 'chai';
import { CelEvaluationError } from '../../policies/cel/index.js';
import {
  compareValues,
  isSorted,
  listIndexOf,
  listMax,
  listMin,
  sumInts,
  valuesEqual,
} from '../../policies/cel/lists-library.js';
import { celEval } from '../helpers/cel.js';

describe('CEL lists library', () => {
  it('isSorted', () => {
    expect(celEval('[1, 2, 2, 3].isSorted()')).to.equal(true);
    expect(celEval('[3, 1].isSorted()')).to.equal(false);
    expect(celEval('["a", "b"].isSorted()')).to.equal(true);
    expect(celEval('[].isSorted()')).to.equal(true);
    expect(celEval('[duration("1s"), duration("1m")].isSorted()')).to.equal(true);
    expect(isSorted([1n, 1.5, 2n])).to.equal(true);
  });

  it('sum of ints, doubles, uints and durations; the empty sum is 0', () => {
    expect(celEval('[1, 2, 3].sum()')).to.equal(6);
    expect(celEval('[1.5, 2.0].sum()')).to.equal(3.5);
    expect(celEval('[1u, 2u].sum()')).to.equal(3);
    expect(celEval('string([duration("1m"), duration("30s")].sum())')).to.equal('90s');
    expect(celEval('[].sum()')).to.equal(0);
    expect(celEval('x.sum()', { x: [1, 2] })).to.equal(3);
    expect(() => sumInts([9223372036854775807n, 1n])).to.throw('integer overflow');
    expect(() => celEval('["a"].sum()')).to.throw(CelEvaluationError, 'no such overload');
  });

  it('min and max; an error on an empty list', () => {
    expect(celEval('[3, 1, 2].min()')).to.equal(1);
    expect(celEval('[3, 1, 2].max()')).to.equal(3);
    expect(celEval('["b", "a"].min()')).to.equal('a');
    expect(celEval('x.max()', { x: [1, 2.5] })).to.equal(2.5);
    expect(() => celEval('x.min()', { x: [] })).to.throw(CelEvaluationError, 'min called on empty list');
    expect(listMin([2n, 1n])).to.equal(1n);
    expect(listMax([2n, 1n])).to.equal(2n);
  });

  it('indexOf and lastIndexOf by CEL equality', () => {
    expect(celEval('[1, 2, 3, 2].indexOf(2)')).to.equal(1);
    expect(celEval('[1, 2, 3, 2].lastIndexOf(2)')).to.equal(3);
    expect(celEval('[1, 2].indexOf(5)')).to.equal(-1);
    expect(celEval('[[1], [2]].indexOf([2])')).to.equal(1);
    expect(celEval('x.indexOf("b")', { x: ['a', 'b'] })).to.equal(1);
    expect(listIndexOf([{ a: 1n }], { a: 1n })).to.equal(0n);
  });

  it('compares and equates values by CEL rules', () => {
    expect(compareValues(1n, 2.5)).to.be.below(0);
    expect(compareValues('b', 'a')).to.be.above(0);
    expect(() => compareValues('a', 1n)).to.throw('not comparable');
    expect(valuesEqual(1n, 1.0)).to.equal(true);
    expect(valuesEqual('1', 1n)).to.equal(false);
    expect(valuesEqual([1n, { a: 'x' }], [1n, { a: 'x' }])).to.equal(true);
  });
});
