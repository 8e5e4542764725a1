// Quantity arithmetic quota needs (add, compare, count → quantity), exact over bigint, printed in the canonical
// form resource.Quantity's String() gives, so status.used and error messages read as upstream writes them.
import { canonicalize, compareQuantities, parseQuantity, type Quantity } from '../../api/meta/quantity.js';

/** A resource list: name → quantity string. */
export type ResourceList = Record<string, string>;

/** An object count as upstream writes it: resource.NewQuantity(n, DecimalSI), so 1000 prints `1k`. */
export function countQuantity(n: number): string {
  return parseQuantity(String(n)).canonical;
}

/** The canonical form; a value that does not parse is kept as written (validation refuses those on write). */
export function canonicalQuantity(s: string): string {
  try {
    return parseQuantity(s).canonical;
  } catch {
    return s;
  }
}

function parsed(s: string | undefined): Quantity {
  try {
    return parseQuantity(s ?? '0');
  } catch {
    return parseQuantity('0');
  }
}

/** a + b, in a's format (Quantity.Add keeps the receiver's). */
export function addQuantities(a: string, b: string): string {
  const x = parsed(a);
  const y = parsed(b);
  const scale = Math.min(x.scale, y.scale);
  let sum =
    BigInt(x.sign) * x.digits * 10n ** BigInt(x.scale - scale) +
    BigInt(y.sign) * y.digits * 10n ** BigInt(y.scale - scale);
  const sign: 1 | -1 = sum < 0n ? -1 : 1;
  if (sum < 0n) sum = -sum;
  let s = scale;
  while (sum !== 0n && sum % 10n === 0n) {
    sum /= 10n;
    s++;
  }
  return canonicalize(sign, sum, sum === 0n ? 0 : s, x.format);
}

/** Exact comparison of two quantity strings (an unparsable one counts as 0). */
export function compareQuantityStrings(a: string | undefined, b: string | undefined): number {
  return compareQuantities(parsed(a), parsed(b));
}

/** Whether two lists hold the same names with equal amounts (Semantic.DeepEqual of ResourceLists). */
export function sameResourceList(a: ResourceList, b: ResourceList): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => k in b && compareQuantityStrings(a[k], b[k]) === 0);
}

/** `a=1,b=2`, names sorted: how upstream prints a resource list in quota errors. */
export function prettyPrint(list: ResourceList): string {
  return Object.keys(list)
    .sort()
    .map((k) => `${k}=${canonicalQuantity(list[k])}`)
    .join(',');
}
