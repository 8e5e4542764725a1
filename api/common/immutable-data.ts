// Secrets and ConfigMaps marked immutable keep their payload forever; only metadata may change.
import type { FieldError } from '../meta/field-errors.js';
import { fieldErrors } from '../meta/field-errors.js';
import type { KObject } from '../meta/types.js';

export function validateImmutablePayload(obj: KObject, old: KObject, fields: string[]): FieldError[] {
  if (old.immutable !== true) return [];
  const errs: FieldError[] = [];
  if (obj.immutable !== true)
    errs.push(fieldErrors.forbidden('immutable', 'field is immutable when `immutable` is set'));
  const changed = fields.some((f) => JSON.stringify(obj[f] ?? {}) !== JSON.stringify(old[f] ?? {}));
  if (changed) errs.push(fieldErrors.forbidden('data', 'field is immutable when `immutable` is set'));
  return errs;
}

const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

/** Keys of data maps become file names in volumes: IsConfigMapKey. */
export function configKeyProblems(key: string): string[] {
  const problems: string[] = [];
  if (key.length > 253) problems.push('must be no more than 253 characters');
  if (!CONFIG_KEY.test(key))
    problems.push(
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    );
  if (key === '.') problems.push("must not be '.'");
  else if (key === '..') problems.push("must not be '..'");
  else if (key.startsWith('..')) problems.push("must not start with '..'");
  return problems;
}
