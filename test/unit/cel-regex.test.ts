import { expect } from 'chai';
import { CelCompileError, CelEvaluationError } from '../../policies/cel/index.js';
import { compileRegex, find, findAll, isValidRegex, matches } from '../../policies/cel/regex-library.js';
import { celEval } from '../helpers/cel.js';

describe('CEL regex library (RE2)', () => {
  it('matches finds the pattern anywhere, as a method and as a function', () => {
    expect(celEval('"foobar".matches("o+b")')).to.equal(true);
    expect(celEval('"foobar".matches("^o+b")')).to.equal(false);
    expect(celEval('matches("foobar", "bar$")')).to.equal(true);
    expect(celEval('s.matches("^[a-z]+$")', { s: 'abc' })).to.equal(true);
  });

  it('accepts RE2 syntax JavaScript lacks, such as (?i)', () => {
    expect(celEval('"HeLLo".matches("(?i)^hello$")')).to.equal(true);
    expect(matches('ABC', '(?i)b')).to.equal(true);
  });

  it('runs in linear time on patterns that make backtracking engines explode', () => {
    // (a+)+$ against "aaaa…b" takes exponential time in a backtracking engine; RE2 answers at once.
    expect(matches(`${'a'.repeat(5000)}b`, '^(a+)+$')).to.equal(false);
  });

  it('find and findAll', () => {
    expect(celEval('"abc 123 def 456".find("[0-9]+")')).to.equal('123');
    expect(celEval('"abc".find("[0-9]+")')).to.equal('');
    expect(celEval('"abc 123 def 456".findAll("[0-9]+")')).to.deep.equal(['123', '456']);
    expect(celEval('"abc 123 def 456".findAll("[0-9]+", 1)')).to.deep.equal(['123']);
    expect(celEval('"abc 123".findAll("[0-9]+", 0)')).to.deep.equal([]);
    expect(find('xAy', '(?i)a')).to.equal('A');
    expect(findAll('a1b2', '\\d', -1n)).to.deep.equal(['1', '2']);
  });

  it('rejects an invalid literal pattern at compile time and a computed one at run time', () => {
    expect(() => celEval('"a".matches("(")')).to.throw(CelCompileError, 'invalid regular expression');
    expect(() => celEval('"a".find("[")')).to.throw(CelCompileError, 'invalid regular expression');
    expect(() => celEval('"a".matches(p)', { p: '(' })).to.throw(CelEvaluationError, 'invalid regular expression');
    expect(isValidRegex('a(b)')).to.equal(true);
    expect(isValidRegex('a(?=b)')).to.equal(false);
    expect(compileRegex('x+')).to.equal(compileRegex('x+'));
  });
});
