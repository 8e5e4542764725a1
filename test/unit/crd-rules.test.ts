// x-kubernetes-validations beyond compiling: `self` typed by the schema node, the estimated cost refused over
// upstream's per-rule and per-schema budgets, the runtime per-call limit and per-object budget, optionalOldSelf on
// create, and ratcheting of unchanged invalid values (CEL rules, whose failures become warnings, and the schema's own
// value validations).
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { servedDefinitionOf } from '../../api/apiextensions/v1/crd-types.js';
import { customKindsOf } from '../../api/apiextensions/v1/custom-kinds.js';
import type { JSONSchemaProps } from '../../api/apiextensions/v1/schema-props.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { validationRuleErrors } from '../../gateway/apiextensions/rule-compilation.js';
import { compileSchemaRules } from '../../gateway/apiextensions/rule-evaluation.js';
import { crd } from '../helpers/crds.js';

const HINT =
  '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

/** A definition whose storage version's `spec` has these properties. */
function definition(properties: Record<string, unknown>, specRules: unknown[] = []): KObject {
  const body = crd('things', 'example.com') as any;
  body.spec.versions[0].schema.openAPIV3Schema = {
    type: 'object',
    properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': specRules } },
  };
  return body as KObject;
}

const ruleErrors = (o: KObject) => validationRuleErrors(o).map(fieldErrorMessage);
const AT = 'spec.versions[0].schema.openAPIV3Schema.properties[spec]';

const tagsRule = { rule: 'self.all(t, t.matches("^[a-z]+$"))' };

describe('CustomResourceDefinition rules: types and estimated cost', () => {
  it('refuses a rule over the per-expression budget with the factor and the hint', () => {
    const got = ruleErrors(
      definition({
        tags: { type: 'array', maxItems: 100, items: { type: 'string' }, 'x-kubernetes-validations': [tagsRule] },
      }),
    );
    expect(got).to.deep.equal([
      `${AT}.properties[tags].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by ` +
        `factor of 6.3x ${HINT}`,
    ]);
  });

  it('accepts the same rule once maxLength bounds the strings it reads', () => {
    const got = ruleErrors(
      definition({
        tags: {
          type: 'array',
          maxItems: 100,
          items: { type: 'string', maxLength: 64 },
          'x-kubernetes-validations': [tagsRule],
        },
      }),
    );
    expect(got).to.deep.equal([]);
  });

  it('charges a rule on list items once per possible item', () => {
    const items = (maxItems?: number) =>
      definition({
        names: {
          type: 'array',
          ...(maxItems ? { maxItems } : {}),
          items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.contains("x")' }] },
        },
      });
    expect(ruleErrors(items())[0]).to.match(/items\.x-kubernetes-validations\[0\]\.rule: Forbidden: .* more than 100x/);
    expect(ruleErrors(items(20))).to.deep.equal([]);
  });

  it('refuses a schema whose rules together exceed the per-definition budget, naming the costliest', () => {
    // Each rule is within the per-expression budget (about 9.6M); twelve of them are not within 100M.
    const rules = Array.from({ length: 12 }, (_, i) => ({ rule: `self.all(t, t.matches("^[a-z]{${i}}$"))` }));
    const got = ruleErrors(
      definition({
        tags: {
          type: 'array',
          maxItems: 100,
          items: { type: 'string', maxLength: 80_000 },
          'x-kubernetes-validations': rules,
        },
      }),
    );
    expect(got.filter((m) => m.includes('estimated rule cost exceeds'))).to.deep.equal([]);
    const contributed = got.filter((m) => m.includes('contributed to estimated rule cost total'));
    expect(contributed).to.have.length(4);
    expect(got.at(-1)).to.match(
      /^spec\.versions\[0\]\.schema\.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.\d+x \(try simplifying/,
    );
  });

  it('type checks self against the schema: an unknown field is refused with its position', () => {
    const got = ruleErrors(definition({ min: { type: 'integer' } }, [{ rule: 'self.min > 0 && self.mx > 0' }]));
    expect(got).to.have.length(1);
    expect(got[0]).to.include(`${AT}.x-kubernetes-validations[0].rule: Invalid value: "self.min > 0 && self.mx > 0"`);
    expect(got[0]).to.include("compilation failed: ERROR: <input>:1:21: undefined field 'mx'");
  });

  it('keeps open what the schema leaves open, and types the root with apiVersion, kind and metadata', () => {
    const o = definition(
      {
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        port: { 'x-kubernetes-int-or-string': true },
        note: { type: 'string', nullable: true },
        ratio: { type: 'number' },
      },
      [
        { rule: 'self.free.anything == 1' },
        { rule: 'self.port == 80 || self.port == "http"' },
        { rule: 'self.note == null || self.note != ""' },
        { rule: 'self.ratio > 0.5' },
      ],
    );
    (o.spec as any).versions[0].schema.openAPIV3Schema['x-kubernetes-validations'] = [
      { rule: 'self.metadata.name.startsWith("a") && self.kind == "Thing"' },
    ];
    expect(ruleErrors(o)).to.deep.equal([]);
  });

  it('refuses oldSelf under a list whose items cannot be paired with their old values', () => {
    const got = ruleErrors(
      definition({
        tags: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } },
        ports: portsMapList({ type: 'integer' }, [{ rule: 'self.port == oldSelf.port' }]),
      }),
    );
    expect(got).to.deep.equal([
      `${AT}.properties[tags].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf ` +
        `cannot be used on the uncorrelatable portion of the schema within ${AT}.properties[tags]`,
    ]);
  });

  it('types oldSelf as an optional with optionalOldSelf', () => {
    const o = definition({
      n: {
        type: 'integer',
        'x-kubernetes-validations': [
          { rule: '!oldSelf.hasValue() || self >= oldSelf.value()', optionalOldSelf: true },
          { rule: 'self >= oldSelf.orValue(0)', optionalOldSelf: true },
        ],
      },
    });
    expect(ruleErrors(o)).to.deep.equal([]);
  });
});

describe('custom object rules at run time', () => {
  const nested = (i: number) => ({ rule: `self.all(x, self.all(y, self.all(z, x + y + z > ${-i})))` });
  const objectWith = (spec: Record<string, unknown>) => ({ metadata: { name: 'a' }, spec }) as unknown as KObject;
  const numbers = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

  it('stops a rule at the per-call limit, and no further rule runs', () => {
    const schema = definitionSchema({ xs: listOf(100, [nested(0), { rule: 'false', message: 'never reached' }]) });
    const errs = compileSchemaRules(schema)!.validate(objectWith({ xs: numbers(100) }));
    expect(errs.map(fieldErrorMessage)).to.deep.equal([
      `spec.xs: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation ` +
        `rules will be run due to call cost exceeds limit for rule: ${nested(0).rule}`,
    ]);
  });

  it('stops once the object has spent its budget, with upstream message at the node', () => {
    const schema = definitionSchema({ xs: listOf(20, [nested(0), nested(1), nested(2)]), after: withRule('false') });
    const rules = compileSchemaRules(schema, 100_000)!;
    const errs = rules.validate(objectWith({ xs: numbers(20), after: 'x' }));
    expect(errs.map(fieldErrorMessage)).to.deep.equal([
      'spec.xs: Invalid value: "array": validation failed due to running out of cost budget, no further validation ' +
        'rules will be run',
    ]);
    // Within the budget, every rule runs.
    expect(compileSchemaRules(schema)!.validate(objectWith({ xs: numbers(20), after: 'x' }))).to.have.length(1);
  });

  it('runs an optionalOldSelf rule on create with an empty oldSelf, and a plain transition rule only on update', () => {
    const schema = definitionSchema({
      n: {
        type: 'integer',
        'x-kubernetes-validations': [
          { rule: 'oldSelf.hasValue() || self == 1', message: 'starts at 1', optionalOldSelf: true },
          { rule: 'self >= oldSelf.orValue(0)', message: 'never decreases', optionalOldSelf: true },
          { rule: 'self - oldSelf <= 1', message: 'one step at a time' },
        ],
      },
    });
    const rules = compileSchemaRules(schema)!;
    const messages = (obj: KObject, old?: KObject) => rules.validate(obj, old).map((e) => e.detail);
    expect(messages(objectWith({ n: 5 }))).to.deep.equal(['starts at 1']);
    expect(messages(objectWith({ n: 1 }))).to.deep.equal([]);
    expect(messages(objectWith({ n: 0 }), objectWith({ n: 1 }))).to.deep.equal(['never decreases']);
    expect(messages(objectWith({ n: 3 }), objectWith({ n: 1 }))).to.deep.equal(['one step at a time']);
  });

  it('ratchets a failing rule on an unchanged value, pairing map-list items by key, never a transition rule', () => {
    const schema = definitionSchema({
      name: withRule('self.size() <= 3'),
      ports: portsMapList({ type: 'integer' }, [{ rule: 'self.port < 1024', message: 'privileged ports only' }]),
      plain: { type: 'array', items: withRule('self.size() <= 3') },
      frozen: withRule('self == oldSelf && self.size() <= 3'),
    });
    const rules = compileSchemaRules(schema)!;
    const withPorts = (ports: [string, number][], name = 'toolong') =>
      objectWith({ name, ports: ports.map(([n, port]) => ({ name: n, port })), plain: ['long'], frozen: 'long' });
    const old = withPorts([
      ['a', 8080],
      ['b', 80],
    ]);
    const updated = withPorts([
      ['b', 9090],
      ['a', 8080],
    ]);
    const warnings: string[] = [];
    expect(rules.validate(updated, old, warnings).map((e) => e.field)).to.deep.equal([
      'spec.ports[0]',
      'spec.plain[0]',
      'spec.frozen',
    ]);
    // What ratcheting let through is still said, as upstream's warnings: the field error as it would have read.
    expect(warnings).to.deep.equal([
      'spec.name: Invalid value: "string": failed rule: self.size() <= 3',
      'spec.ports[1]: Invalid value: "object": privileged ports only',
    ]);
    const renamed = withPorts(
      [
        ['b', 9090],
        ['a', 8080],
      ],
      'stilltoolong',
    );
    expect(rules.validate(renamed, old)).to.have.length(4);
  });
});

describe('custom object schema ratcheting', () => {
  const body = definition({
    color: { type: 'string', enum: ['red', 'blue'] },
    size: { type: 'integer', maximum: 10 },
    ports: portsMapList({ type: 'integer', maximum: 1000 }),
    tags: { type: 'array', items: { type: 'string', pattern: '^[a-z]+$' } },
  });
  body.status = { acceptedNames: { plural: 'things', kind: 'Thing' } };
  const [kind] = customKindsOf(servedDefinitionOf(body));
  const validator = createKindValidator(kind);
  const thing = (spec: Record<string, unknown>) =>
    ({ apiVersion: 'example.com/v1alpha1', kind: 'Thing', metadata: { name: 'a', namespace: 'ns' }, spec }) as KObject;
  const stored = thing({ color: 'green', size: 11, ports: [{ name: 'http', port: 8080 }], tags: ['Bad'] });

  it('accepts an update that leaves invalid values as they were, wherever they can be paired', () => {
    const next = thing({
      color: 'green',
      size: 11,
      ports: [
        { name: 'extra', port: 1 },
        { name: 'http', port: 8080 },
      ],
      tags: ['Bad'],
    });
    expect(validator.validateUpdate(next, stored).map(fieldErrorMessage)).to.deep.equal([]);
  });

  it('refuses what changed, and what sits in a list whose items cannot be paired', () => {
    const next = thing({ color: 'green', size: 12, ports: [{ name: 'http', port: 8081 }], tags: ['Bad', 'ok'] });
    const fields = validator.validateUpdate(next, stored).map((e) => e.field);
    expect(fields).to.have.members(['spec.size', 'spec.ports[0].port', 'spec.tags[0]']);
    expect(validator.validate(stored).map((e) => e.field)).to.have.members([
      'spec.color',
      'spec.size',
      'spec.ports[0].port',
      'spec.tags[0]',
    ]);
  });
});

/** A list of {name, port} items keyed by name, the port with this schema, each item with these rules. */
function portsMapList(port: Record<string, unknown>, rules: unknown[] = []): Record<string, unknown> {
  return {
    type: 'array',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: {
      type: 'object',
      required: ['name'],
      properties: { name: { type: 'string' }, port },
      'x-kubernetes-validations': rules,
    },
  };
}

function listOf(maxItems: number, rules: unknown[]): Record<string, unknown> {
  return { type: 'array', maxItems, items: { type: 'integer' }, 'x-kubernetes-validations': rules };
}

function withRule(rule: string): Record<string, unknown> {
  return { type: 'string', 'x-kubernetes-validations': [{ rule }] };
}

function definitionSchema(properties: Record<string, unknown>): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties: properties as JSONSchemaProps['properties'] } },
  };
}
