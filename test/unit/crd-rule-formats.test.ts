// Formatted strings as custom kinds' rules see them, as upstream types them: date and date-time fields are
// timestamps, duration fields durations, byte fields bytes, at compile time (a rule treating them as strings is
// refused) and at run time (wherever they sit under the rule's node), while the stored values stay strings.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { validationRuleErrors } from '../../gateway/apiextensions/rule-compilation.js';
import { compileSchemaRules } from '../../gateway/apiextensions/rule-evaluation.js';
import type { JSONSchemaProps } from '../../api/apiextensions/v1/schema-props.js';
import type { JSONSchema } from '../../api/schema.js';
import { celTypesOfSchema } from '../../policies/cel/index.js';
import { crd } from '../helpers/crds.js';

const PROPERTIES = {
  start: { type: 'string', format: 'date-time' },
  end: { type: 'string', format: 'date-time' },
  day: { type: 'string', format: 'date' },
  timeout: { type: 'string', format: 'duration' },
  key: { type: 'string', format: 'byte' },
  windows: { type: 'array', items: { type: 'string', format: 'duration' } },
  label: { type: 'string' },
};

function schemaWith(rules: unknown[]): JSONSchemaProps {
  return {
    type: 'object',
    properties: { spec: { type: 'object', properties: PROPERTIES, 'x-kubernetes-validations': rules } },
  } as JSONSchemaProps;
}

function definitionWith(rules: unknown[]): KObject {
  const body = crd('things', 'example.com') as any;
  body.spec.versions[0].schema.openAPIV3Schema = schemaWith(rules);
  return body as KObject;
}

const objectWith = (spec: Record<string, unknown>) => ({ metadata: { name: 'a' }, spec }) as unknown as KObject;

/** The messages of the rules that fail for `spec`. */
function failures(rules: { rule: string; message: string }[], spec: Record<string, unknown>): string[] {
  const compiled = compileSchemaRules(schemaWith(rules))!;
  return compiled.validate(objectWith(spec)).map((e) => e.detail ?? '');
}

const SPEC = {
  start: '2026-01-01T10:00:00Z',
  end: '2026-01-01T12:30:00+01:00',
  day: '2026-03-04',
  timeout: '1m30s',
  key: Buffer.from('secret!').toString('base64'),
  windows: ['10s', '2h'],
  label: 'x',
};

describe('custom kinds: formatted strings in rules', () => {
  it('compiles rules that use dates, durations and bytes as such, and refuses them used as strings', () => {
    const typed = [
      { rule: 'self.start < self.end', message: 'ordered' },
      { rule: 'self.end - self.start > self.timeout', message: 'long enough' },
      { rule: 'self.day.getDayOfMonth() == 3', message: 'day' },
      { rule: 'self.key.size() == 7', message: 'size' },
      { rule: 'self.windows.all(w, w < duration("3h"))', message: 'windows' },
    ];
    expect(validationRuleErrors(definitionWith(typed)).map(fieldErrorMessage)).to.deep.equal([]);
    const asString = validationRuleErrors(definitionWith([{ rule: 'self.start.startsWith("2026")' }]));
    expect(asString.map(fieldErrorMessage)).to.have.length(1);
    expect(asString[0].field).to.equal(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(asString[0].detail).to.include(
      "found no matching overload for 'google.protobuf.Timestamp.startsWith(string)'",
    );
  });

  it('compares two date-time fields as times, across time zones', () => {
    const ordered = [{ rule: 'self.start < self.end', message: 'start before end' }];
    // 12:30+01:00 is 11:30Z, after 10:00Z; 10:30+01:00 is 09:30Z, before it, though its text sorts after.
    expect(failures(ordered, SPEC)).to.deep.equal([]);
    expect(failures(ordered, { ...SPEC, end: '2026-01-01T10:30:00+01:00' })).to.deep.equal(['start before end']);
  });

  it('does arithmetic on durations and timestamps, and reads dates as midnight UTC', () => {
    const rules = [
      { rule: 'self.end - self.start == duration("90m")', message: 'span' },
      { rule: 'self.start + self.timeout == timestamp("2026-01-01T10:01:30Z")', message: 'deadline' },
      { rule: 'self.timeout.getSeconds() == 90', message: 'seconds' },
      { rule: 'self.day == timestamp("2026-03-04T00:00:00Z")', message: 'day' },
      { rule: 'self.windows[1] - self.windows[0] > duration("1h")', message: 'windows' },
    ];
    expect(failures(rules, SPEC)).to.deep.equal([]);
    expect(failures(rules, { ...SPEC, timeout: '2m', windows: ['2h', '2h'] })).to.deep.equal([
      'deadline',
      'seconds',
      'windows',
    ]);
  });

  it('reads byte fields as the bytes their base64 holds', () => {
    const rules = [
      { rule: 'self.key.size() == 7', message: 'seven bytes' },
      { rule: 'self.key == b"secret!"', message: 'the secret' },
    ];
    expect(failures(rules, SPEC)).to.deep.equal([]);
    expect(failures(rules, { ...SPEC, key: Buffer.from('other').toString('base64') })).to.deep.equal([
      'seven bytes',
      'the secret',
    ]);
  });

  it('types rules on a formatted field itself, and leaves the object it read unchanged', () => {
    const schema = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            timeout: {
              type: 'string',
              format: 'duration',
              'x-kubernetes-validations': [{ rule: 'self <= duration("1m")', message: 'at most a minute' }],
            },
          },
        },
      },
    } as JSONSchemaProps;
    const rules = compileSchemaRules(schema)!;
    const obj = objectWith({ timeout: '90s' });
    expect(rules.validate(obj).map(fieldErrorMessage)).to.deep.equal([
      'spec.timeout: Invalid value: "string": at most a minute',
    ]);
    expect(obj.spec).to.deep.equal({ timeout: '90s' });
    expect(rules.validate(objectWith({ timeout: '30s' }))).to.deep.equal([]);
  });

  it('keeps formatted strings strings for the callers that do not ask for typed formats', () => {
    const schema: JSONSchema = { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } };
    expect(celTypesOfSchema(schema, 'Thing').objects[0].fields.at).to.equal('string');
    expect(celTypesOfSchema(schema, 'Thing', { typedFormats: true }).objects[0].fields.at).to.equal(
      'google.protobuf.Timestamp',
    );
  });
});
