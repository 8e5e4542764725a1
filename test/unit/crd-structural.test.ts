// The schema rules of a CustomResourceDefinition version, table-driven: keyword rules, structural-schema invariants,
// defaults, x-kubernetes-* markers and the static rules of x-kubernetes-validations; then a seeded fuzz of generated
// schemas through the whole write-time validation (CEL compilation included), which must answer and never throw.
import { expect } from 'chai';
import { FieldPath, fieldErrorMessage } from '../../api/meta/field-errors.js';
import type { KObject } from '../../api/meta/types.js';
import { validateVersionSchema } from '../../api/apiextensions/v1/version-validation.js';
import { customResourceDefinition as def } from '../../api/apiextensions/v1/custom-resource-definition.js';
import { serverKindValidator } from '../../gateway/admission/policy/expression-check.js';
import { crd, fooSchema } from '../helpers/crds.js';
import { seededRandom } from '../helpers/seeded-random.js';

const check = (schema: unknown): string[] => validateVersionSchema(schema, FieldPath.root('s')).map(fieldErrorMessage);
const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const str = { type: 'string' };

describe('CustomResourceDefinition schemas', () => {
  describe('accepts structural schemas', () => {
    const valid: [string, unknown][] = [
      ['the sample Foo', fooSchema()],
      ['int-or-string without a type', obj({ port: { 'x-kubernetes-int-or-string': true } })],
      [
        'int-or-string with its anyOf pattern',
        obj({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }),
      ],
      [
        'int-or-string with its allOf pattern',
        obj({
          port: {
            'x-kubernetes-int-or-string': true,
            allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '^[0-9a-z]+$' }],
          },
        }),
      ],
      ['an untyped preserved subtree', obj({ raw: { 'x-kubernetes-preserve-unknown-fields': true } })],
      [
        'an embedded resource',
        obj({
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        }),
      ],
      ['metadata restricting name only', obj({ metadata: obj({ name: { type: 'string', maxLength: 20 } }) })],
      ['a map of strings', obj({ labels: { type: 'object', additionalProperties: str } })],
      [
        'a map list keyed by a required field',
        obj({
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: obj({ name: str, port: { type: 'integer' } }, { required: ['name'] }),
          },
        }),
      ],
      [
        'value validations over declared fields',
        obj(
          { a: str, b: str },
          { anyOf: [{ required: ['a'] }, { required: ['b'] }], not: { properties: { a: { enum: ['x'] } } } },
        ),
      ],
      [
        'defaults that fit their schema',
        obj({
          spec: obj(
            {
              replicas: { type: 'integer', default: 3, minimum: 1 },
              mode: { type: 'string', enum: ['a', 'b'], default: 'a' },
            },
            { default: { replicas: 2 } },
          ),
          opt: { type: 'string', nullable: true, default: null },
        }),
      ],
    ];
    for (const [what, schema] of valid)
      it(what, () => {
        expect(check(schema)).to.deep.equal([]);
      });
  });

  describe('refuses', () => {
    const cases: [string, unknown, string[]][] = [
      [
        'a root that is not an object',
        { type: 'string' },
        ['s.type: Invalid value: "string": must be object at the root'],
      ],
      ['a root without a type', { properties: { a: str } }, ['s.type: Required value: must not be empty at the root']],
      [
        'a field without a type',
        obj({ a: { properties: { b: str } } }),
        ['s.properties[a].type: Required value: must not be empty for specified object fields'],
      ],
      [
        'an array without items',
        obj({ a: { type: 'array' } }),
        ['s.properties[a].items: Required value: must be specified'],
      ],
      [
        'array items without a type',
        obj({ a: { type: 'array', items: { minLength: 1 } } }),
        ['s.properties[a].items.type: Required value: must not be empty for specified array items'],
      ],
      [
        'properties with additionalProperties',
        obj({ a: obj({ b: str }, { additionalProperties: str }) }),
        ['s.properties[a].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'],
      ],
      [
        'additionalProperties at the root',
        { type: 'object', additionalProperties: str },
        ['s.additionalProperties: Forbidden: must not be used at the root'],
      ],
      [
        'metadata restricting labels',
        obj({ metadata: obj({ labels: { type: 'object' } }) }),
        [
          's.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
        ],
      ],
      [
        'metadata.name typed other than string',
        obj({ metadata: obj({ name: { type: 'integer' } }) }),
        ['s.properties[metadata].properties[name].type: Invalid value: "integer": must be string'],
      ],
      [
        'a type inside anyOf',
        obj({ a: { type: 'string', anyOf: [{ type: 'integer' }] } }),
        ['s.properties[a].anyOf[0].type: Forbidden: must be empty to be structural'],
      ],
      [
        'a default and a description inside allOf',
        obj({ a: { type: 'string', allOf: [{ default: 'x', description: 'd' }] } }),
        [
          's.properties[a].allOf[0].default: Forbidden: must be undefined to be structural',
          's.properties[a].allOf[0].description: Forbidden: must be empty to be structural',
        ],
      ],
      [
        'metadata inside a junctor',
        obj({ a: obj({ metadata: obj({}) }, { oneOf: [{ properties: { metadata: {} } }] }) }),
        ['s.properties[a].oneOf[0].properties[metadata]: Forbidden: must not be specified in a nested context'],
      ],
      [
        'a junctor restricting an undeclared field',
        obj({ a: obj({ b: str }, { allOf: [{ properties: { c: { maxLength: 3 } } }] }) }),
        [
          's.properties[a].properties[c]: Required value: because it is defined in s.properties[a].allOf[0].properties[c]',
        ],
      ],
      [
        'x-kubernetes-preserve-unknown-fields false',
        obj({ a: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }),
        ['s.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined'],
      ],
      [
        'int-or-string with preserve-unknown-fields',
        obj({ a: { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true } }),
        [
          's.properties[a].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
        ],
      ],
      [
        'an embedded resource that is a string',
        obj({ a: { type: 'string', 'x-kubernetes-embedded-resource': true } }),
        [
          's.properties[a].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true',
          's.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true',
        ],
      ],
      [
        'an embedded resource with nothing declared',
        obj({ a: { type: 'object', 'x-kubernetes-embedded-resource': true } }),
        [
          's.properties[a].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
        ],
      ],
      [
        'a map list without keys',
        obj({ a: { type: 'array', 'x-kubernetes-list-type': 'map', items: obj({ k: str }) } }),
        [
          's.properties[a].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map',
        ],
      ],
      [
        'map keys that are no item properties, or objects',
        obj({
          a: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['k', 'o'],
            items: obj({ o: obj({}) }, { required: ['o'] }),
          },
        }),
        [
          's.properties[a].x-kubernetes-list-map-keys: Invalid value: ["k","o"]: entries must all be names of item properties',
          's.properties[a].items.properties[o].type: Invalid value: "object": must be a scalar type if parent array\'s x-kubernetes-list-type is map',
        ],
      ],
      [
        'a map key neither required nor defaulted',
        obj({
          a: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['k'],
            items: obj({ k: str }),
          },
        }),
        [
          's.properties[a].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ],
      ],
      [
        'a list type on a string and an unknown list type',
        obj({ a: { type: 'string', 'x-kubernetes-list-type': 'bag' } }),
        [
          's.properties[a].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified',
          's.properties[a].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
        ],
      ],
      [
        'list-map-keys without the map list type',
        obj({ a: { type: 'array', items: str, 'x-kubernetes-list-map-keys': ['k'] } }),
        [
          's.properties[a].x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty',
        ],
      ],
      [
        'a map type on an array',
        obj({ a: { type: 'array', items: str, 'x-kubernetes-map-type': 'atomic' } }),
        ['s.properties[a].type: Invalid value: "array": must be object if x-kubernetes-map-type is specified'],
      ],
      [
        'a set of granular objects',
        obj({ a: { type: 'array', 'x-kubernetes-list-type': 'set', items: obj({ k: str }) } }),
        [
          's.properties[a].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
        ],
      ],
      [
        'uniqueItems, $ref, patternProperties and definitions',
        obj({
          a: { type: 'array', items: str, uniqueItems: true },
          b: { type: 'object', $ref: '#/x', patternProperties: { x: str }, definitions: { d: str } },
        }),
        [
          's.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic',
          's.properties[b].patternProperties: Forbidden: patternProperties is not supported',
          's.properties[b].definitions: Forbidden: definitions is not supported',
          's.properties[b].$ref: Forbidden: $ref is not supported',
        ],
      ],
      [
        'an array of item schemas',
        obj({ a: { type: 'array', items: [str] } }),
        ['s.properties[a].items: Forbidden: items must be a schema object and not an array'],
      ],
      [
        'type null and an unknown type',
        obj({ a: { type: 'null' }, b: { type: 'file' } }),
        [
          's.properties[a].type: Unsupported value: "null"',
          's.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative',
          's.properties[b].type: Unsupported value: "file"',
        ],
      ],
      [
        'a default of the wrong type',
        obj({ a: { type: 'integer', default: 'three' } }),
        ['s.properties[a].default: Invalid value: "three": must be of type integer, got string'],
      ],
      [
        'a default outside its bounds and enum',
        obj({ a: { type: 'string', maxLength: 2, enum: ['ab'], default: 'abc' } }),
        [
          's.properties[a].default: Invalid value: "abc": should be at most 2 chars long',
          's.properties[a].default: Invalid value: "abc": should be one of "ab"',
        ],
      ],
      [
        'a default with unknown fields',
        obj({ a: obj({ b: str }, { default: { b: 'x', c: 'y' } }) }),
        ['s.properties[a].default: Invalid value: {"b":"x","c":"y"}: must not have unknown fields: .c'],
      ],
      [
        'a null default on a non-nullable field',
        obj({ a: { type: 'string', default: null } }),
        ['s.properties[a].default: Invalid value: null: must not be null for non-nullable'],
      ],
      [
        'a default in top-level metadata',
        obj({ metadata: obj({ name: { type: 'string', default: 'x' } }) }),
        ['s.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata'],
      ],
      [
        'a pattern that does not compile',
        obj({ a: { type: 'string', pattern: '([a-z' } }),
        ['s.properties[a].pattern: Invalid value: "([a-z": must be a valid regular expression'],
      ],
      [
        'a nullable root',
        { type: 'object', nullable: true },
        ['s.nullable: Forbidden: nullable cannot be true at the root'],
      ],
      [
        'validation rules that are empty, multi-line without message, with an unknown reason or a bad fieldPath',
        obj(
          { a: str },
          {
            'x-kubernetes-validations': [
              { rule: ' ' },
              { rule: 'self.a ==\n"x"' },
              { rule: 'true', reason: 'FieldValueBad', fieldPath: '.nothing' },
              { rule: 'true' },
              { rule: 'has(self.a)', message: 'two\nlines' },
              { rule: 'self.a == "b"', optionalOldSelf: true },
            ],
          },
        ),
        [
          's.x-kubernetes-validations[0].rule: Required value: rule is not specified',
          's.x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks',
          's.x-kubernetes-validations[2].reason: Unsupported value: "FieldValueBad"',
          's.x-kubernetes-validations[2].fieldPath: Invalid value: ".nothing": fieldPath must be a valid path',
          's.x-kubernetes-validations[3].rule: Duplicate value: "true"',
          's.x-kubernetes-validations[4].message: Invalid value: "two\\nlines": message must not contain line breaks',
          's.x-kubernetes-validations[5].optionalOldSelf: Invalid value: true: may not be set if rule does not use oldSelf',
        ],
      ],
    ];
    for (const [what, schema, expected] of cases)
      it(what, () => {
        const got = check(schema);
        expect(got.length, got.join('\n')).to.equal(expected.length);
        for (const e of expected)
          expect(
            got.some((g) => g.startsWith(e)),
            `${e}\nnot among\n${got.join('\n')}`,
          ).to.equal(true);
      });
  });

  it('refuses a schema nested deeper than 128 levels without walking it all', () => {
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 5000; i++) deep = { type: 'object', properties: { a: deep } };
    const got = check(deep);
    expect(got).to.have.length(1);
    expect(got[0]).to.match(/^s(\.properties\[a\]){129}: Forbidden: must not be nested more than 128 levels deep$/);
  });

  describe('CEL rules, compiled at write time', () => {
    const validator = serverKindValidator(def);
    const withRules = (rules: unknown[]): KObject => {
      const body = crd('foos', 'example.com') as any;
      const spec = body.spec.versions[0].schema.openAPIV3Schema.properties.spec;
      spec['x-kubernetes-validations'] = rules;
      // Rules are type checked against the schema: an escaped name must name a declared field.
      spec.properties['x-y'] = { type: 'integer' };
      const o = body as KObject;
      def.defaults!(o);
      return o;
    };
    it('accepts rules and message expressions that compile, with oldSelf and escaped names', () => {
      const o = withRules([
        { rule: 'self.replicas <= 10' },
        { rule: 'self.replicas >= oldSelf.replicas', message: 'may not shrink' },
        { rule: 'has(self.tags)', messageExpression: '"tags missing on " + string(self.replicas)' },
        { rule: 'self.x__dash__y == 1', reason: 'FieldValueForbidden', fieldPath: '.replicas' },
      ]);
      expect(validator.validate(o).map(fieldErrorMessage)).to.deep.equal([]);
    });
    it('refuses a rule that does not compile, with its position, and a message expression of the wrong type', () => {
      const o = withRules([{ rule: 'self.replicas >' }, { rule: 'true', messageExpression: '1 + 1' }, { rule: '"x"' }]);
      const got = validator.validate(o).map(fieldErrorMessage);
      const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations';
      expect(got).to.have.length(3);
      expect(got[0]).to.match(
        new RegExp(
          `^${at.replace(/[[\].]/g, '\\$&')}\\[0\\]\\.rule: Invalid value: "self.replicas >": compilation failed: .*1:\\d+`,
          's',
        ),
      );
      expect(got[1]).to.match(
        /x-kubernetes-validations\[1\]\.messageExpression: Invalid value: "1 \+ 1": compilation failed: must evaluate to one of \[string\]/,
      );
      expect(got[2]).to.match(
        /x-kubernetes-validations\[2\]\.rule: Invalid value: "\\"x\\"": compilation failed: must evaluate to one of \[bool\]/,
      );
    });
  });

  describe('fuzz', () => {
    const ODD_VALUES: unknown[] = [
      null,
      0,
      -1,
      1.5,
      '',
      'x',
      true,
      false,
      [],
      {},
      ['a'],
      { a: 1 },
      'self.a ==',
      '([',
      2 ** 53,
    ];
    const KEYS = [
      'type',
      'format',
      'default',
      'enum',
      'minimum',
      'maximum',
      'maxLength',
      'pattern',
      'nullable',
      'required',
      'items',
      'properties',
      'additionalProperties',
      'allOf',
      'anyOf',
      'oneOf',
      'not',
      'description',
      '$ref',
      'uniqueItems',
      'x-kubernetes-preserve-unknown-fields',
      'x-kubernetes-embedded-resource',
      'x-kubernetes-int-or-string',
      'x-kubernetes-list-type',
      'x-kubernetes-list-map-keys',
      'x-kubernetes-map-type',
      'x-kubernetes-validations',
      'patternProperties',
      'definitions',
      'dependencies',
      'id',
      'example',
    ];
    const TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null', 'bogus'];

    function schema(next: () => number, depth: number): unknown {
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
      if (depth > 4 || next() < 0.1) return pick(ODD_VALUES);
      const s: Record<string, unknown> = {};
      const n = 1 + Math.floor(next() * 6);
      for (let i = 0; i < n; i++) {
        const key = pick(KEYS);
        switch (key) {
          case 'type':
            s.type = pick(TYPES);
            break;
          case 'properties':
          case 'patternProperties':
          case 'definitions':
            s[key] = Object.fromEntries(
              Array.from({ length: 1 + Math.floor(next() * 3) }, () => [
                pick(['a', 'metadata', 'kind', 'b.c', 'name']),
                schema(next, depth + 1),
              ]),
            );
            break;
          case 'items':
          case 'not':
          case 'additionalProperties':
            s[key] = next() < 0.2 ? pick([true, false, [schema(next, depth + 1)]]) : schema(next, depth + 1);
            break;
          case 'allOf':
          case 'anyOf':
          case 'oneOf':
            s[key] = Array.from({ length: Math.floor(next() * 3) }, () => schema(next, depth + 1));
            break;
          case 'x-kubernetes-list-type':
            s[key] = pick(['atomic', 'set', 'map', 'x', 1]);
            break;
          case 'x-kubernetes-validations':
            s[key] = [
              {
                rule: pick(['self.a == 1', 'self.a ==', '', 'oldSelf == self', '[1,2].all(x, x > 0)', 3]),
                message: pick([undefined, 'm', '\n']),
                fieldPath: pick([undefined, '.a', 'x']),
              },
            ];
            break;
          default:
            s[key] = pick(ODD_VALUES);
        }
      }
      return s;
    }

    it('answers a few hundred generated schemas with field errors, never a throw', () => {
      const validator = serverKindValidator(def);
      const next = seededRandom(20261127);
      let refused = 0;
      const runs = 400;
      for (let i = 0; i < runs; i++) {
        const body = crd('foos', 'example.com') as any;
        body.spec.versions[0].schema.openAPIV3Schema =
          next() < 0.5 ? { type: 'object', properties: { spec: schema(next, 0) } } : schema(next, 0);
        const o = body as KObject;
        validator.prune(o);
        def.defaults!(o);
        def.prepareForCreate!(o);
        const errs = validator.validate(o);
        expect(
          errs.every((e) => typeof e.field === 'string' && e.type !== 'InternalError'),
          JSON.stringify(errs),
        ).to.equal(true);
        if (errs.length > 0) refused++;
      }
      // Most random schemas are not structural; a run that refuses none would mean the rules never ran.
      expect(refused).to.be.greaterThan(runs / 2);
    });
  });
});
