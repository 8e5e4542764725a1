// Kubernetes' lists library: isSorted, sum, min, max, indexOf, lastIndexOf. Elements compare by CEL ordering (int,
// uint, double across each other, string, bool, bytes, timestamp, duration); sum works on numbers and durations.
import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '@marcbachmann/cel-js/evaluator';
import { define, defineRerouted } from './define.js';
import { CelLibraryError } from './errors.js';
import { charge } from './runtime-cost.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const UINT64_MAX = 18446744073709551615n;

function numeric(v: unknown): bigint | number | undefined {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  if (v instanceof UnsignedInt) return v.valueOf();
  return undefined;
}

function durationNanos(d: Duration): bigint {
  return d.seconds * 1_000_000_000n + BigInt(d.nanos);
}

/** CEL ordering: negative, zero or positive; throws when the two values have no order between them. */
export function compareValues(a: unknown, b: unknown): number {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined && nb !== undefined) {
    if (typeof na === 'number' && Number.isNaN(na)) return typeof nb === 'number' && Number.isNaN(nb) ? 0 : 1;
    return na < nb ? -1 : na > nb ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) {
    const d = durationNanos(a) - durationNanos(b);
    return d < 0n ? -1 : d > 0n ? 1 : 0;
  }
  if (a instanceof Uint8Array && b instanceof Uint8Array) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  }
  throw new CelLibraryError('no_such_overload', 'no such overload: list elements are not comparable');
}

/** CEL equality between two values (numbers compare across int, uint and double). */
export function valuesEqual(a: unknown, b: unknown): boolean {
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na == nb; // eslint-disable-line eqeqeq -- an int (bigint) and a double (number) are equal by value only under ==
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => valuesEqual(v, b[i]));
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (a instanceof Duration && b instanceof Duration) return durationNanos(a) === durationNanos(b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareValues(a, b) === 0;
  if (a.constructor !== b.constructor) return false;
  if (a instanceof Map && b instanceof Map) {
    return a.size === b.size && [...a].every(([k, v]) => b.has(k) && valuesEqual(v, b.get(k)));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(rb, k) && valuesEqual(ra[k], rb[k]));
}

export function isSorted(list: unknown[]): boolean {
  charge(list.length);
  for (let i = 1; i < list.length; i++) if (compareValues(list[i - 1], list[i]) > 0) return false;
  return true;
}

function extreme(list: unknown[], name: string, sign: 1 | -1): unknown {
  charge(list.length);
  if (list.length === 0) throw new CelLibraryError('invalid_argument', `${name} called on empty list`);
  let best = list[0];
  for (const v of list) if (compareValues(v, best) * sign > 0) best = v;
  return best;
}

export const listMin = (list: unknown[]) => extreme(list, 'min', -1);
export const listMax = (list: unknown[]) => extreme(list, 'max', 1);

function overflow(): CelLibraryError {
  return new CelLibraryError('numeric_overflow', 'integer overflow');
}

export function sumInts(list: bigint[]): bigint {
  charge(list.length);
  let total = 0n;
  for (const v of list) {
    total += v;
    if (total > INT64_MAX || total < INT64_MIN) throw overflow();
  }
  return total;
}

export function sumUints(list: UnsignedInt[]): UnsignedInt {
  charge(list.length);
  let total = 0n;
  for (const v of list) {
    total += v.valueOf();
    if (total > UINT64_MAX) throw overflow();
  }
  return new UnsignedInt(total);
}

export function sumDoubles(list: number[]): number {
  charge(list.length);
  return list.reduce((a, b) => a + b, 0);
}

export function sumDurations(list: Duration[]): Duration {
  charge(list.length);
  let total = 0n;
  for (const d of list) total += durationNanos(d);
  const seconds = total / 1_000_000_000n;
  return new Duration(seconds, Number(total - seconds * 1_000_000_000n));
}

/** A list of `dyn` elements: sum by the kind of its elements. */
function sumDyn(list: unknown[]): unknown {
  if (list.length === 0) return 0n;
  if (list.every((v) => typeof v === 'bigint')) return sumInts(list);
  if (list.every((v) => v instanceof UnsignedInt)) return sumUints(list);
  if (list.every((v) => typeof v === 'number')) return sumDoubles(list);
  if (list.every((v) => v instanceof Duration)) return sumDurations(list);
  throw new CelLibraryError('no_such_overload', 'no such overload: sum() needs a list of one numeric or duration type');
}

export function listIndexOf(list: unknown[], value: unknown): bigint {
  charge(list.length);
  return BigInt(list.findIndex((v) => valuesEqual(v, value)));
}

export function listLastIndexOf(list: unknown[], value: unknown): bigint {
  charge(list.length);
  return BigInt(list.findLastIndex((v) => valuesEqual(v, value)));
}

const GPD = 'google.protobuf.Duration';
const GPT = 'google.protobuf.Timestamp';
const COMPARABLE = ['int', 'uint', 'double', 'string', 'bool', 'bytes', GPD, GPT];

export function registerListsLibrary(env: Environment): void {
  define(env, 'list<int>.sum(): int', sumInts);
  define(env, 'list<uint>.sum(): uint', sumUints);
  define(env, 'list<double>.sum(): double', sumDoubles);
  define(env, `list<${GPD}>.sum(): ${GPD}`, sumDurations);
  define(env, 'list<dyn>.sum(): dyn', sumDyn);
  for (const t of COMPARABLE) {
    define(env, `list<${t}>.isSorted(): bool`, isSorted);
    define(env, `list<${t}>.min(): ${t}`, listMin);
    define(env, `list<${t}>.max(): ${t}`, listMax);
  }
  define(env, 'list<dyn>.isSorted(): bool', isSorted);
  define(env, 'list<dyn>.min(): dyn', listMin);
  define(env, 'list<dyn>.max(): dyn', listMax);
  defineRerouted(env, 'list<T>.indexOf(T): int', listIndexOf);
  defineRerouted(env, 'list<T>.lastIndexOf(T): int', listLastIndexOf);
}
