import { expect } from 'chai';
import { FieldPath } from '../../api/meta/field-errors.js';
import { statusErrorOf } from '../helpers/assertions.js';
import {
  everything,
  labelSelectorFromObject,
  labelSelectorFromSet,
  nothing,
  parseLabelSelector,
} from '../../api/meta/selectors.js';
import { assertSupportedFields, parseFieldSelector, unsupportedFieldKeys } from '../../api/meta/field-selectors.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'front', env: 'prod' };

  it('parses equality, inequality and double equals', () => {
    expect(parseLabelSelector('app=web').matches(labels)).to.equal(true);
    expect(parseLabelSelector('app==web').matches(labels)).to.equal(true);
    expect(parseLabelSelector('app!=web').matches(labels)).to.equal(false);
    expect(parseLabelSelector('app!=db').matches(labels)).to.equal(true);
    expect(parseLabelSelector('missing!=x').matches(labels)).to.equal(true);
  });

  it('treats commas as AND and tolerates whitespace', () => {
    expect(parseLabelSelector(' app = web ,  tier==front ').matches(labels)).to.equal(true);
    expect(parseLabelSelector('app=web,tier=back').matches(labels)).to.equal(false);
  });

  it('supports in, notin, exists and does-not-exist', () => {
    expect(parseLabelSelector('env in (prod, staging)').matches(labels)).to.equal(true);
    expect(parseLabelSelector('env notin (prod)').matches(labels)).to.equal(false);
    expect(parseLabelSelector('other notin (prod)').matches(labels)).to.equal(true);
    expect(parseLabelSelector('other in (prod)').matches(labels)).to.equal(false);
    expect(parseLabelSelector('app').matches(labels)).to.equal(true);
    expect(parseLabelSelector('!app').matches(labels)).to.equal(false);
    expect(parseLabelSelector('!nope,tier').matches(labels)).to.equal(true);
  });

  it('accepts keywords as keys and values and empty set members', () => {
    expect(parseLabelSelector('in in (in)').matches({ in: 'in' })).to.equal(true);
    const sel = parseLabelSelector('x in (,a)');
    expect(sel.requirements[0].values).to.deep.equal(['', 'a']);
    expect(sel.matches({ x: '' })).to.equal(true);
    expect(parseLabelSelector('x notin ()').requirements[0].values).to.deep.equal(['']);
  });

  it('supports gt and lt on integer label values', () => {
    expect(parseLabelSelector('n>3').matches({ n: '4' })).to.equal(true);
    expect(parseLabelSelector('n<3').matches({ n: '4' })).to.equal(false);
    expect(parseLabelSelector('n>3').matches({ n: 'x' })).to.equal(false);
    expect(statusErrorOf(() => parseLabelSelector('n>a')).message).to.contain('the value must be an integer');
  });

  it('parses an empty string to a selector matching everything', () => {
    const sel = parseLabelSelector('  ');
    expect(sel.empty).to.equal(true);
    expect(sel.matches(undefined)).to.equal(true);
  });

  it('prints requirements sorted by key in kube form', () => {
    expect(parseLabelSelector('z in (b,a,b),a!=1,!m,k').toString()).to.equal('a!=1,k,!m,z in (a,b)');
    expect(parseLabelSelector('a=,b==c').toString()).to.equal('a=,b==c');
  });

  it('accepts prefixed keys and rejects invalid keys with kube wording', () => {
    expect(parseLabelSelector('example.com/app=x').matches({ 'example.com/app': 'x' })).to.equal(true);
    const e = statusErrorOf(() => parseLabelSelector('app:monolith'));
    expect(e.code).to.equal(400);
    expect(e.reason).to.equal('BadRequest');
    expect(e.message).to.match(
      /^unable to parse requirement: <nil>: Invalid value: "app:monolith": name part must consist of alphanumeric characters/,
    );
    expect(statusErrorOf(() => parseLabelSelector('Bad_Prefix/app=x')).message).to.contain(
      'prefix part a lowercase RFC 1123 subdomain',
    );
    expect(statusErrorOf(() => parseLabelSelector(`${'a'.repeat(64)}=x`)).message).to.contain(
      'name part must be no more than 63 characters',
    );
  });

  it('rejects invalid values', () => {
    const e = statusErrorOf(() => parseLabelSelector('app=-bad'));
    expect(e.message).to.match(
      /^unable to parse requirement: values\[0\]\[app\]: Invalid value: "-bad": a valid label must be an empty string/,
    );
    expect(statusErrorOf(() => parseLabelSelector(`a=${'v'.repeat(64)}`)).message).to.contain(
      'must be no more than 63 characters',
    );
  });

  it('reports grammar errors like kube-apiserver', () => {
    expect(statusErrorOf(() => parseLabelSelector('a=b c')).message).to.equal(
      "found 'c', expected: ',' or 'end of string'",
    );
    expect(statusErrorOf(() => parseLabelSelector('a=b,')).message).to.equal(
      "found '', expected: identifier after ','",
    );
    expect(statusErrorOf(() => parseLabelSelector('=a')).message).to.equal(
      "found '=', expected: !, identifier, or 'end of string'",
    );
    expect(statusErrorOf(() => parseLabelSelector('a in b')).message).to.equal(
      "unable to parse requirement: found 'b', expected: '('",
    );
    expect(statusErrorOf(() => parseLabelSelector('a in (b c)')).message).to.equal(
      "unable to parse requirement: found 'c', expected: ',' or ')'",
    );
    expect(statusErrorOf(() => parseLabelSelector('a in (b')).message).to.equal(
      "unable to parse requirement: found '', expected: ',' or ')'",
    );
    expect(statusErrorOf(() => parseLabelSelector('a (b)')).message).to.equal(
      "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt",
    );
    expect(statusErrorOf(() => parseLabelSelector('a==(')).message).to.equal(
      "unable to parse requirement: found '(', expected: identifier",
    );
    expect(statusErrorOf(() => parseLabelSelector('!a=b')).message).to.equal(
      "found '=', expected: ',' or 'end of string'",
    );
  });
});

describe('label selectors held in objects', () => {
  it('treats {} as everything and null as nothing, or everything when asked', () => {
    expect(labelSelectorFromObject({}).selector.matches({ a: 'b' })).to.equal(true);
    expect(labelSelectorFromObject({}).selector.empty).to.equal(true);
    expect(labelSelectorFromObject(null).selector.matches({})).to.equal(false);
    expect(labelSelectorFromObject(undefined, { absent: 'everything' }).selector.matches({})).to.equal(true);
    expect(everything().matches({ x: 'y' })).to.equal(true);
    expect(nothing().matches({ x: 'y' })).to.equal(false);
  });

  it('combines matchLabels and matchExpressions', () => {
    const { selector, errors } = labelSelectorFromObject({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'dev'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    });
    expect(errors).to.deep.equal([]);
    expect(selector.matches({ app: 'web', env: 'dev' })).to.equal(true);
    expect(selector.matches({ app: 'web', env: 'dev', legacy: '1' })).to.equal(false);
    expect(selector.matches({ app: 'web', env: 'qa' })).to.equal(false);
    expect(selector.toString()).to.equal('app=web,env in (dev,prod),!legacy');
  });

  it('reports field errors with paths under the given root', () => {
    const path = FieldPath.root('spec').child('selector');
    const { selector, errors } = labelSelectorFromObject(
      {
        matchLabels: { 'bad key': 'v' },
        matchExpressions: [
          { key: 'a', operator: 'In', values: [] },
          { key: 'b', operator: 'Exists', values: ['x'] },
          { key: 'c', operator: 'Sometimes' },
          { key: 'd', operator: 'NotIn', values: ['-x'] },
        ],
      },
      { path },
    );
    expect(selector.matches({})).to.equal(false);
    expect(errors.map((e) => `${e.type} ${e.field}`)).to.deep.equal([
      'FieldValueInvalid spec.selector.matchLabels',
      'FieldValueRequired spec.selector.matchExpressions[0].values',
      'FieldValueForbidden spec.selector.matchExpressions[1].values',
      'FieldValueInvalid spec.selector.matchExpressions[2].operator',
      'FieldValueInvalid spec.selector.matchExpressions[3].values[0]',
    ]);
  });

  it('builds an equality selector from a label set', () => {
    const sel = labelSelectorFromSet({ b: '2', a: '1' });
    expect(sel.toString()).to.equal('a=1,b=2');
    expect(sel.matches({ a: '1', b: '2', c: '3' })).to.equal(true);
    expect(sel.matches({ a: '1' })).to.equal(false);
  });
});

describe('field selectors', () => {
  it('parses =, == and != terms joined by commas', () => {
    const sel = parseFieldSelector('metadata.name=a,metadata.namespace==ns,status.phase!=Failed');
    expect(sel.requirements).to.deep.equal([
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'metadata.namespace', operator: '==', value: 'ns' },
      { field: 'status.phase', operator: '!=', value: 'Failed' },
    ]);
    expect(sel.matches({ 'metadata.name': 'a', 'metadata.namespace': 'ns', 'status.phase': 'Running' })).to.equal(true);
    expect(sel.matches({ 'metadata.name': 'a', 'metadata.namespace': 'ns', 'status.phase': 'Failed' })).to.equal(false);
  });

  it('treats a missing field as the empty string', () => {
    expect(parseFieldSelector('spec.nodeName=').matches({})).to.equal(true);
    expect(parseFieldSelector('spec.nodeName!=').matches({})).to.equal(false);
  });

  it('unescapes values and splits only on unescaped commas', () => {
    const sel = parseFieldSelector('a=x\\,y\\=z\\\\,b=2');
    expect(sel.requirements.map((r) => r.value)).to.deep.equal(['x,y=z\\', '2']);
    expect(sel.toString()).to.equal('a=x\\,y\\=z\\\\,b=2');
  });

  it('rejects bad escapes, unescaped specials and terms without operators', () => {
    expect(statusErrorOf(() => parseFieldSelector('a=b\\n')).message).to.equal(
      'invalid field selector: invalid escape sequence: \\n',
    );
    expect(statusErrorOf(() => parseFieldSelector('a=b=c')).message).to.equal(
      'invalid field selector: unescaped character in value: =',
    );
    const e = statusErrorOf(() => parseFieldSelector('a=b,justakey'));
    expect(e.code).to.equal(400);
    expect(e.message).to.equal("invalid selector: 'a=b,justakey'; can't understand 'justakey'");
  });

  it('is empty for an empty string', () => {
    expect(parseFieldSelector('').empty).to.equal(true);
    expect(parseFieldSelector('').matches({ x: 'y' })).to.equal(true);
  });

  it('lists and rejects unsupported field keys', () => {
    const sel = parseFieldSelector('metadata.name=a,spec.foo=b,spec.foo!=c');
    expect(unsupportedFieldKeys(sel, ['metadata.name', 'metadata.namespace'])).to.deep.equal(['spec.foo']);
    const e = statusErrorOf(() => assertSupportedFields(sel, ['metadata.name']));
    expect(e.code).to.equal(400);
    expect(e.message).to.equal('field label not supported: spec.foo');
    expect(() => assertSupportedFields(sel, ['metadata.name', 'spec.foo'])).not.to.throw();
  });
});
