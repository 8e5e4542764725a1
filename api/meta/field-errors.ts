// Field errors in the shape kube-apiserver reports them: a path, a type and a detail. A validator returns all of
// them at once; the registry turns a non-empty list into one 422 Invalid Status.

export type FieldErrorType =
  | 'FieldValueRequired'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueDuplicate'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'FieldValueTypeInvalid'
  | 'InternalError';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  detail?: string;
  value?: unknown;
  /** NotSupported: the accepted values. */
  valid?: string[];
}

const PHRASE: Record<FieldErrorType, string> = {
  FieldValueRequired: 'Required value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  FieldValueTypeInvalid: 'Invalid value',
  InternalError: 'Internal error',
};

/** Builds dotted/indexed paths the way field.Path prints them: spec.taints[0].key, metadata.labels[app]. */
export class FieldPath {
  private constructor(private readonly text: string) {}
  static root(name: string): FieldPath {
    return new FieldPath(name);
  }
  child(name: string): FieldPath {
    return new FieldPath(this.text ? `${this.text}.${name}` : name);
  }
  index(i: number): FieldPath {
    return new FieldPath(`${this.text}[${i}]`);
  }
  key(k: string): FieldPath {
    return new FieldPath(`${this.text}[${k}]`);
  }
  toString(): string {
    return this.text;
  }
}

type At = FieldPath | string;

export const fieldErrors = {
  required: (at: At, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: String(at), detail }),
  invalid: (at: At, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueInvalid',
    field: String(at),
    value,
    detail,
  }),
  notSupported: (at: At, value: unknown, valid: string[]): FieldError => ({
    type: 'FieldValueNotSupported',
    field: String(at),
    value,
    valid,
    detail: `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
  }),
  forbidden: (at: At, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: String(at), detail }),
  duplicate: (at: At, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: String(at), value }),
  /** The value is kept for callers but never printed: upstream leaves a too-long value out of the message. */
  tooLong: (at: At, value: unknown, max: number): FieldError => ({
    type: 'FieldValueTooLong',
    field: String(at),
    value,
    detail: max >= 0 ? `may not be more than ${max} ${max === 1 ? 'byte' : 'bytes'}` : 'value is too long',
  }),
  /** `actual` is printed as the value, as upstream does; a negative one (unknown) is left out. */
  tooMany: (at: At, actual: number, max: number): FieldError => ({
    type: 'FieldValueTooMany',
    field: String(at),
    value: actual >= 0 ? actual : undefined,
    detail: max >= 0 ? `must have at most ${max} ${max === 1 ? 'item' : 'items'}` : 'has too many items',
  }),
  typeInvalid: (at: At, value: unknown, detail: string): FieldError => ({
    type: 'FieldValueTypeInvalid',
    field: String(at),
    value,
    detail,
  }),
};

function printValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === undefined) return 'null';
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** The message of one field error, as `field.Error.Error()` renders it. */
export function fieldErrorMessage(e: FieldError): string {
  const phrase = PHRASE[e.type];
  // As upstream's ErrorBody: these types never print their value; "too many" prints the count when it is known.
  const omitValue =
    e.type === 'FieldValueRequired' ||
    e.type === 'FieldValueForbidden' ||
    e.type === 'FieldValueTooLong' ||
    e.type === 'InternalError' ||
    (e.type === 'FieldValueTooMany' && e.value === undefined);
  const body = omitValue ? phrase : `${phrase}: ${printValue(e.value)}`;
  return e.detail ? `${e.field}: ${body}: ${e.detail}` : `${e.field}: ${body}`;
}
