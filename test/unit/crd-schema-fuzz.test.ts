// A seeded fuzz of the schema compiler, larger than crd-structural.test.ts's: a few thousand generated
// CustomResourceDefinition schemas (mostly structural, with every marker, odd patterns and formats, huge bounds, deep
// nesting, CEL rules good and bad; some corrupted on purpose) go through the definition's validation, and those it
// accepts through what serving a version compiles (the kind's schema validator and its x-kubernetes-validations
// rules), which then check a generated object. No stage may throw, every answer is OK or field errors, and no schema
// may hold the loop for long: nothing in a definition can crash or stall the gateway.
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import type { FieldError } from '../../api/meta/field-errors.js';
import type { KObject } from '../../api/meta/types.js';
import { customResourceDefinition as def } from '../../api/apiextensions/v1/custom-resource-definition.js';
import { servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import { customKindsOf } from '../../api/apiextensions/v1/custom-kinds.js';
import { compileSchemaRules } from '../../gateway/apiextensions/rule-evaluation.js';
import { serverKindValidator } from '../../gateway/admission/policy/expression-check.js';
import { crd } from '../helpers/crds.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** How many schemas the test generates; docs/custom-resources.md says this number. */
const FUZZ_SCHEMAS = 2000;
/** One schema's whole pass (validation, compilation, an object checked) may take no longer, even on a busy machine. */
const PER_SCHEMA_MS = 2_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

class Gen {
  constructor(readonly next: () => number) {}
  chance = (p: number): boolean => this.next() < p;
  int = (n: number): number => Math.floor(this.next() * n);
  pick = <T>(xs: readonly T[]): T => xs[this.int(xs.length)];
}

const PATTERNS = [
  '^[a-z]+$',
  '(a+)+$',
  '\\p{L}+',
  '[',
  '(?i)abc',
  '\\d{1,1000}',
  '^(?=x)',
  '(?<=a)b',
  '\\Z',
  '^\\w+@\\w+\\.com$',
  '',
  '.*',
  '[[:alpha:]]',
  '\\',
  'a{2,1}',
  '\\u{1F600}',
];
const FORMATS = [
  'date-time',
  'date',
  'byte',
  'uuid',
  'int-or-string',
  'cidr',
  'ipv4',
  'hostname',
  'email',
  'duration',
  'bogus',
  'int32',
  'int64',
  'double',
  'float',
  '',
];
const HUGE = [2 ** 53, 2 ** 63, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 0, -1, 1.5, 4294967296];
const ODD: Json[] = [null, 0, -1, 1.5, '', 'x', true, false, [], {}, ['a'], { a: 1 }, 2 ** 53, '\u0000'];
const RULES: Record<string, string[]> = {
  object: ['has(self.a)', 'self.size() <= 10', '!has(self.a) || self.a == self.a', 'self == oldSelf', 'self.b ==', '1'],
  array: [
    'self.size() < 100',
    'self.all(x, self.all(y, x == y || true))',
    'self.exists(x, x == self[0])',
    'self.map(x, x).size() >= 0',
    'oldSelf.size() <= self.size()',
  ],
  string: [
    'self.size() <= 64',
    "self.matches('^[a-z]*$')",
    "self.matches('(')",
    'self.startsWith(oldSelf)',
    'self + self != ""',
    'int(self) > 0',
  ],
  integer: ['self >= 0', 'self < 2 * self || self <= 0', 'self / 0 == 1', 'self == oldSelf', 'self.foo'],
  number: ['self >= 0.0', 'self * 2.0 > self', 'double(self) == self'],
  boolean: ['self || !self', 'self == oldSelf', 'self == 1'],
};

/** A typed (structural) node; `depth` bounds the nesting, `deep` forces a long chain of objects. */
function node(g: Gen, depth: number, maxDepth: number): Schema {
  const types = depth >= maxDepth ? ['string', 'integer', 'number', 'boolean'] : ['object', 'object', 'array'];
  const type = g.chance(0.1) ? 'int-or-string' : g.pick([...types, 'string', 'integer', 'boolean', 'number']);
  let s: Schema;
  switch (type) {
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true, ...(g.chance(0.3) ? { pattern: g.pick(PATTERNS) } : {}) };
    case 'object':
      s = objectNode(g, depth, maxDepth);
      break;
    case 'array':
      s = arrayNode(g, depth, maxDepth);
      break;
    case 'string':
      s = { type };
      if (g.chance(0.3)) s.format = g.pick(FORMATS);
      if (g.chance(0.3)) s.pattern = g.pick(PATTERNS);
      if (g.chance(0.3)) s.maxLength = g.pick(HUGE);
      if (g.chance(0.2)) s.minLength = g.pick(HUGE);
      if (g.chance(0.2)) s.enum = g.pick([['a', 'b'], [], ['a', 1], [null]]);
      if (g.chance(0.2)) s.default = g.pick(['a', '', 1, null, 'x'.repeat(70)]);
      break;
    default:
      s = { type };
      if (type !== 'boolean') {
        if (g.chance(0.4)) s.minimum = g.pick(HUGE);
        if (g.chance(0.4)) s.maximum = g.pick(HUGE);
        if (g.chance(0.2)) s.exclusiveMaximum = g.pick([true, false]);
        if (g.chance(0.2)) s.multipleOf = g.pick([0, 0.1, 3, -1, 1e-300]);
        if (g.chance(0.2)) s.format = g.pick(FORMATS);
      }
      if (g.chance(0.2)) s.default = g.pick([0, 1, -5, 1.5, true, 'x', 2 ** 53]);
  }
  if (g.chance(0.1)) s.nullable = g.pick([true, false]);
  if (g.chance(0.25)) {
    const rules = RULES[typeof s.type === 'string' ? s.type : 'object'] ?? RULES.object;
    s['x-kubernetes-validations'] = Array.from({ length: 1 + g.int(3) }, () => {
      const rule: Schema = { rule: g.pick(rules) };
      if (g.chance(0.3)) rule.message = g.pick(['m', 'two\nlines', '']);
      if (g.chance(0.3)) rule.messageExpression = g.pick(["'bad: ' + string(self)", '1', "'x'", '(']);
      if (g.chance(0.2)) rule.reason = g.pick(['FieldValueInvalid', 'FieldValueForbidden', 'Bogus']);
      if (g.chance(0.2)) rule.fieldPath = g.pick(['.a', '.b[0]', "['a']", 'x', '.a.b.c']);
      if (g.chance(0.1)) rule.optionalOldSelf = g.pick([true, false]);
      return rule;
    });
  }
  if (g.chance(0.05)) s.description = 'd'.repeat(g.pick([1, 10_000]));
  return s;
}

function objectNode(g: Gen, depth: number, maxDepth: number): Schema {
  const s: Schema = { type: 'object' };
  if (g.chance(0.2)) {
    s.additionalProperties = node(g, depth + 1, maxDepth);
    if (g.chance(0.3)) s.maxProperties = g.pick(HUGE);
  } else {
    const names = ['a', 'b', 'name', 'spec', 'x-y', 'with.dot', 'apiVersion', 'kind', 'metadata'];
    const properties: Schema = {};
    for (let i = 1 + g.int(4); i > 0; i--) properties[g.pick(names)] = node(g, depth + 1, maxDepth);
    s.properties = properties;
    if (g.chance(0.3)) s.required = Object.keys(properties).filter(() => g.chance(0.5));
  }
  if (g.chance(0.1)) s['x-kubernetes-map-type'] = g.pick(['atomic', 'granular', 'x']);
  if (g.chance(0.1)) s['x-kubernetes-preserve-unknown-fields'] = g.pick([true, false]);
  if (g.chance(0.05)) {
    s['x-kubernetes-embedded-resource'] = true;
    s['x-kubernetes-preserve-unknown-fields'] = true;
  }
  return s;
}

function arrayNode(g: Gen, depth: number, maxDepth: number): Schema {
  const items = node(g, depth + 1, maxDepth);
  const s: Schema = { type: 'array', items };
  if (g.chance(0.4)) s.maxItems = g.pick([...HUGE, 4]);
  if (g.chance(0.3)) {
    const listType = g.pick(['atomic', 'set', 'map', 'bogus']);
    s['x-kubernetes-list-type'] = listType;
    if (listType === 'map') {
      const props = items.properties as Schema | undefined;
      const keys = Object.keys(props ?? {}).slice(0, 1 + g.int(2));
      s['x-kubernetes-list-map-keys'] = g.chance(0.8) ? keys : ['missing'];
      if (g.chance(0.7)) items.required = keys;
    }
  }
  return s;
}

/** Breaks one thing of a structural schema, so that every refusal rule meets inputs too. */
function corrupt(g: Gen, s: Schema): void {
  const children = Object.values(s.properties ?? {}).filter((c): c is Schema => !!c && typeof c === 'object');
  if (children.length > 0 && g.chance(0.5)) return corrupt(g, g.pick(children));
  const key = g.pick(['type', '$ref', 'patternProperties', 'uniqueItems', 'items', 'default', 'not', 'allOf', 'id']);
  if (key === 'type') delete s.type;
  else if (key === 'not' || key === 'allOf')
    s[key] = key === 'not' ? { type: 'string', default: 'x' } : [{ description: 'd' }, g.pick(ODD)];
  else s[key] = g.pick(ODD);
}

/** A chain of `length` nested objects ending in a scalar, each level with a rule. */
function chain(length: number): Schema {
  let s: Schema = { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self.size() < 10' }] };
  for (let i = 0; i < length; i++)
    s = { type: 'object', properties: { a: s }, 'x-kubernetes-validations': [{ rule: '!has(self.a) || true' }] };
  return s;
}

/** A value for `s`, mostly of its shape, sometimes of none. */
function instance(g: Gen, s: Json, depth = 0): Json {
  if (!s || typeof s !== 'object' || Array.isArray(s) || depth > 70 || g.chance(0.08)) return g.pick(ODD);
  if (s['x-kubernetes-int-or-string']) return g.chance(0.5) ? g.int(100) : 'a'.repeat(g.int(16));
  switch (s.type) {
    case 'object': {
      const out: { [key: string]: Json } = {};
      const props =
        s.properties && typeof s.properties === 'object' ? (s.properties as Schema) : { k: s.additionalProperties };
      for (const [name, child] of Object.entries(props)) if (g.chance(0.8)) out[name] = instance(g, child, depth + 1);
      if (g.chance(0.1)) out.unknownField = 'x';
      return out;
    }
    case 'array':
      return Array.from({ length: g.int(4) }, () => instance(g, s.items, depth + 1));
    case 'string':
      return g.pick(['', 'abc', 'a'.repeat(g.int(16)) + '!', '2026-11-27T10:00:00Z', '10.0.0.0/8', 'é']);
    case 'integer':
      return g.pick([0, 1, -7, 2 ** 53, 42]);
    case 'number':
      return g.pick([0, 0.5, -1.25, 1e300]);
    case 'boolean':
      return g.chance(0.5);
    default:
      return g.pick(ODD);
  }
}

const isFieldError = (e: FieldError): boolean => typeof e.field === 'string' && e.type !== 'InternalError';

describe('CustomResourceDefinition schema compiler fuzz', function () {
  this.timeout(60_000);

  it(`validates and compiles ${FUZZ_SCHEMAS} generated schemas, answering OK or field errors, each quickly`, function () {
    const g = new Gen(seededRandom(20261127));
    const definitionValidator = serverKindValidator(def);
    let refused = 0;
    let served = 0;
    let objectsRefused = 0;
    let slowest = 0;
    for (let i = 0; i < FUZZ_SCHEMAS; i++) {
      const started = performance.now();
      const spec = g.chance(0.02) ? chain(20 + g.int(40)) : node(g, 0, 2 + g.int(5));
      if (g.chance(0.2)) corrupt(g, spec);
      const schema: Schema = g.chance(0.9) ? { type: 'object', properties: { spec } } : spec;
      const body = crd('fuzzes', 'fuzz.example.com') as KObject;
      (body.spec as any).versions[0].schema.openAPIV3Schema = schema;
      const where = `schema ${i}: ${JSON.stringify(schema).slice(0, 2000)}`;
      try {
        definitionValidator.prune(body);
        def.defaults!(body);
        def.prepareForCreate!(body);
        const errs = definitionValidator.validate(body);
        expect(errs.every(isFieldError), `${where}\n${JSON.stringify(errs)}`).to.equal(true);
        if (errs.length > 0) {
          refused++;
        } else {
          // What serving the version compiles: the kinds, the schema validator of each, its CEL rules.
          const definition = servedDefinitionOf(body);
          for (const kind of customKindsOf(definition)) {
            const rules = compileSchemaRules(definition.versions[0].schema);
            const validator = serverKindValidator(rules ? { ...kind, validate: (o) => rules.validate(o) } : kind);
            const object = {
              apiVersion: 'fuzz.example.com/v1alpha1',
              kind: 'Fuzz',
              metadata: { name: 'f', namespace: 'default' },
              spec: instance(g, schema.properties ? (schema.properties as Schema).spec : schema),
            } as KObject;
            validator.prune(object);
            kind.defaults?.(object);
            const objectErrs = [
              ...validator.validate(object),
              ...(rules ? rules.validate(object, structuredClone(object)) : []),
            ];
            expect(objectErrs.every(isFieldError), `${where}\n${JSON.stringify(objectErrs)}`).to.equal(true);
            if (objectErrs.length > 0) objectsRefused++;
          }
          served++;
        }
      } catch (e) {
        expect.fail(`${where}\nthrew ${(e as Error).stack ?? String(e)}`);
      }
      const ms = performance.now() - started;
      slowest = Math.max(slowest, ms);
      expect(ms, `${where}\ntook ${ms.toFixed(0)} ms`).to.be.below(PER_SCHEMA_MS);
    }
    // Both paths must have run many times: a generator that only produced refusals (or only passes) tests little.
    expect(refused, 'definitions refused').to.be.greaterThan(FUZZ_SCHEMAS / 10);
    expect(served, 'definitions compiled for serving').to.be.greaterThan(FUZZ_SCHEMAS / 10);
    expect(objectsRefused, 'objects refused').to.be.greaterThan(0);
    this.test!.title += ` (${refused} refused, ${served} compiled, slowest ${slowest.toFixed(0)} ms)`;
  });
});
