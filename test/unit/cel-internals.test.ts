import { expect } from 'chai';
import { EvaluationError, Optional, ParseError } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { createCelEnvironment } from '../../policies/cel/environment.js';
import {
  CelCompileError,
  CelEvaluationError,
  CelLibraryError,
  compileErrorAt,
  CostLimitError,
  toCompileError,
  toEvaluationError,
} from '../../policies/cel/errors.js';
import { displayName, internalName } from '../../policies/cel/internal-names.js';
import { literalPatterns, rerouteFunctions } from '../../policies/cel/rewrite.js';
import { childNodes, type CelNode, walk } from '../../policies/cel/ast.js';
import { mayYield, normalizeTypeName, runtimeTypeName, valueIsOfType } from '../../policies/cel/types.js';
import { celDouble, toCelActivation, toCelValue, toPlain } from '../../policies/cel/values.js';
import { charge, runMetered } from '../../policies/cel/runtime-cost.js';

function parse(expression: string): CelNode {
  return (createCelEnvironment({ x: 'dyn' }).parse(expression) as unknown as { ast: CelNode }).ast;
}

describe('CEL internals', () => {
  it('toCelValue: integral numbers become int, others double; plain objects are copied with own keys only', () => {
    expect(toCelValue(3)).to.equal(3n);
    expect(toCelValue(-0.5)).to.equal(-0.5);
    expect(toCelValue(1e300)).to.equal(1e300);
    expect(toCelValue(celDouble(2))).to.equal(2);
    expect(toCelValue({ a: [1, { b: 2.5 }], u: undefined })).to.deep.equal({ a: [1n, { b: 2.5 }] });
    const tricky = toCelValue(JSON.parse('{"__proto__": {"polluted": 1}}')) as Record<string, unknown>;
    expect(Object.hasOwn(tricky, '__proto__')).to.equal(true);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    const d = new Date(0);
    expect(toCelValue(d)).to.equal(d);
    expect(toCelActivation({ n: 1 })).to.deep.equal({ n: 1n });
  });

  it('toPlain: CEL values to plain values', () => {
    expect(toPlain(5n)).to.equal(5);
    expect(toPlain(2n ** 60n)).to.equal(2n ** 60n);
    expect(toPlain([1n, new Map([['k', 2n]])])).to.deep.equal([1, { k: 2 }]);
    expect(toPlain(new Date('2024-01-01T00:00:00Z'))).to.equal('2024-01-01T00:00:00.000Z');
    expect(toPlain(new Duration(90n, 0))).to.equal('90s');
    expect(toPlain(Optional.of(1n))).to.equal(1);
    expect(toPlain(Optional.none())).to.equal(undefined);
  });

  it('types: what a checked type may yield, and runtime type tests', () => {
    expect(mayYield('dyn', 'bool')).to.equal(true);
    expect(mayYield('list<dyn>', 'list<string>')).to.equal(true);
    expect(mayYield('list', 'list<string>')).to.equal(true);
    expect(mayYield('list<int>', 'list<string>')).to.equal(false);
    expect(mayYield('map<string, dyn>', 'map<string, list<string>>')).to.equal(true);
    expect(mayYield('string', 'bool')).to.equal(false);
    expect(normalizeTypeName('map')).to.equal('map<dyn, dyn>');
    expect(valueIsOfType(['a'], 'list<string>')).to.equal(true);
    expect(valueIsOfType(['a', 1n], 'list<string>')).to.equal(false);
    expect(valueIsOfType({ a: 'x' }, 'map<string, string>')).to.equal(true);
    expect(valueIsOfType(1n, 'double')).to.equal(false);
    expect(runtimeTypeName(1n)).to.equal('int');
    expect(runtimeTypeName({})).to.equal('map');
  });

  it('errors: evaluation errors keep only messages free of data', () => {
    expect(toEvaluationError(new CostLimitError()).message).to.equal('operation cancelled: actual cost limit exceeded');
    expect(toEvaluationError(new CelLibraryError('x', `bad ${internalName('indexOf')}`)).message).to.equal(
      'bad indexOf',
    );
    expect(
      toEvaluationError(new EvaluationError({ code: 'bool_conversion_error', message: 'invalid "secret"' })).message,
    ).to.equal('bool conversion error');
    expect(toEvaluationError(new TypeError('boom secret')).message).to.equal(
      'internal error while evaluating the expression',
    );
    const same = new CelEvaluationError('m');
    expect(toEvaluationError(same)).to.equal(same);
  });

  it('errors: compile errors point at the position', () => {
    expect(compileErrorAt('bad', 4, 'a &&\nb bad').message).to.equal(
      'compilation failed: ERROR: <input>:1:5: bad\n | a &&\n | ....^',
    );
    expect(compileErrorAt('bad', 7, 'a &&\nb bad').message).to.equal(
      'compilation failed: ERROR: <input>:2:3: bad\n | b bad\n | ..^',
    );
    expect(compileErrorAt('bad', undefined, 'x').message).to.equal('compilation failed: ERROR: <input>: bad');
    expect(toCompileError(new ParseError('nope'), 'x')).to.be.instanceOf(CelCompileError);
    expect(displayName(`'string.${internalName('matches')}(int)'`)).to.equal("'string.matches(int)'");
  });

  it('ast: walks every node once, macro expansions included', () => {
    const ops: string[] = [];
    walk(parse('x.all(y, y > 1) && has(x.a)'), (n) => ops.push(n.op));
    expect(ops).to.include.members(['&&', 'comprehension', '>', 'id', 'value']);
    expect(childNodes(parse('f(1, 2)')).map((n) => n.args)).to.deep.equal([1n, 2n]);
  });

  it('rewrite: routes calls to the internal names and finds literal patterns', () => {
    const ast = parse('x.matches("a+") || matches(x, "b") || x.find(x) == "" || x.lowerAscii() == ""');
    rerouteFunctions(ast);
    const names: string[] = [];
    walk(ast, (n) => {
      if (n.op === 'call' || n.op === 'rcall') names.push(n.args[0]);
    });
    expect(names).to.include.members([internalName('matches'), 'find', internalName('lowerAscii')]);
    expect(literalPatterns(ast).map((p) => p.pattern)).to.deep.equal(['a+', 'b']);
  });

  it('runtime meter: charges only inside a metered run and restores the outer meter', () => {
    charge(1_000_000);
    const outer = runMetered(10, () => {
      charge(3);
      const inner = runMetered(100, () => (charge(50), 'inner'));
      expect(inner).to.deep.equal({ value: 'inner', cost: 50 });
      charge(2);
      return 'outer';
    });
    expect(outer).to.deep.equal({ value: 'outer', cost: 5 });
    expect(() => runMetered(1, () => charge(2))).to.throw(CostLimitError);
    expect(() =>
      runMetered(1, () => {
        try {
          charge(2);
        } catch {
          // swallowed, as `||` would
        }
        return true;
      }),
    ).to.throw(CostLimitError);
  });
});
