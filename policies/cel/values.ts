// Conversion between the plain JSON-like values callers hold and the library's CEL values.
//
// JSON numbers arrive as JavaScript doubles. Kubernetes decodes untyped JSON with integers as int64 and other numbers
// as float64 (k8s.io/apimachinery/pkg/util/json), so we do the same: a number with no fractional part within the int64
// range becomes a CEL int, any other number a CEL double. The one difference: JSON `1.0` and `1` are the same
// JavaScript number, so both become int. Callers that hold a schema can pass bigint (int) values already, which pass
// unchanged; a double that must stay a double can be wrapped with celDouble().
import { Optional } from '@marcbachmann/cel-js';
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { parseOpenApiDuration } from '../../api/validation/openapi-formats.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Marks a number that must reach the expression as a double even when it is integral. */
export class CelDouble {
  constructor(readonly value: number) {}
}

export function celDouble(value: number): CelDouble {
  return new CelDouble(value);
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A value converted once for several evaluations (the object a write's admission policies all read): evaluations
 * take it as it is instead of converting it again each time. The value must not change while it is in use.
 */
export class ConvertedCelValue {
  readonly converted: unknown;
  constructor(value: unknown) {
    this.converted = toCelValue(value);
  }
}

/** Converts one activation value (deeply) to what the library expects. Leaves library values and bigint alone. */
export function toCelValue(value: unknown): unknown {
  switch (typeof value) {
    case 'number':
      if (Number.isInteger(value)) {
        const big = BigInt(value);
        if (big <= INT64_MAX && big >= INT64_MIN) return big;
      }
      return value;
    case 'object': {
      if (value === null) return null;
      if (value instanceof CelDouble) return value.value;
      if (value instanceof ConvertedCelValue) return value.converted;
      if (Array.isArray(value)) return value.map(toCelValue);
      if (value instanceof Map) return new Map([...value].map(([k, v]) => [toCelValue(k), toCelValue(v)]));
      if (!isPlainObject(value)) return value;
      // A loop rather than entries/filter/map/fromEntries: every evaluation converts its activation, and this is
      // most of that work. A `__proto__` key is defined as an own property, so it stays an ordinary key.
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(value)) {
        const v = value[key];
        if (v === undefined) continue;
        if (key === '__proto__')
          Object.defineProperty(out, key, {
            value: toCelValue(v),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        else out[key] = toCelValue(v);
      }
      return out;
    }
    default:
      return value;
  }
}

const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * A string of a schema format as the CEL value upstream makes of it: `date` and `date-time` a timestamp, `duration` a
 * duration, `byte` the bytes its base64 holds. Any other format, and a string its format cannot read (format
 * validation refuses those before any rule runs), stays a string.
 */
export function celValueOfFormat(format: string, text: string): unknown {
  switch (format) {
    case 'date':
    case 'date-time': {
      if (format === 'date' && !FULL_DATE.test(text)) return text;
      const ms = Date.parse(text);
      return Number.isNaN(ms) ? text : new Date(ms);
    }
    case 'duration':
      try {
        return Duration.fromMilliseconds(parseOpenApiDuration(text));
      } catch {
        return text;
      }
    case 'byte':
      return new Uint8Array(Buffer.from(text, 'base64'));
    default:
      return text;
  }
}

/**
 * An optional value for a variable declared `optional<T>` (a rule's oldSelf with optionalOldSelf): empty for
 * undefined, else holding the converted value.
 */
export function celOptional(value: unknown): Optional<unknown> {
  return value === undefined ? Optional.none() : Optional.of(toCelValue(value));
}

export function toCelActivation(activation: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(activation)) out[name] = toCelValue(value);
  return out;
}

/** Objects of our libraries (quantities, URLs, decisions) say how they look as plain values. */
export interface PlainConvertible {
  toPlain(): unknown;
}

function isPlainConvertible(value: object): value is PlainConvertible {
  return typeof (value as Partial<PlainConvertible>).toPlain === 'function';
}

/**
 * Converts a result to plain values: int/uint → number (bigint beyond Number.MAX_SAFE_INTEGER), double → number,
 * list → array, map → object, timestamp → RFC 3339 string, duration → Go duration string (`90s`), quantity →
 * canonical string, optional → its value or undefined, bytes stay a Uint8Array.
 */
export function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') {
    return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Set) return [...value].map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(toPlain(k)), toPlain(v)]));
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Duration) return value.toString();
  if (value instanceof Optional) return value.hasValue() ? toPlain(value.value()) : undefined;
  if (value instanceof Uint8Array) return value;
  if (isPlainConvertible(value)) return value.toPlain();
  if (typeof (value as { valueOf(): unknown }).valueOf() === 'bigint')
    return toPlain((value as { valueOf(): unknown }).valueOf());
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toPlain(v)]));
  return value;
}
