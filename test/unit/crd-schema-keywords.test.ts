// Keywords of a definition's schema as values: of the wrong JSON type they are refused when the definition is
// written (upstream refuses them while decoding), and the draft-4 forms ajv does not take (boolean exclusive bounds,
// empty enum, `id`, negative maximum counts, null keywords) compile into a validator that judges as upstream's does.
import { expect } from 'chai';
import { FieldPath, fieldErrorMessage } from '../../api/meta/field-errors.js';
import { validateVersionSchema } from '../../api/apiextensions/v1/version-validation.js';
import { createSchemaValidator } from '../../api/validation/schema-validator.js';
import type { JSONSchema } from '../../api/schema.js';

const check = (schema: unknown): string[] => validateVersionSchema(schema, FieldPath.root('s')).map(fieldErrorMessage);
const root = (spec: Record<string, unknown>): JSONSchema => ({
  type: 'object',
  properties: { spec: spec },
});

describe('CustomResourceDefinition schema keywords', () => {
  it('refuses keywords of the wrong JSON type, naming each', () => {
    const errs = check(
      root({
        type: 'object',
        properties: {
          a: { type: 'string', maxLength: '5' },
          b: { type: 'array', items: { type: 'string' }, maxItems: 1.5, uniqueItems: 'no' },
          c: { type: 'integer', maximum: '3', exclusiveMaximum: 1 },
          d: { type: 'string', pattern: 7 },
        },
        required: [1],
      }),
    );
    expect(errs).to.include.members([
      's.properties[spec].properties[a].maxLength: Invalid value: "5": must be an integer',
      's.properties[spec].properties[b].maxItems: Invalid value: 1.5: must be an integer',
      's.properties[spec].properties[b].uniqueItems: Invalid value: "no": must be a boolean',
      's.properties[spec].properties[c].maximum: Invalid value: "3": must be a number',
      's.properties[spec].properties[c].exclusiveMaximum: Invalid value: 1: must be a boolean',
      's.properties[spec].properties[d].pattern: Invalid value: 7: must be a string',
      's.properties[spec].required: Invalid value: [1]: must be a list of strings',
    ]);
  });

  it('refuses a multipleOf that no number could meet', () => {
    expect(check(root({ type: 'number', multipleOf: 0 }))).to.deep.equal([
      's.properties[spec].multipleOf: Invalid value: 0: must be greater than zero',
    ]);
  });

  it('takes null keywords as absent', () => {
    expect(check(root({ type: 'string', maxLength: null, pattern: null }))).to.deep.equal([]);
    expect(createSchemaValidator(root({ type: 'string', maxLength: null })).validate({ spec: 'x' })).to.deep.equal([]);
  });

  describe('compiles the draft-4 forms', () => {
    const messages = (schema: unknown, value: unknown) =>
      createSchemaValidator(root(schema as Record<string, unknown>))
        .validate({ spec: value })
        .map(fieldErrorMessage);

    it('boolean exclusiveMaximum and exclusiveMinimum beside their bounds', () => {
      const schema = { type: 'integer', maximum: 10, exclusiveMaximum: true, minimum: 0, exclusiveMinimum: false };
      expect(check(root(schema))).to.deep.equal([]);
      expect(messages(schema, 9)).to.deep.equal([]);
      expect(messages(schema, 0)).to.deep.equal([]);
      expect(messages(schema, -1)).to.deep.equal([
        'spec: Invalid value: -1: spec in body should be greater than or equal to 0',
      ]);
      expect(messages(schema, 10)).to.deep.equal(['spec: Invalid value: 10: spec in body should be less than 10']);
      expect(messages({ type: 'integer', minimum: 0, exclusiveMinimum: true }, 0)).to.deep.equal([
        'spec: Invalid value: 0: spec in body should be greater than 0',
      ]);
    });

    it('an empty enum, an empty items list and an id, which restrict nothing', () => {
      expect(messages({ type: 'string', enum: [], id: '' }, 'anything')).to.deep.equal([]);
      expect(messages({ type: 'array', items: [] }, [1, 'a'])).to.deep.equal([]);
    });

    it('a negative maxLength, which nothing of the type meets, and a negative minLength, which all do', () => {
      expect(messages({ type: 'string', maxLength: -1 }, '')).to.have.length(1);
      expect(messages({ type: 'string', maxLength: -1 }, 'abc')).to.have.length(1);
      expect(messages({ type: 'string', minLength: -1 }, '')).to.deep.equal([]);
      expect(messages({ type: 'array', items: { type: 'string' }, maxItems: -3 }, [])).to.have.length(1);
    });
  });
});
