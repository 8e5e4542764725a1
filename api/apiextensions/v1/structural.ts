// Structural schemas (upstream's pkg/apiserver/schema: ValidateStructural, and ValidateDefaults): every field has a
// type outside the logical junctors (allOf, anyOf, oneOf, not), which may only restrict values, never declare types,
// defaults or markers of their own; metadata at the root restricts nothing but name and generateName; and every
// default is valid against its schema and survives pruning. A structural schema is what pruning, defaulting and
// server-side apply of custom objects can rely on.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import { asArr, asObj } from '../../common/validation-helpers.js';
import {
  additionalOf,
  itemsOf,
  MAX_SCHEMA_DEPTH,
  propertiesOf,
  schemaAt,
  type JSONSchemaProps,
} from './schema-props.js';
import { re2PatternError } from '../../validation/re2-pattern.js';
import { checkValue, unknownFields } from './schema-values.js';

type Level = 'root' | 'item' | 'field';

const EMPTY_TYPE_DETAIL: Record<Level, string> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

const isIntOrStringPair = (list: unknown): boolean => {
  const l = asArr(list);
  if (l.length !== 2) return false;
  const [a, b] = l.map((x) => asObj(x) ?? {});
  return (
    Object.keys(a).join() === 'type' && a.type === 'integer' && Object.keys(b).join() === 'type' && b.type === 'string'
  );
};

/** Keywords that declare structure or markers: forbidden inside a junctor, where they would bypass the real schema. */
const NESTED_FORBIDDEN: [keyof JSONSchemaProps, string][] = [
  ['type', 'must be empty to be structural'],
  ['additionalProperties', 'must be undefined to be structural'],
  ['default', 'must be undefined to be structural'],
  ['title', 'must be empty to be structural'],
  ['description', 'must be empty to be structural'],
  ['nullable', 'must be false to be structural'],
  ['externalDocs', 'must be undefined to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'must be empty to be structural'],
];

const isSet = (v: unknown): boolean =>
  v !== undefined && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);

function nestedValueValidation(raw: unknown, at: FieldPath, skipAnyOf: boolean, depth: number): FieldError[] {
  const v = schemaAt(raw);
  if (!v || depth > MAX_SCHEMA_DEPTH) return [];
  const errs = junctors(v, at, skipAnyOf, false, depth);
  errs.push(...nestedValueValidation(v.items, at.child('items'), false, depth + 1));
  for (const [name, child] of propertiesOf(v)) {
    errs.push(...nestedValueValidation(child, at.child('properties').key(name), false, depth + 1));
  }
  for (const [key, detail] of NESTED_FORBIDDEN) {
    if (key === 'default' ? v.default !== undefined : isSet(v[key]))
      errs.push(fieldErrors.forbidden(at.child(key), detail));
  }
  if (v.properties && Object.hasOwn(v.properties, 'metadata'))
    errs.push(
      fieldErrors.forbidden(at.child('properties').key('metadata'), 'must not be specified in a nested context'),
    );
  return errs;
}

/** The junctors of one node, with the two int-or-string shapes (anyOf integer/string) exempt. */
function junctors(
  s: JSONSchemaProps,
  at: FieldPath,
  skipAnyOf: boolean,
  firstAllOfIsIntOrString: boolean,
  depth: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (!skipAnyOf)
    asArr(s.anyOf).forEach((c, i) =>
      errs.push(...nestedValueValidation(c, at.child('anyOf').index(i), false, depth + 1)),
    );
  asArr(s.allOf).forEach((c, i) =>
    errs.push(...nestedValueValidation(c, at.child('allOf').index(i), firstAllOfIsIntOrString && i === 0, depth + 1)),
  );
  asArr(s.oneOf).forEach((c, i) =>
    errs.push(...nestedValueValidation(c, at.child('oneOf').index(i), false, depth + 1)),
  );
  errs.push(...nestedValueValidation(s.not, at.child('not'), false, depth + 1));
  const patternError = typeof s.pattern === 'string' ? re2PatternError(s.pattern) : undefined;
  if (patternError)
    errs.push(
      fieldErrors.invalid(
        at.child('pattern'),
        s.pattern,
        `must be a valid regular expression, but isn't: ${patternError}`,
      ),
    );
  return errs;
}

function metadataInvariants(m: JSONSchemaProps, checkMetadata: boolean, level: Level, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (checkMetadata && m.type !== 'object')
    errs.push(fieldErrors.invalid(at.child('type'), m.type ?? '', 'must be object'));
  if (level !== 'root') return errs;
  // Only name and generateName may be restricted, each by value validations only: the rest of metadata is the
  // server's, and a schema there would fight ObjectMeta's own rules.
  const { type: _type, properties, ...rest } = m;
  const names = Object.keys(asObj(properties) ?? {});
  const onlyNames = names.every((n) => n === 'name' || n === 'generateName');
  const others = Object.entries(rest).filter(([k, v]) => k !== 'default' && isSet(v));
  for (const name of ['name', 'generateName']) {
    const type = schemaAt(asObj(properties)?.[name])?.type;
    if (type !== undefined && type !== 'string')
      errs.push(fieldErrors.invalid(at.child('properties').key(name).child('type'), type, 'must be string'));
  }
  if (!onlyNames || others.length > 0)
    errs.push(
      fieldErrors.forbidden(
        at,
        'must not specify anything other than name and generateName, but metadata is implicitly specified',
      ),
    );
  return errs;
}

function invariants(raw: unknown, level: Level, at: FieldPath, depth: number): FieldError[] {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return [];
  const errs: FieldError[] = [];
  const type = typeof s.type === 'string' ? s.type : '';
  if (type === 'array' && s.items === undefined)
    errs.push(fieldErrors.required(at.child('items'), 'must be specified'));
  errs.push(...invariants(itemsOf(s), 'item', at.child('items'), depth + 1));
  for (const [name, child] of propertiesOf(s))
    errs.push(...invariants(child, 'field', at.child('properties').key(name), depth + 1));
  if (s.additionalProperties !== undefined) {
    if (level === 'root')
      errs.push(fieldErrors.forbidden(at.child('additionalProperties'), 'must not be used at the root'));
    errs.push(...invariants(additionalOf(s), 'field', at.child('additionalProperties'), depth + 1));
  }
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = s['x-kubernetes-embedded-resource'] === true;
  if (intOrString && preserve)
    errs.push(
      fieldErrors.invalid(
        at.child('x-kubernetes-preserve-unknown-fields'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  if (intOrString && embedded)
    errs.push(
      fieldErrors.invalid(
        at.child('x-kubernetes-embedded-resource'),
        true,
        'must be false if x-kubernetes-int-or-string is true',
      ),
    );
  const allOfFirst = asObj(asArr(s.allOf)[0]);
  errs.push(...junctors(s, at, isIntOrStringPair(s.anyOf), !!allOfFirst && isIntOrStringPair(allOfFirst.anyOf), depth));
  if (embedded && type !== 'object') {
    const detail = 'must be object if x-kubernetes-embedded-resource is true';
    errs.push(
      type === ''
        ? fieldErrors.required(at.child('type'), detail)
        : fieldErrors.invalid(at.child('type'), type, detail),
    );
  } else if (type === '' && !intOrString && !preserve) {
    errs.push(fieldErrors.required(at.child('type'), EMPTY_TYPE_DETAIL[level]));
  }
  if (embedded && s.additionalProperties !== undefined)
    errs.push(
      fieldErrors.forbidden(
        at.child('additionalProperties'),
        'must not be used if x-kubernetes-embedded-resource is set',
      ),
    );
  if (level === 'root' && type !== '' && type !== 'object')
    errs.push(fieldErrors.invalid(at.child('type'), type, 'must be object at the root'));
  const checkMetadata = level === 'root' || embedded;
  const props = new Map(propertiesOf(s));
  for (const name of ['kind', 'apiVersion']) {
    const p = props.get(name);
    if (p && checkMetadata && p.type !== 'string')
      errs.push(fieldErrors.invalid(at.child('properties').key(name).child('type'), p.type ?? '', 'must be string'));
  }
  const metadata = props.get('metadata');
  if (metadata)
    errs.push(...metadataInvariants(metadata, checkMetadata, level, at.child('properties').key('metadata')));
  if (embedded && !preserve && props.size === 0)
    errs.push(
      fieldErrors.required(
        at.child('properties'),
        'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ),
    );
  return errs;
}

/** Every field or item a junctor restricts must be declared by the structural part too. */
function completeness(
  raw: unknown,
  s: JSONSchemaProps | undefined,
  sAt: FieldPath,
  vAt: FieldPath,
  depth: number,
): FieldError[] {
  const v = schemaAt(raw);
  if (!v || depth > MAX_SCHEMA_DEPTH) return [];
  if (!s) return [fieldErrors.required(sAt, `because it is defined in ${String(vAt)}`)];
  const errs: FieldError[] = [];
  if (v.items !== undefined)
    errs.push(...completeness(itemsOf(v), itemsOf(s), sAt.child('items'), vAt.child('items'), depth + 1));
  const props = new Map(propertiesOf(s));
  for (const [name, child] of propertiesOf(v)) {
    errs.push(
      ...completeness(
        child,
        props.get(name) ?? additionalOf(s),
        sAt.child('properties').key(name),
        vAt.child('properties').key(name),
        depth + 1,
      ),
    );
  }
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
    asArr(v[key]).forEach((c, i) => errs.push(...completeness(c, s, sAt, vAt.child(key).index(i), depth + 1)));
  errs.push(...completeness(v.not, s, sAt, vAt.child('not'), depth + 1));
  return errs;
}

function completenessOf(raw: unknown, at: FieldPath, depth: number): FieldError[] {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return [];
  const errs: FieldError[] = [];
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
    asArr(s[key]).forEach((c, i) => errs.push(...completeness(c, s, at, at.child(key).index(i), depth + 1)));
  errs.push(...completeness(s.not, s, at, at.child('not'), depth + 1));
  errs.push(...completenessOf(itemsOf(s), at.child('items'), depth + 1));
  for (const [name, child] of propertiesOf(s))
    errs.push(...completenessOf(child, at.child('properties').key(name), depth + 1));
  errs.push(...completenessOf(additionalOf(s), at.child('additionalProperties'), depth + 1));
  return errs;
}

/** The structural-schema errors of an openAPIV3Schema, sorted by message as upstream sorts them. */
export function validateStructural(schema: unknown, at: FieldPath): FieldError[] {
  const errs = [...invariants(schema, 'root', at, 0), ...completenessOf(schema, at, 0)];
  return errs.sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
}

/** Each default valid against its own schema and unchanged by pruning (only called on a structural schema). */
export function validateDefaults(raw: unknown, at: FieldPath, depth = 0): FieldError[] {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return [];
  const errs: FieldError[] = [];
  if (s.default !== undefined) {
    const defaultAt = at.child('default');
    if (s.default === null && !s.nullable)
      errs.push(fieldErrors.invalid(defaultAt, null, 'must not be null for non-nullable'));
    else if (s.default !== null) {
      for (const p of checkValue(s.default, s))
        errs.push(
          fieldErrors.invalid(p.at ? defaultAt.child(p.at.replace(/^\./, '')) : defaultAt, s.default, p.detail),
        );
      const dropped = unknownFields(s.default, s, '', s['x-kubernetes-embedded-resource'] === true);
      if (dropped.length > 0)
        errs.push(fieldErrors.invalid(defaultAt, s.default, `must not have unknown fields: ${dropped.join(', ')}`));
    }
  }
  errs.push(...validateDefaults(itemsOf(s), at.child('items'), depth + 1));
  for (const [name, child] of propertiesOf(s))
    errs.push(...validateDefaults(child, at.child('properties').key(name), depth + 1));
  errs.push(...validateDefaults(additionalOf(s), at.child('additionalProperties'), depth + 1));
  return errs;
}
