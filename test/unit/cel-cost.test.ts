import { expect } from 'chai';
import {
  AUTHORIZER_TYPE,
  CelCompileError,
  CelEvaluationError,
  compileCel,
  createCelAuthorizer,
  DEFAULT_RUNTIME_COST_BUDGET,
  type CelCompileOptions,
} from '../../policies/cel/index.js';
import { regexCost, traversalCost } from '../../policies/cel/cost-constants.js';
import { thrown } from '../helpers/cel.js';

const variables = { xs: 'list<int>', s: 'string', m: 'map<string, dyn>' };
const activation = { xs: [1, 2, 3], s: 'xabcdx', m: { a: { b: 1 } } };

function compile(expression: string, options: Partial<CelCompileOptions> = {}) {
  return compileCel(expression, { variables, resultTypes: ['dyn'], maxValueSize: 100, ...options });
}

describe('CEL cost model', () => {
  describe('static estimate', () => {
    it('uses cel-go constants: comparisons 1, list literal 40, map literal 30, variables and selections 1', () => {
      expect(compile('1 < 2').estimatedCost).to.equal(1);
      expect(compile('[1, 2, 3]').estimatedCost).to.equal(40);
      expect(compile('{"a": 1}').estimatedCost).to.equal(30);
      expect(compile('xs == xs').estimatedCost).to.equal(3);
      expect(compile('m.a.b').estimatedCost).to.equal(3);
      expect(compile('"abc"').estimatedCost).to.equal(0);
    });

    it('multiplies the cost of a macro step by the estimated size of the range', () => {
      // xs (1) + 100 elements × (x (1) + > (1))
      expect(compile('xs.all(x, x > 0)').estimatedCost).to.equal(201);
      // plus the list the macro builds (10) and the multiplication
      expect(compile('xs.map(x, x * 2)').estimatedCost).to.equal(1 + 10 + 100 * 2);
      // nested: the inner comprehension runs for each outer element
      expect(compile('xs.all(x, xs.all(y, x == y))').estimatedCost).to.equal(1 + 100 * (1 + 100 * 3));
      // a literal range has a known size
      expect(compile('[1, 2].all(x, x > 0)').estimatedCost).to.equal(40 + 2 * 2);
      // a larger assumed size gives a proportionally larger estimate
      expect(compile('xs.all(x, x > 0)', { maxValueSize: 1000 }).estimatedCost).to.equal(2001);
    });

    it('costs regular expressions by the lengths of pattern and input', () => {
      expect(compile('s.matches("abcd")').estimatedCost).to.equal(1 + 1 + regexCost(4, 100));
      expect(compile('s.matches("' + 'a'.repeat(40) + '")').estimatedCost).to.equal(2 + regexCost(40, 100));
      expect(regexCost(40, 100)).to.equal(traversalCost(100) * 10);
      expect(compile('"abc".find("b")').estimatedCost).to.equal(1 + regexCost(1, 3));
    });

    it('costs string traversals by length and list membership by size', () => {
      expect(compile('s.contains("a")').estimatedCost).to.equal(1 + 1 + traversalCost(101));
      expect(compile('2 in xs').estimatedCost).to.equal(1 + 100);
      expect(compile('xs.sum()').estimatedCost).to.equal(1 + 1 + 100);
    });

    it('costs startsWith and endsWith by their argument, as cel-go', () => {
      expect(compile('s.startsWith("ab")').estimatedCost).to.equal(1 + 1 + traversalCost(2));
      expect(compile('s.endsWith(s)').estimatedCost).to.equal(1 + 1 + 1 + traversalCost(100));
    });

    it('takes sizes from declared bounds of variables, their fields, items and comprehension variables', () => {
      const declaredSizes = {
        m: { maxSize: 2, field: (name: string) => (name === 'a' ? { maxSize: 8 } : undefined) },
        xs: { maxSize: 5, element: { maxSize: 1 } },
        s: { maxSize: 10 },
      };
      expect(compile('s.contains("a")', { declaredSizes }).estimatedCost).to.equal(2 + traversalCost(11));
      expect(compile('m.a.contains("a")', { declaredSizes }).estimatedCost).to.equal(3 + traversalCost(9));
      // An undeclared field is as large as maxValueSize.
      expect(compile('m.b.contains("a")', { declaredSizes }).estimatedCost).to.equal(3 + traversalCost(101));
      // xs (1) + 5 elements × (x (1) + > (1))
      expect(compile('xs.all(x, x > 0)', { declaredSizes }).estimatedCost).to.equal(1 + 5 * 2);
    });

    it('costs an authorization check as kube does', () => {
      const p = compileCel('authorizer.path("/").check("get").allowed()', {
        variables: { authorizer: AUTHORIZER_TYPE },
        resultTypes: ['bool'],
      });
      expect(p.estimatedCost).to.be.at.least(350_000);
    });

    it('is deterministic', () => {
      const e = 'xs.filter(x, x > 1).map(x, s.matches("a+")).exists(b, b)';
      expect(compile(e).estimatedCost).to.equal(compile(e).estimatedCost);
    });

    it('rejects at compile time an expression above maxEstimatedCost, with a clear message', () => {
      const e = thrown(() => compile('xs.all(x, xs.all(y, x == y))', { maxEstimatedCost: 1000 }));
      expect(e).to.be.instanceOf(CelCompileError);
      expect(e.message).to.equal(
        'compilation failed: estimated cost 30101 exceeds the limit of 1000 ' +
          '(try simplifying the expression, or bounding the size of the lists and strings it ranges over)',
      );
      expect(compile('xs.all(x, x > 0)', { maxEstimatedCost: 201 }).estimatedCost).to.equal(201);
    });

    it('bounds the runtime cost from above when the inputs fit the assumed size', () => {
      const expressions = [
        'xs.all(x, x > 0)',
        'xs.map(x, x * 2)',
        's.matches("abcd")',
        'xs.all(x, xs.all(y, x == y))',
        's.contains("a")',
        '2 in xs',
        'm.a.b',
        '[1, 2].exists(x, x == 2)',
        'xs.filter(x, x > 1).size() > 0',
        's.split("b").join("-")',
        's.lowerAscii().indexOf("c")',
        'xs.sum() + xs.max()',
      ];
      for (const e of expressions) {
        const p = compile(e);
        expect(p.evaluateWithCost(activation).cost, e).to.be.at.most(p.estimatedCost);
      }
    });
  });

  describe('runtime budget', () => {
    const many = Array.from({ length: 1000 }, (_, i) => i);

    it('reports the cost spent, the same on every evaluation', () => {
      const p = compile('xs.all(x, x > 0)');
      expect(p.evaluateWithCost(activation)).to.deep.equal({ value: true, cost: 7 });
      expect(p.evaluateWithCost(activation)).to.deep.equal({ value: true, cost: 7 });
      expect(compile('s.matches("abcd")').evaluateWithCost(activation).cost).to.equal(1 + 1 + regexCost(4, 6));
    });

    it("halts an evaluation over its budget with kube's message", () => {
      const p = compile('xs.all(x, x >= 0)', { runtimeCostBudget: 100 });
      expect(p.runtimeCostBudget).to.equal(100);
      const e = thrown(() => p.evaluate({ xs: many }));
      expect(e).to.be.instanceOf(CelEvaluationError);
      expect(e.message).to.equal('operation cancelled: actual cost limit exceeded');
      expect(p.evaluate({ xs: [1, 2] })).to.equal(true);
    });

    it('cannot be escaped by an operator that absorbs errors', () => {
      const a = compile('xs.all(x, x >= 0) || true', { runtimeCostBudget: 100 });
      expect(() => a.evaluate({ xs: many })).to.throw(CelEvaluationError, 'actual cost limit exceeded');
      const b = compile('xs.exists(x, x < 0) || true', { runtimeCostBudget: 100 });
      expect(() => b.evaluate({ xs: many })).to.throw(CelEvaluationError, 'actual cost limit exceeded');
    });

    it('charges regular expressions by input length', () => {
      const p = compile('s.matches("a+b")', { runtimeCostBudget: 1000 });
      expect(p.evaluate({ s: 'ab' })).to.equal(true);
      expect(() => p.evaluate({ s: 'a'.repeat(100_000) })).to.throw(CelEvaluationError, 'actual cost limit exceeded');
    });

    it("has kube's default per-expression budget, which allows two authorization checks but not three", () => {
      expect(DEFAULT_RUNTIME_COST_BUDGET).to.equal(1_000_000);
      const authorizer = createCelAuthorizer({ name: 'u', groups: [] }, () => ({ decision: 'Allow', reason: '' }));
      const opts = { variables: { authorizer: AUTHORIZER_TYPE, rs: 'list<string>' }, resultTypes: ['bool'] };
      const p = compileCel('rs.all(r, authorizer.group("").resource(r).check("get").allowed())', opts);
      expect(p.evaluate({ authorizer, rs: ['a', 'b'] })).to.equal(true);
      expect(() => p.evaluate({ authorizer, rs: ['a', 'b', 'c'] })).to.throw(
        CelEvaluationError,
        'actual cost limit exceeded',
      );
    });

    it("does not leak one evaluation's meter into the next", () => {
      const heavy = compile('xs.all(x, x >= 0)', { runtimeCostBudget: 100 });
      const light = compile('1 < 2', { runtimeCostBudget: 1 });
      expect(() => heavy.evaluate({ xs: many })).to.throw(CelEvaluationError);
      expect(light.evaluate({})).to.equal(true);
    });
  });
});
