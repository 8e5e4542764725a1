// Kubernetes' quantity library: isQuantity(string), quantity(string) and the members of the Quantity it returns.
// Parsing and the canonical form come from api/meta/quantity.ts; arithmetic is exact (digits × 10^scale as bigint).
import type { Environment } from '@marcbachmann/cel-js';
import {
  canonicalize,
  compareQuantities,
  isQuantity,
  parseQuantity,
  type Quantity,
  QUANTITY_FORMAT_MESSAGE,
} from '../../api/meta/quantity.js';
import { traversalCost } from './cost-constants.js';
import { define, defineOpaqueType } from './define.js';
import { CelLibraryError } from './errors.js';
import { charge } from './runtime-cost.js';

export const QUANTITY_TYPE = 'kubernetes.Quantity';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** A quantity value in expressions. The parsed form is private so expressions reach it only through its members. */
export class CelQuantity {
  readonly #q: Quantity;

  constructor(q: Quantity) {
    this.#q = q;
  }

  get quantity(): Quantity {
    return this.#q;
  }

  toPlain(): string {
    return this.#q.canonical;
  }
}

function signed(q: Quantity): bigint {
  return BigInt(q.sign) * q.digits;
}

/** Builds a normalized Quantity from an exact signed value × 10^scale. */
function fromExact(value: bigint, scale: number, format: Quantity['format']): Quantity {
  const sign: 1 | -1 = value < 0n ? -1 : 1;
  let digits = value < 0n ? -value : value;
  while (digits !== 0n && digits % 10n === 0n) {
    digits /= 10n;
    scale++;
  }
  if (digits === 0n) scale = 0;
  return {
    value: sign * Number(`${digits}e${scale}`),
    canonical: canonicalize(sign, digits, scale, format),
    format,
    sign,
    digits,
    scale,
  };
}

export function parseCelQuantity(s: string): CelQuantity {
  charge(traversalCost(s.length));
  try {
    return new CelQuantity(parseQuantity(s));
  } catch {
    throw new CelLibraryError('invalid_argument', QUANTITY_FORMAT_MESSAGE);
  }
}

export function quantityAdd(a: CelQuantity, b: CelQuantity | bigint, negate = false): CelQuantity {
  const x = a.quantity;
  const y = b instanceof CelQuantity ? b.quantity : fromExact(b, 0, 'DecimalSI');
  const scale = Math.min(x.scale, y.scale);
  const xv = signed(x) * 10n ** BigInt(x.scale - scale);
  const yv = signed(y) * 10n ** BigInt(y.scale - scale);
  // As resource.Quantity.Add: a zero receiver takes the other operand's format.
  const format = x.digits === 0n ? y.format : x.format;
  return new CelQuantity(fromExact(negate ? xv - yv : xv + yv, scale, format));
}

/** The integer value, or undefined when it has a fractional part or does not fit int64. */
function asInt64(q: Quantity): bigint | undefined {
  if (q.scale < 0) return undefined;
  const v = signed(q) * 10n ** BigInt(q.scale);
  return v > INT64_MAX || v < INT64_MIN ? undefined : v;
}

export function quantityIsInteger(q: CelQuantity): boolean {
  return asInt64(q.quantity) !== undefined;
}

export function quantityAsInteger(q: CelQuantity): bigint {
  const v = asInt64(q.quantity);
  if (v === undefined) {
    throw new CelLibraryError('invalid_argument', 'cannot convert value to integer: overflow or loss of precision');
  }
  return v;
}

export function quantityAsApproximateFloat(q: CelQuantity): number {
  const { sign, digits, scale } = q.quantity;
  return sign * Number(`${digits}e${scale}`);
}

export function quantitySign(q: CelQuantity): bigint {
  return q.quantity.digits === 0n ? 0n : BigInt(q.quantity.sign);
}

export function quantityCompare(a: CelQuantity, b: CelQuantity): bigint {
  return BigInt(compareQuantities(a.quantity, b.quantity));
}

export function registerQuantityLibrary(env: Environment): void {
  const Q = QUANTITY_TYPE;
  defineOpaqueType(env, Q, CelQuantity);
  define(env, 'isQuantity(string): bool', (s: string) => (charge(traversalCost(s.length)), isQuantity(s)));
  define(env, `quantity(string): ${Q}`, parseCelQuantity);
  define(env, `${Q}.isInteger(): bool`, quantityIsInteger);
  define(env, `${Q}.asInteger(): int`, quantityAsInteger);
  define(env, `${Q}.asApproximateFloat(): double`, quantityAsApproximateFloat);
  define(env, `${Q}.sign(): int`, quantitySign);
  define(env, `${Q}.add(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => quantityAdd(a, b));
  define(env, `${Q}.add(int): ${Q}`, (a: CelQuantity, b: bigint) => quantityAdd(a, b));
  define(env, `${Q}.sub(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => quantityAdd(a, b, true));
  define(env, `${Q}.sub(int): ${Q}`, (a: CelQuantity, b: bigint) => quantityAdd(a, b, true));
  define(env, `${Q}.isLessThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => quantityCompare(a, b) < 0n);
  define(env, `${Q}.isGreaterThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => quantityCompare(a, b) > 0n);
  define(env, `${Q}.compareTo(${Q}): int`, quantityCompare);
  // cel-go compares Kubernetes quantities with == by value (Quantity.Equal).
  env.registerOperator(`${Q} == ${Q}`, ((a: CelQuantity, b: CelQuantity) => quantityCompare(a, b) === 0n) as never);
}
