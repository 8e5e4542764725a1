// Schema validation for one kind, compiled once: pruning of unknown fields and type/required/enum checks, then
// (createKindValidator) the kind's own rules, which only run on an object whose types are sound.
import type { ValidateFunction } from 'ajv';
import type { KindDefinition } from '../scheme.js';
import type { JSONSchema } from '../schema.js';
import type { FieldError } from '../meta/field-errors.js';
import { isObject, type KObject } from '../meta/types.js';
import { sharedAjv } from './ajv-instance.js';
import { toFieldError } from './ajv-errors.js';
import { toAjvDialect } from './openapi-dialect.js';
import { pruneUnknownFields } from './prune.js';

export interface SchemaValidator {
  /** Removes fields unknown to the schema in place; returns their paths (`spec.foo`, `metadata.labelz`). */
  prune: (obj: unknown) => string[];
  /** Type, required, enum, range and format errors with field paths; never throws. */
  validate(obj: unknown): FieldError[];
}

export interface KindValidator extends SchemaValidator {
  readonly def: KindDefinition;
  /** Schema errors, then the kind's rules when the schema found no type errors. */
  validate(obj: unknown): FieldError[];
  /** validate() plus the kind's update rules (immutable fields); `warnings` collects what they only warn of. */
  validateUpdate(obj: unknown, old: KObject, warnings?: string[]): FieldError[];
  /** Schema errors plus the kind's status rules, for writes through /status. */
  validateStatusUpdate(obj: unknown, old: KObject, warnings?: string[]): FieldError[];
}

function compile(schema: JSONSchema): ValidateFunction {
  return sharedAjv().compile(toAjvDialect(schema));
}

/** Accepts a kind (its complete schema) or any schema of the dialect. */
export function createSchemaValidator(source: KindDefinition | JSONSchema): SchemaValidator {
  const schema: JSONSchema = 'resource' in source && 'schema' in source ? source.schema : source;
  const check = compile(schema);
  return {
    prune: (obj) => pruneUnknownFields(schema, obj),
    validate(obj) {
      try {
        if (check(obj)) return [];
        const errs: FieldError[] = [];
        for (const e of check.errors ?? []) {
          const fe = toFieldError(e, schema, obj);
          if (fe) errs.push(fe);
        }
        return dedupe(errs);
      } catch (err) {
        return [{ type: 'InternalError', field: '<root>', detail: `schema validation failed: ${String(err)}` }];
      }
    },
  };
}

function key(e: FieldError): string {
  return `${e.type}\u0000${e.field}`;
}

function dedupe(errs: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errs.filter((e) => {
    const k = `${key(e)}\u0000${e.detail ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Kind errors win over schema errors on the same field and type: they carry kube's detail text. */
function merge(schemaErrs: FieldError[], kindErrs: FieldError[]): FieldError[] {
  if (kindErrs.length === 0) return schemaErrs;
  if (schemaErrs.length === 0) return kindErrs;
  const covered = new Set(kindErrs.map(key));
  return [...schemaErrs.filter((e) => !covered.has(key(e))), ...kindErrs];
}

function runRule(rule: () => FieldError[] | undefined): FieldError[] {
  try {
    return rule() ?? [];
  } catch (err) {
    return [{ type: 'InternalError', field: '<root>', detail: `validation failed: ${String(err)}` }];
  }
}

const cache = new WeakMap<KindDefinition, KindValidator>();

export function createKindValidator(def: KindDefinition): KindValidator {
  const cached = cache.get(def);
  if (cached) return cached;
  const schemaValidator = createSchemaValidator(def.schema);
  const withRules = (obj: unknown, rules: (o: KObject) => FieldError[], old?: KObject): FieldError[] => {
    const found = schemaValidator.validate(obj);
    const schemaErrs = old && def.ratchetSchemaErrors ? def.ratchetSchemaErrors(found, obj, old) : found;
    if (!isObject(obj) || schemaErrs.some((e) => e.type === 'FieldValueTypeInvalid')) return schemaErrs;
    return merge(
      schemaErrs,
      runRule(() => rules(obj as KObject)),
    );
  };
  const validator: KindValidator = {
    def,
    prune: schemaValidator.prune,
    validate: (obj) => withRules(obj, (o) => [...(def.validate?.(o) ?? []), ...(def.validateCreate?.(o) ?? [])]),
    validateUpdate: (obj, old, warnings) =>
      withRules(obj, (o) => [...(def.validate?.(o) ?? []), ...(def.validateUpdate?.(o, old, warnings) ?? [])], old),
    validateStatusUpdate: (obj, old, warnings) =>
      withRules(obj, (o) => def.validateStatusUpdate?.(o, old, warnings) ?? [], old),
  };
  cache.set(def, validator);
  return validator;
}
