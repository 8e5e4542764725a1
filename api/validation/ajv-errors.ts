// Translates ajv's errors into FieldErrors worded the way kube-apiserver words schema failures
// (`spec.replicas in body must be of type integer: "string"`), with field.Path-style paths.
import type { ErrorObject } from 'ajv';
import type { JSONSchema } from '../schema.js';
import { fieldErrors, type FieldError } from '../meta/field-errors.js';
import { isObject, ownValue } from '../meta/types.js';

/** The JSON type name kube prints for a value. */
export function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** `/spec/taints/0/effect` → `spec.taints[0].effect`; map keys become `[key]` as in `metadata.labels[app]`. */
export function pointerToPath(pointer: string, schema: JSONSchema, data: unknown): string {
  if (!pointer) return '';
  const segments = pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  let s: JSONSchema | undefined = schema;
  let d: unknown = data;
  for (const seg of segments) {
    if (Array.isArray(d)) {
      path += `[${seg}]`;
      s = s?.items;
      d = d[Number(seg)];
      continue;
    }
    const field = ownValue(s?.properties, seg);
    if (field) {
      path = path ? `${path}.${seg}` : seg;
      s = field;
    } else {
      path += path ? `[${seg}]` : seg;
      s = isObject(s?.additionalProperties) ? s.additionalProperties : undefined;
    }
    d = isObject(d) ? ownValue(d, seg) : undefined;
  }
  return path;
}

/** One FieldError per ajv error that is about the data (combinator summaries are dropped). */
export function toFieldError(e: ErrorObject, schema: JSONSchema, data: unknown): FieldError | null {
  const path = pointerToPath(e.instancePath, schema, data);
  const at = path || '<root>';
  const value: unknown = e.data;
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'type':
      // A null where an object or scalar is expected decodes as "absent" for built-in types.
      if (value === null) return null;
      return fieldErrors.typeInvalid(
        at,
        typeName(value),
        `${at} in body must be of type ${String(p.type)}: "${typeName(value)}"`,
      );
    case 'x-kubernetes-int-or-string':
      if (value === null) return null;
      return fieldErrors.typeInvalid(
        at,
        typeName(value),
        `${at} in body must be of type integer or string: "${typeName(value)}"`,
      );
    case 'required': {
      const missing = String(p.missingProperty);
      return fieldErrors.required(path ? `${path}.${missing}` : missing);
    }
    case 'enum':
      return fieldErrors.notSupported(at, value, (p.allowedValues as unknown[]).map(String));
    case 'minimum':
      return fieldErrors.invalid(at, value, `${at} in body should be greater than or equal to ${String(p.limit)}`);
    case 'maximum':
      return fieldErrors.invalid(at, value, `${at} in body should be less than or equal to ${String(p.limit)}`);
    // A custom resource's draft-4 exclusive bounds, as openapi-dialect.ts hands them to ajv.
    case 'exclusiveMinimum':
      return fieldErrors.invalid(at, value, `${at} in body should be greater than ${String(p.limit)}`);
    case 'exclusiveMaximum':
      return fieldErrors.invalid(at, value, `${at} in body should be less than ${String(p.limit)}`);
    case 'maxLength':
      return fieldErrors.tooLong(at, value, Number(p.limit));
    case 'pattern':
      return fieldErrors.invalid(at, value, `${at} in body should match '${String(p.pattern)}'`);
    case 'format':
      return fieldErrors.invalid(
        at,
        value,
        `${at} in body must be of type ${String(p.format)}: ${JSON.stringify(value)}`,
      );
    case 'anyOf':
    case 'oneOf':
    case 'allOf':
      return null;
    default:
      return fieldErrors.invalid(at, value, e.message ?? e.keyword);
  }
}
