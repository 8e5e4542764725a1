// Comparing CEL type names: whether the checked type of an expression may yield one of the result types a field
// allows (gradual typing: `dyn`, and `dyn` inside lists and maps, may turn out to be anything), and whether a
// runtime value is of a type.
import { Optional } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';

interface TypeTerm {
  name: string;
  params: TypeTerm[];
}

function parseType(text: string): TypeTerm {
  let i = 0;
  const term = (): TypeTerm => {
    const start = i;
    while (i < text.length && !'<>,'.includes(text[i])) i++;
    const name = text.slice(start, i).trim();
    const params: TypeTerm[] = [];
    if (text[i] === '<') {
      i++;
      params.push(term());
      while (text[i] === ',') {
        i++;
        params.push(term());
      }
      i++; // '>'
    }
    return { name, params };
  };
  const t = term();
  // The library reports list<dyn> and map<dyn, dyn> as bare `list` and `map`.
  if (t.name === 'list' && t.params.length === 0) return { name: 'list', params: [{ name: 'dyn', params: [] }] };
  if (t.name === 'map' && t.params.length === 0) {
    return {
      name: 'map',
      params: [
        { name: 'dyn', params: [] },
        { name: 'dyn', params: [] },
      ],
    };
  }
  return t;
}

function assignable(checked: TypeTerm, wanted: TypeTerm): boolean {
  if (checked.name === 'dyn' || wanted.name === 'dyn') return true;
  if (checked.name !== wanted.name || checked.params.length !== wanted.params.length) return false;
  return checked.params.every((p, i) => assignable(p, wanted.params[i]));
}

/** Whether an expression checked as `checked` may yield a value of type `wanted`. */
export function mayYield(checked: string, wanted: string): boolean {
  return assignable(parseType(checked), parseType(wanted));
}

/** Normalizes the library's names (`list` → `list<dyn>`). */
export function normalizeTypeName(name: string): string {
  if (name === 'list') return 'list<dyn>';
  if (name === 'map') return 'map<dyn, dyn>';
  return name;
}

function valueMatches(value: unknown, t: TypeTerm): boolean {
  switch (t.name) {
    case 'dyn':
      return true;
    case 'bool':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'int':
      return typeof value === 'bigint';
    case 'uint':
      return value instanceof UnsignedInt;
    case 'double':
      return typeof value === 'number';
    case 'bytes':
      return value instanceof Uint8Array;
    case 'null_type':
      return value === null;
    case 'google.protobuf.Timestamp':
      return value instanceof Date;
    case 'google.protobuf.Duration':
      return value instanceof Duration;
    case 'optional_type':
      return value instanceof Optional;
    case 'list':
      return Array.isArray(value) && value.every((v) => valueMatches(v, t.params[0] ?? { name: 'dyn', params: [] }));
    case 'map':
      return (
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        (value instanceof Map ||
          Object.getPrototypeOf(value) === Object.prototype ||
          Object.getPrototypeOf(value) === null) &&
        Object.values(value instanceof Map ? Object.fromEntries(value) : value).every((v) =>
          valueMatches(v, t.params[1] ?? { name: 'dyn', params: [] }),
        )
      );
    default:
      // Object types of our libraries: compare by the registered name is not possible here; accept.
      return typeof value === 'object' && value !== null;
  }
}

/** Whether a runtime CEL value (before conversion to plain values) is of the named type. */
export function valueIsOfType(value: unknown, type: string): boolean {
  return valueMatches(value, parseType(type));
}

/** A short name of a runtime value's type, for messages. */
export function runtimeTypeName(value: unknown): string {
  if (value === null) return 'null_type';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Date) return 'google.protobuf.Timestamp';
  if (value instanceof Duration) return 'google.protobuf.Duration';
  if (value instanceof UnsignedInt) return 'uint';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Map || Object.getPrototypeOf(value) === Object.prototype) return 'map';
  return 'object';
}
