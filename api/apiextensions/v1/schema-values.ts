// Checks a JSON value against a JSONSchemaProps: what a schema's `default` must satisfy when the definition is
// written (upstream validates each default against its own schema, and requires it to survive pruning). The same
// checks will validate custom objects once they are served; they never throw, whatever the schema holds.
import { isObject } from '../../meta/types.js';
import { re2Pattern, type PatternMatcher } from '../../validation/re2-pattern.js';
import { additionalOf, itemsOf, propertiesOf, schemaAt, type JSONSchemaProps } from './schema-props.js';

export interface ValueProblem {
  /** JSON path inside the value (`.spec.replicas`, `[2]`), empty for the value itself. */
  at: string;
  detail: string;
}

const typeName = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number' && Number.isInteger(v)
        ? 'integer'
        : typeof v;

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return true;
  }
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** A pattern as upstream compiles it (RE2); undefined when it does not compile (refused with the definition). */
function compilePattern(pattern: string): PatternMatcher | undefined {
  try {
    return re2Pattern(pattern);
  } catch {
    return undefined;
  }
}

function checkBounds(v: unknown, s: JSONSchemaProps, at: string, out: ValueProblem[]): void {
  const bad = (detail: string) => out.push({ at, detail });
  if (typeof v === 'number') {
    if (typeof s.maximum === 'number' && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum))
      bad(`should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}`);
    if (typeof s.minimum === 'number' && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum))
      bad(`should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}`);
    if (typeof s.multipleOf === 'number' && s.multipleOf > 0 && !Number.isInteger(v / s.multipleOf))
      bad(`should be a multiple of ${s.multipleOf}`);
  }
  if (typeof v === 'string') {
    const length = [...v].length;
    if (typeof s.maxLength === 'number' && length > s.maxLength) bad(`should be at most ${s.maxLength} chars long`);
    if (typeof s.minLength === 'number' && length < s.minLength) bad(`should be at least ${s.minLength} chars long`);
    if (typeof s.pattern === 'string') {
      const re = compilePattern(s.pattern);
      if (re && !re.test(v)) bad(`should match '${s.pattern}'`);
    }
  }
  if (Array.isArray(v)) {
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) bad(`should have at most ${s.maxItems} items`);
    if (typeof s.minItems === 'number' && v.length < s.minItems) bad(`should have at least ${s.minItems} items`);
  }
  if (isObject(v)) {
    const count = Object.keys(v).length;
    if (typeof s.maxProperties === 'number' && count > s.maxProperties)
      bad(`should have at most ${s.maxProperties} properties`);
    if (typeof s.minProperties === 'number' && count < s.minProperties)
      bad(`should have at least ${s.minProperties} properties`);
    for (const name of Array.isArray(s.required) ? s.required : [])
      if (typeof name === 'string' && !Object.hasOwn(v, name))
        out.push({ at: `${at}.${name}`, detail: 'Required value' });
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => sameJson(e, v)))
    bad(`should be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}`);
}

function checkQuantifiers(v: unknown, s: JSONSchemaProps, at: string, out: ValueProblem[], depth: number): void {
  const passes = (sub: unknown) => checkNode(v, schemaAt(sub) ?? {}, at, [], depth + 1).length === 0;
  if (Array.isArray(s.allOf)) for (const sub of s.allOf) checkNode(v, schemaAt(sub) ?? {}, at, out, depth + 1);
  if (Array.isArray(s.anyOf) && s.anyOf.length > 0 && !s.anyOf.some(passes))
    out.push({ at, detail: 'should match at least one schema in anyOf' });
  if (Array.isArray(s.oneOf) && s.oneOf.length > 0 && s.oneOf.filter(passes).length !== 1)
    out.push({ at, detail: 'should match exactly one schema in oneOf' });
  if (schemaAt(s.not) && passes(s.not)) out.push({ at, detail: 'must not validate the schema (not)' });
}

/** Deep enough for any real schema; a deeper value is refused rather than risking the stack. */
const MAX_DEPTH = 256;

function checkNode(v: unknown, s: JSONSchemaProps, at: string, out: ValueProblem[], depth: number): ValueProblem[] {
  if (depth > MAX_DEPTH) {
    out.push({ at, detail: 'is nested too deeply' });
    return out;
  }
  if (v === null) {
    if (!s.nullable && (s.type || s['x-kubernetes-int-or-string'])) out.push({ at, detail: 'must not be null' });
    return out;
  }
  if (s['x-kubernetes-int-or-string']) {
    if (typeof v !== 'string' && !hasType(v, 'integer'))
      out.push({ at, detail: `must be of type integer or string, got ${typeName(v)}` });
  } else if (typeof s.type === 'string' && s.type !== '' && !hasType(v, s.type)) {
    out.push({ at, detail: `must be of type ${s.type}, got ${typeName(v)}` });
    return out;
  }
  checkBounds(v, s, at, out);
  checkQuantifiers(v, s, at, out, depth);
  if (Array.isArray(v)) {
    const items = itemsOf(s);
    if (items) v.forEach((item, i) => checkNode(item, items, `${at}[${i}]`, out, depth + 1));
  } else if (isObject(v)) {
    const props = new Map(propertiesOf(s));
    const additional = additionalOf(s);
    for (const [key, child] of Object.entries(v)) {
      const sub = props.get(key) ?? additional;
      if (sub) checkNode(child, sub, `${at}.${key}`, out, depth + 1);
    }
  }
  return out;
}

/** Every way `value` fails `schema` (types, bounds, enum, required, quantifiers). */
export function checkValue(value: unknown, schema: JSONSchemaProps): ValueProblem[] {
  return checkNode(value, schema, '', [], 0);
}

/** The fields of `value` that pruning against `schema` would drop (`.spec.extra`). */
export function unknownFields(value: unknown, schema: JSONSchemaProps, at = '', embedded = false): string[] {
  if (Array.isArray(value)) {
    const items = itemsOf(schema);
    return items
      ? value.flatMap((item, i) => unknownFields(item, items, `${at}[${i}]`, items['x-kubernetes-embedded-resource']))
      : [];
  }
  if (!isObject(value)) return [];
  const props = new Map(propertiesOf(schema));
  const additional = additionalOf(schema);
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  const isEmbedded = embedded || schema['x-kubernetes-embedded-resource'] === true;
  return Object.entries(value).flatMap(([key, child]) => {
    const sub = props.get(key) ?? additional;
    if (sub) return unknownFields(child, sub, `${at}.${key}`, sub['x-kubernetes-embedded-resource'] === true);
    if (preserve || (isEmbedded && (key === 'apiVersion' || key === 'kind' || key === 'metadata'))) return [];
    return [`${at}.${key}`];
  });
}
