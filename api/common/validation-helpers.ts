// Defensive readers and shared rules for kind validators. Kind rules run after schema validation, but they must
// still never throw on odd input (a status-only write, a half-typed object), so they read through these helpers.
import { fieldErrors, FieldPath, type FieldError } from '../meta/field-errors.js';
import { isObject, type KObject } from '../meta/types.js';
import { labelValue, qualifiedName } from '../meta/validation.js';

export type Obj = Record<string, unknown>;

export const asObj = (v: unknown): Obj | undefined => (isObject(v) ? v : undefined);
export const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const asStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const asStrMap = (v: unknown): Record<string, string> =>
  Object.fromEntries(Object.entries(asObj(v) ?? {}).filter(([, x]) => typeof x === 'string')) as Record<string, string>;

export const root = (name: string): FieldPath => FieldPath.root(name);

const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'];

/** metav1.LabelSelector rules (ValidateLabelSelector): operators, values per operator, key and value syntax. */
export function validateLabelSelector(sel: unknown, at: FieldPath): FieldError[] {
  const s = asObj(sel);
  if (!s) return [];
  const errs: FieldError[] = [];
  for (const [k, v] of Object.entries(asObj(s.matchLabels) ?? {})) {
    for (const p of qualifiedName(k)) errs.push(fieldErrors.invalid(at.child('matchLabels'), k, p));
    if (typeof v === 'string')
      for (const p of labelValue(v)) errs.push(fieldErrors.invalid(at.child('matchLabels'), v, p));
  }
  asArr(s.matchExpressions).forEach((raw, i) => {
    const e = asObj(raw) ?? {};
    const p = at.child('matchExpressions').index(i);
    const op = asStr(e.operator);
    const values = asArr(e.values);
    if (op === 'In' || op === 'NotIn') {
      if (values.length === 0)
        errs.push(fieldErrors.required(p.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values.length > 0)
        errs.push(
          fieldErrors.forbidden(
            p.child('values'),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
    } else if (op !== undefined) {
      errs.push(fieldErrors.notSupported(p.child('operator'), op, SELECTOR_OPERATORS));
    }
    const key = asStr(e.key);
    if (key !== undefined)
      for (const prob of qualifiedName(key)) errs.push(fieldErrors.invalid(p.child('key'), key, prob));
  });
  return errs;
}

/** Does a metav1.LabelSelector select these labels? An empty selector selects everything. */
export function selectorMatches(sel: unknown, labels: Record<string, string>): boolean {
  const s = asObj(sel);
  if (!s) return false;
  for (const [k, v] of Object.entries(asObj(s.matchLabels) ?? {})) if (labels[k] !== v) return false;
  for (const raw of asArr(s.matchExpressions)) {
    const e = asObj(raw) ?? {};
    const key = asStr(e.key) ?? '';
    const values = asArr(e.values);
    const has = Object.hasOwn(labels, key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** Reports a change of the value at `path` between two objects (deep comparison through JSON). */
export function immutable(
  at: FieldPath | string,
  next: unknown,
  prev: unknown,
  detail = 'field is immutable',
): FieldError[] {
  return JSON.stringify(next) === JSON.stringify(prev) ? [] : [fieldErrors.invalid(at, next, detail)];
}

export const specOf = (o: KObject): Obj => asObj(o.spec) ?? {};
export const statusOf = (o: KObject): Obj => asObj(o.status) ?? {};

/** Non-negative integer fields of one object, reported the way ValidateNonnegativeField does. */
export function nonNegative(o: Obj, fields: string[], at: FieldPath): FieldError[] {
  return fields.flatMap((f) => {
    const v = o[f];
    return typeof v === 'number' && v < 0
      ? [fieldErrors.invalid(at.child(f), v, 'must be greater than or equal to 0')]
      : [];
  });
}
