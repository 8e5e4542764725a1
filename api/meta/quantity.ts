// Resource quantities (`500m`, `1.5Gi`, `1e3`) as resource.Quantity parses and prints them. Values are kept exact
// as digits × 10^scale (bigint) so the canonical form never suffers float rounding; `value` is only a convenience.
import { ownValue } from './types.js';

export const QUANTITY_FORMAT_MESSAGE =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export class QuantityError extends Error {
  constructor(message = QUANTITY_FORMAT_MESSAGE) {
    super(message);
    this.name = 'QuantityError';
  }
}

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** Approximate numeric value (a double); compare canonical strings or use `compareQuantities` for exactness. */
  value: number;
  /** The form kube-apiserver stores and returns, e.g. `1.5G` → `1500M`, `2048Ki` → `2Mi`, `0.1` → `100m`. */
  canonical: string;
  format: QuantityFormat;
  /** Exact magnitude: sign × digits × 10^scale, rounded up to nano units as kube does. */
  sign: 1 | -1;
  digits: bigint;
  scale: number;
}

const BINARY: Record<string, number> = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 };
const DECIMAL: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL).map(([s, e]) => [e, s]));
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SHAPE = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/;
/** Anything beyond this many digits of exponent is not a resource amount; refusing it bounds the work. */
const MAX_EXPONENT = 1_000_000;

function pow(base: bigint, n: number): bigint {
  return base ** BigInt(n);
}

/** Parses a quantity; throws QuantityError with kube's message. */
export function parseQuantity(s: string): Quantity {
  const m = SHAPE.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new QuantityError();
  const [, signText, whole, frac = '', suffix] = m;
  let scale = -frac.length;
  let digits = BigInt(`${whole}${frac}` || '0');
  let format: QuantityFormat = 'DecimalSI';

  const binary = ownValue(BINARY, suffix);
  const decimal = ownValue(DECIMAL, suffix);
  if (binary !== undefined) {
    format = 'BinarySI';
    digits *= pow(1024n, binary);
  } else if (decimal !== undefined) {
    scale += decimal;
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    format = 'DecimalExponent';
    const exp = Number(suffix.slice(1));
    if (!Number.isSafeInteger(exp) || Math.abs(exp) > MAX_EXPONENT) throw new QuantityError();
    scale += exp;
  } else if (/^[eEinumkKMGTP]*[-+]?\d*$/.test(suffix)) {
    throw new QuantityError("unable to parse quantity's suffix");
  } else {
    throw new QuantityError();
  }

  // Precision below nano units is rounded up (away from zero), as kube does.
  if (scale < -9 && digits !== 0n) {
    const drop = -9 - scale;
    if (drop > digits.toString().length) {
      digits = 1n;
    } else {
      const div = pow(10n, drop);
      digits = digits / div + (digits % div === 0n ? 0n : 1n);
    }
    scale = -9;
  }
  const sign: 1 | -1 = signText === '-' && digits !== 0n ? -1 : 1;
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

export function canonicalize(sign: 1 | -1, digits: bigint, scale: number, format: QuantityFormat): string {
  if (digits === 0n) return '0';
  const prefix = sign < 0 ? '-' : '';
  if (format === 'BinarySI' && scale >= 0) {
    const n = digits * pow(10n, scale);
    // Small or fractional binary amounts print in decimal so nothing is rounded.
    if (n >= 1024n) {
      let k = 0;
      while (k < 6 && n % pow(1024n, k + 1) === 0n) k++;
      return `${prefix}${n / pow(1024n, k)}${BINARY_SUFFIXES[k]}`;
    }
  }
  let exponent = Math.floor(scale / 3) * 3;
  if (format !== 'DecimalExponent') exponent = Math.min(exponent, 18);
  const mantissa = digits * pow(10n, scale - exponent);
  if (format === 'DecimalExponent') return `${prefix}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  return `${prefix}${mantissa}${DECIMAL_BY_EXPONENT.get(exponent)}`;
}

export function isQuantity(s: string): boolean {
  try {
    parseQuantity(s);
    return true;
  } catch {
    return false;
  }
}

/** Exact comparison: negative when a < b, zero when equal, positive when a > b. */
export function compareQuantities(a: Quantity, b: Quantity): number {
  const scale = Math.min(a.scale, b.scale);
  const av = BigInt(a.sign) * a.digits * pow(10n, a.scale - scale);
  const bv = BigInt(b.sign) * b.digits * pow(10n, b.scale - scale);
  return av < bv ? -1 : av > bv ? 1 : 0;
}
