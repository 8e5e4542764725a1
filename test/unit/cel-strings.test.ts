import { expect } from 'chai';
import { CelEvaluationError } from '../../policies/cel/index.js';
import {
  charAt,
  indexOf,
  join,
  lastIndexOf,
  lowerAscii,
  replace,
  split,
  substring,
  trim,
  upperAscii,
} from '../../policies/cel/strings-library.js';
import { celEval } from '../helpers/cel.js';

describe('CEL strings library', () => {
  it('charAt counts code points; the length gives "", beyond it an error', () => {
    expect(celEval('"hello".charAt(1)')).to.equal('e');
    expect(celEval('"h😀llo".charAt(2)')).to.equal('l');
    expect(celEval('"h😀llo".charAt(1)')).to.equal('😀');
    expect(celEval('"hello".charAt(5)')).to.equal('');
    expect(() => celEval('"hello".charAt(6)')).to.throw(CelEvaluationError, 'index out of range');
    expect(() => charAt('abc', -1n)).to.throw('index out of range');
  });

  it('indexOf and lastIndexOf count code points, with offsets', () => {
    expect(celEval('"hello mellow".indexOf("ello")')).to.equal(1);
    expect(celEval('"hello mellow".indexOf("ello", 2)')).to.equal(7);
    expect(celEval('"hello mellow".indexOf("jello")')).to.equal(-1);
    expect(celEval('"😀😀ab".indexOf("ab")')).to.equal(2);
    expect(celEval('"hello".indexOf("", 3)')).to.equal(3);
    expect(() => celEval('"hello".indexOf("l", 5)')).to.throw(CelEvaluationError, 'index out of range');
    expect(celEval('"hello mellow".lastIndexOf("ello")')).to.equal(7);
    expect(celEval('"hello mellow".lastIndexOf("ello", 6)')).to.equal(1);
    expect(celEval('"hello".lastIndexOf("")')).to.equal(5);
    expect(celEval('"😀a😀a".lastIndexOf("a")')).to.equal(3);
    expect(() => lastIndexOf('abc', 'a', 3n)).to.throw('index out of range');
    expect(indexOf('abc', 'c', 0n)).to.equal(2n);
  });

  it('lowerAscii and upperAscii change ASCII letters only', () => {
    expect(celEval('"TacoCÀt".lowerAscii()')).to.equal('tacocÀt');
    expect(celEval('"TacoCàt".upperAscii()')).to.equal('TACOCàT');
    expect(lowerAscii('ÄB')).to.equal('Äb');
    expect(upperAscii('äb')).to.equal('äB');
  });

  it('replace replaces all or the first n, as Go does', () => {
    expect(celEval('"hello hello".replace("he", "we")')).to.equal('wello wello');
    expect(celEval('"hello hello".replace("he", "we", 1)')).to.equal('wello hello');
    expect(celEval('"hello hello".replace("he", "we", -1)')).to.equal('wello wello');
    expect(celEval('"hello".replace("he", "we", 0)')).to.equal('hello');
    expect(replace('ab', '', '-')).to.equal('-a-b-');
    expect(replace('ab', '', '-', 2n)).to.equal('-a-b');
  });

  it('split splits all or into at most n parts', () => {
    expect(celEval('"a,b,c".split(",")')).to.deep.equal(['a', 'b', 'c']);
    expect(celEval('"a,b,c".split(",", 2)')).to.deep.equal(['a', 'b,c']);
    expect(celEval('"a,b,c".split(",", 0)')).to.deep.equal([]);
    expect(celEval('"a,b,c".split(",", -1)')).to.deep.equal(['a', 'b', 'c']);
    expect(split('a😀', '')).to.deep.equal(['a', '😀']);
  });

  it('join joins a list of strings', () => {
    expect(celEval('["a", "b"].join()')).to.equal('ab');
    expect(celEval('["a", "b"].join(", ")')).to.equal('a, b');
    expect(celEval('[].join("-")')).to.equal('');
    expect(() => join(['a', 1n])).to.throw('only strings');
  });

  it('substring counts code points and checks its range', () => {
    expect(celEval('"tacocat".substring(4)')).to.equal('cat');
    expect(celEval('"tacocat".substring(0, 4)')).to.equal('taco');
    expect(celEval('"😀taco".substring(1, 3)')).to.equal('ta');
    expect(celEval('"abc".substring(3)')).to.equal('');
    expect(() => celEval('"abc".substring(4)')).to.throw(CelEvaluationError, 'index out of range');
    expect(() => celEval('"abc".substring(2, 1)')).to.throw(CelEvaluationError, 'invalid substring range');
    expect(() => substring('abc', 0n, 4n)).to.throw('index out of range');
  });

  it('trim removes Go white space at both ends, keeping U+FEFF', () => {
    expect(celEval('"  \\t trim\\n ".trim()')).to.equal('trim');
    expect(trim('\u00a0x\u3000')).to.equal('x');
    expect(trim('\ufeffx')).to.equal('\ufeffx');
  });

  it('keeps the library string functions that already match cel-go', () => {
    expect(
      celEval('"abc".startsWith("a") && "abc".endsWith("c") && "abc".contains("b") && "abc".size() == 3'),
    ).to.equal(true);
  });
});
