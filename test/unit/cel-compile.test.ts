import { expect } from 'chai';
import {
  ConvertedCelValue,
  CelCompileError,
  CelEvaluationError,
  celDouble,
  compileCel,
  escapePropertyName,
  unescapePropertyName,
} from '../../policies/cel/index.js';
import { celEval, thrown } from '../helpers/cel.js';

describe('CEL environment: compile', () => {
  it('compiles, reports the checked type and evaluates with plain values in and out', () => {
    const p = compileCel('claims.sub + "@" + claims.iss', {
      variables: { claims: 'map<string, dyn>' },
      resultTypes: ['string'],
    });
    expect(p.expression).to.equal('claims.sub + "@" + claims.iss');
    expect(p.resultType).to.equal('string');
    expect(p.evaluate({ claims: { sub: 'alice', iss: 'idp' } })).to.equal('alice@idp');
    const list = compileCel('[1, 2].map(x, x * 2)', { variables: {}, resultTypes: ['list<int>'] });
    expect(list.resultType).to.equal('list<int>');
    expect(list.evaluate({})).to.deep.equal([2, 4]);
    expect(celEval('{"a": [true]}')).to.deep.equal({ a: [true] });
  });

  it('rejects an undeclared variable at compile time with cel-go wording and position', () => {
    const e = thrown(() =>
      compileCel('request.user == other', { variables: { request: 'dyn' }, resultTypes: ['bool'] }),
    );
    expect(e).to.be.instanceOf(CelCompileError);
    expect(e.message).to.contain("ERROR: <input>:1:17: undeclared reference to 'other'");
    expect(e.message).to.contain('\n | request.user == other\n | ................^');
  });

  it('rejects an invalid variable declaration', () => {
    const e = thrown(() => compileCel('x', { variables: { x: 'no_such_type<' }, resultTypes: ['dyn'] }));
    expect(e).to.be.instanceOf(CelCompileError);
    expect(e.message).to.contain('invalid variable declaration');
  });

  it('rejects syntax errors and type errors', () => {
    expect(thrown(() => compileCel('1 +', { variables: {}, resultTypes: ['int'] }))).to.be.instanceOf(CelCompileError);
    const e = thrown(() => compileCel('1 + "a"', { variables: {}, resultTypes: ['dyn'] }));
    expect(e).to.be.instanceOf(CelCompileError);
    expect(e.message).to.contain('no such overload: int + string');
  });

  it('requires one of the result types, letting dyn through and checking it at run time', () => {
    const e = thrown(() => compileCel('"a"', { variables: {}, resultTypes: ['bool'] }));
    expect(e.message).to.contain('must evaluate to one of [bool], got string');
    const p = compileCel('x.flag', { variables: { x: 'map<string, dyn>' }, resultTypes: ['bool'] });
    expect(p.resultType).to.equal('dyn');
    expect(p.evaluate({ x: { flag: true } })).to.equal(true);
    const e2 = thrown(() => p.evaluate({ x: { flag: 'yes' } }));
    expect(e2).to.be.instanceOf(CelEvaluationError);
    expect(e2.message).to.equal('expression must evaluate to one of [bool], got string');
    // list<dyn> may turn out to be a list of strings.
    const groups = compileCel('x.groups', {
      variables: { x: 'map<string, list<dyn>>' },
      resultTypes: ['string', 'list<string>'],
    });
    expect(groups.evaluate({ x: { groups: ['a'] } })).to.deep.equal(['a']);
    expect(() => groups.evaluate({ x: { groups: [1] } })).to.throw(CelEvaluationError, 'got list');
  });

  it('has the standard macros', () => {
    const act = { xs: [1, 2, 3], m: { a: 1 } };
    expect(celEval('has(m.a) && !has(m.b)', act)).to.equal(true);
    expect(celEval('xs.all(x, x > 0)', act)).to.equal(true);
    expect(celEval('xs.exists(x, x == 2)', act)).to.equal(true);
    expect(celEval('xs.exists_one(x, x > 2)', act)).to.equal(true);
    expect(celEval('xs.map(x, x * 10)', act)).to.deep.equal([10, 20, 30]);
    expect(celEval('xs.filter(x, x % 2 == 1)', act)).to.deep.equal([1, 3]);
    expect(celEval('cel.bind(t, xs.size(), t * t)', act)).to.equal(9);
  });

  it('requires homogeneous aggregate literals', () => {
    expect(thrown(() => compileCel('[1, "a"]', { variables: {}, resultTypes: ['dyn'] }))).to.be.instanceOf(
      CelCompileError,
    );
    expect(thrown(() => compileCel('{"a": 1, "b": "x"}', { variables: {}, resultTypes: ['dyn'] }))).to.be.instanceOf(
      CelCompileError,
    );
    expect(celEval('[dyn(1), dyn("a")].size()')).to.equal(2);
  });

  it('reads timestamps in UTC by default and converts them', () => {
    const t = 'timestamp("2024-03-01T23:30:00-02:00")';
    expect(celEval(`${t}.getHours()`)).to.equal(1);
    expect(celEval(`${t}.getDate()`)).to.equal(2);
    expect(celEval(`${t}.getHours("America/Sao_Paulo")`)).to.equal(22);
    expect(celEval(`int(${t})`)).to.equal(1709343000);
    expect(celEval(`string(${t})`)).to.equal('2024-03-02T01:30:00Z');
    expect(celEval(t)).to.equal('2024-03-02T01:30:00.000Z');
    expect(celEval('string(duration("1m30s"))')).to.equal('90s');
    expect(celEval('duration("2h") > duration("90m")')).to.equal(true);
  });

  it('has optional types', () => {
    const act = { m: { a: 'x' } };
    expect(celEval('m.?a.orValue("none")', act)).to.equal('x');
    expect(celEval('m.?b.orValue("none")', act)).to.equal('none');
    expect(celEval('optional.none().hasValue()')).to.equal(false);
    expect(celEval('m.?b', act)).to.equal(undefined);
  });

  it('compares numbers across types', () => {
    expect(celEval('1 < 2.5 && 2.5 > 1 && 3u > 2')).to.equal(true);
  });

  it('turns integral JSON numbers into int and others into double', () => {
    const act = { x: { n: 3, f: 1.5, big: 2 ** 60, huge: 1e30 } };
    expect(celEval('type(x.n) == int && x.n + 1 == 4', act)).to.equal(true);
    expect(celEval('type(x.f) == double', act)).to.equal(true);
    expect(celEval('type(x.big) == int', act)).to.equal(true);
    expect(celEval('x.big', act)).to.equal(2n ** 60n);
    expect(celEval('type(x.huge) == double', act)).to.equal(true);
    expect(celEval('type(d) == double', { d: celDouble(2) })).to.equal(true);
    expect(celEval('x.n', { x: { n: 5n } })).to.equal(5);
  });

  it('never leaks activation data in evaluation errors', () => {
    const secret = 'S3cr3t-T0ken-Value';
    const act = { claims: { token: secret, n: 1 } };
    const expressions = [
      'bool(claims.token)',
      'int(claims.token) > 0',
      'duration(claims.token) > duration("1s")',
      'claims[claims.token]',
      'claims.token.charAt(100)',
      'claims.token.substring(50)',
      'url(claims.token + " ^").getScheme() != ""',
      'quantity(claims.token).sign() > 0',
      'claims.token.matches(claims.token + "(")',
      'claims.token + 1 == 2',
      'timestamp(claims.token) > timestamp("2024-01-01T00:00:00Z")',
      'claims.token.missing',
      '[claims.token, claims.n].min() == claims.n',
    ];
    for (const expression of expressions) {
      const e = thrown(() => celEval(expression, act, { variables: { claims: 'map<string, dyn>' } }));
      expect(e, expression).to.be.instanceOf(CelEvaluationError);
      expect(e.message, expression).not.to.contain(secret);
      expect(e.message, expression).not.to.contain('S3cr3t');
    }
  });

  it('takes a value converted once as the plain value, for as many evaluations as read it', () => {
    const object = { metadata: { name: 'a', generation: 2 }, data: { k: 'v' }, list: [1, 2.5] };
    const converted = new ConvertedCelValue(object);
    const expression = "object.metadata.generation == 2 && object.data.k == 'v' && object.list[1] == 2.5";
    for (let i = 0; i < 2; i++) expect(celEval(expression, { object: converted })).to.equal(true);
    expect(celEval('object', { object: converted })).to.deep.equal(object);
  });

  it('does not let expressions read the internals of library objects', () => {
    expect(() => celEval('quantity("1").quantity')).to.throw(CelCompileError, "undefined field 'quantity'");
    expect(() => celEval('url("https://a/").host')).to.throw(CelCompileError);
  });
});

describe('CEL environment: escaped property names', () => {
  it('escapes and unescapes as the spec says', () => {
    expect(escapePropertyName('foo.bar')).to.equal('foo__dot__bar');
    expect(escapePropertyName('a-b/c')).to.equal('a__dash__b__slash__c');
    expect(escapePropertyName('x__y')).to.equal('x__underscores__y');
    expect(escapePropertyName('namespace')).to.equal('__namespace__');
    expect(escapePropertyName('1abc')).to.equal(null);
    expect(escapePropertyName('a b')).to.equal(null);
    for (const name of ['foo.bar', 'a-b/c', 'x__y', 'namespace', 'if', 'plain_name']) {
      expect(unescapePropertyName(escapePropertyName(name)!)).to.equal(name);
    }
  });

  it('resolves escaped field selections when the field asks for it', () => {
    const self = { 'foo.bar': 1, 'a-b': 2, namespace: 'ns', x__y: 3, 'k8s.io/name': 'n' };
    const opts = { variables: { self: 'map<string, dyn>' }, escapedPropertyNames: true };
    expect(celEval('self.foo__dot__bar + self.a__dash__b + self.x__underscores__y', { self }, opts)).to.equal(6);
    expect(celEval('self.__namespace__', { self }, opts)).to.equal('ns');
    expect(celEval('self.k8s__dot__io__slash__name', { self }, opts)).to.equal('n');
    expect(celEval('has(self.foo__dot__bar) && !has(self.no__dot__pe)', { self }, opts)).to.equal(true);
    // Without the option, names are taken literally and indexing reaches any key.
    expect(() => celEval('self.foo__dot__bar', { self }, { variables: { self: 'map<string, dyn>' } })).to.throw(
      CelEvaluationError,
      'no such key: foo__dot__bar',
    );
    expect(celEval('self["foo.bar"]', { self })).to.equal(1);
  });
});
