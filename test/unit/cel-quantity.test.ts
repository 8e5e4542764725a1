import { expect } from 'chai';
import { CelEvaluationError } from '../../policies/cel/index.js';
import {
  parseCelQuantity,
  quantityAdd,
  quantityAsApproximateFloat,
  quantityAsInteger,
  quantityCompare,
  quantityIsInteger,
  quantitySign,
} from '../../policies/cel/quantity-library.js';
import { celEval } from '../helpers/cel.js';

describe('CEL quantity library', () => {
  it('isQuantity and quantity()', () => {
    expect(celEval('isQuantity("1.5Gi")')).to.equal(true);
    expect(celEval('isQuantity("1.5Gb")')).to.equal(false);
    expect(celEval('quantity("1.5G")')).to.equal('1500M');
    expect(() => celEval('quantity("abc")')).to.throw(
      CelEvaluationError,
      'quantities must match the regular expression',
    );
  });

  it('isInteger and asInteger, with errors on precision loss and overflow', () => {
    expect(celEval('quantity("50000000G").isInteger()')).to.equal(true);
    expect(celEval('quantity("50k").isInteger()')).to.equal(true);
    expect(celEval('quantity("1.5").isInteger()')).to.equal(false);
    expect(celEval('quantity("9999999999999999999999999999999999999G").isInteger()')).to.equal(false);
    expect(celEval('quantity("50k").asInteger()')).to.equal(50000);
    expect(celEval('quantity("1Ki").asInteger()')).to.equal(1024);
    expect(() => celEval('quantity("1.5").asInteger()')).to.throw(
      CelEvaluationError,
      'cannot convert value to integer',
    );
    expect(() => celEval('quantity("10E").asInteger()')).to.throw(
      CelEvaluationError,
      'cannot convert value to integer',
    );
    expect(quantityIsInteger(parseCelQuantity('100m'))).to.equal(false);
    expect(quantityAsInteger(parseCelQuantity('-3k'))).to.equal(-3000n);
  });

  it('asApproximateFloat and sign', () => {
    expect(celEval('quantity("1.2G").asApproximateFloat()')).to.equal(1200000000);
    expect(celEval('quantity("100m").asApproximateFloat()')).to.be.closeTo(0.1, 1e-12);
    expect(quantityAsApproximateFloat(parseCelQuantity('1e400'))).to.equal(Infinity);
    expect(celEval('[quantity("50k").sign(), quantity("-1").sign(), quantity("0").sign()]')).to.deep.equal([1, -1, 0]);
    expect(quantitySign(parseCelQuantity('-0'))).to.equal(0n);
  });

  it('add and sub take quantities and ints, exactly', () => {
    expect(celEval('quantity("50k").add(quantity("20")) == quantity("50.02k")')).to.equal(true);
    expect(celEval('quantity("50k").add(20) == quantity("50020")')).to.equal(true);
    expect(celEval('quantity("50k").sub(quantity("20")) == quantity("49980")')).to.equal(true);
    expect(celEval('quantity("50k").sub(20)')).to.equal('49980');
    expect(celEval('quantity("1Gi").add(quantity("512Mi"))')).to.equal('1536Mi');
    expect(celEval('quantity("0.1").add(quantity("0.2"))')).to.equal('300m');
    expect(quantityAdd(parseCelQuantity('0'), parseCelQuantity('1Ki')).toPlain()).to.equal('1Ki');
  });

  it('compares', () => {
    expect(celEval('quantity("200M").compareTo(quantity("0.2G"))')).to.equal(0);
    expect(celEval('quantity("50M").compareTo(quantity("100M"))')).to.equal(-1);
    expect(celEval('quantity("1Gi").compareTo(quantity("1G"))')).to.equal(1);
    expect(celEval('quantity("50M").isLessThan(quantity("100M"))')).to.equal(true);
    expect(celEval('quantity("100M").isGreaterThan(quantity("50M"))')).to.equal(true);
    expect(celEval('quantity("1") == quantity("1000m")')).to.equal(true);
    expect(quantityCompare(parseCelQuantity('1n'), parseCelQuantity('0'))).to.equal(1n);
  });
});
