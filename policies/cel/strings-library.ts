// Extended strings library as Kubernetes enables it (cel-go ext.Strings): charAt, indexOf, lastIndexOf, lowerAscii,
// upperAscii, replace, split, join, substring, trim. Indexes count Unicode code points, as cel-go counts runes.
// The library already has indexOf, lastIndexOf, lowerAscii, upperAscii, split, join, substring and trim, but counts
// UTF-16 units, lowers non-ASCII letters and trims a different set of spaces, so those are replaced (internal-names.ts);
// charAt and replace are new.
import type { Environment } from '@marcbachmann/cel-js';
import { traversalCost } from './cost-constants.js';
import { define, defineRerouted } from './define.js';
import { CelLibraryError } from './errors.js';
import { charge } from './runtime-cost.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** The code points of `s`; the string itself when it has none beyond the BMP (indexing then agrees). */
function codePoints(s: string): string | string[] {
  return SURROGATE.test(s) ? Array.from(s) : s;
}

// Unlike cel-go, messages leave out the index: it may come from the activation.
function outOfRange(_index?: bigint | number): CelLibraryError {
  return new CelLibraryError('index_out_of_range', 'index out of range');
}

function slice(points: string | string[], start: number, end?: number): string {
  return typeof points === 'string' ? points.slice(start, end) : points.slice(start, end).join('');
}

function indexIn(points: string | string[], sub: string | string[], from: number, step: 1 | -1, last: number): number {
  const n = sub.length;
  for (let i = from; step > 0 ? i <= last : i >= 0; i += step) {
    let j = 0;
    while (j < n && points[i + j] === sub[j]) j++;
    if (j === n) return i;
  }
  return -1;
}

export function charAt(s: string, index: bigint): string {
  const points = codePoints(s);
  const i = Number(index);
  if (i < 0 || i > points.length) throw outOfRange(index);
  return i === points.length ? '' : points[i];
}

export function indexOf(s: string, sub: string, offset = 0n): bigint {
  if (sub === '') return offset;
  const points = codePoints(s);
  const off = Number(offset);
  if (off < 0 || off >= points.length) throw outOfRange(offset);
  const subPoints = codePoints(sub);
  return BigInt(indexIn(points, subPoints, off, 1, points.length - subPoints.length));
}

export function lastIndexOf(s: string, sub: string, offset?: bigint): bigint {
  const points = codePoints(s);
  if (sub === '') return offset ?? BigInt(points.length);
  const subPoints = codePoints(sub);
  let off = points.length - subPoints.length;
  if (offset !== undefined) {
    const o = Number(offset);
    if (o < 0 || o >= points.length) throw outOfRange(offset);
    off = Math.min(o, off);
  }
  return BigInt(indexIn(points, subPoints, off, -1, 0));
}

export function lowerAscii(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

export function upperAscii(s: string): string {
  return s.replace(/[a-z]+/g, (m) => m.toUpperCase());
}

/** Go's strings.Replace: at most `limit` replacements (all when negative); an empty `old` matches between runes. */
export function replace(s: string, old: string, replacement: string, limit = -1n): string {
  let n = limit < 0n ? Infinity : Number(limit);
  if (old === '') {
    const points = Array.from(s);
    let out = '';
    for (let i = 0; i <= points.length; i++) {
      if (n-- > 0) out += replacement;
      if (i < points.length) out += points[i];
    }
    return out;
  }
  let out = '';
  let from = 0;
  while (n-- > 0) {
    const at = s.indexOf(old, from);
    if (at < 0) break;
    out += s.slice(from, at) + replacement;
    from = at + old.length;
  }
  return out + s.slice(from);
}

/** Go's strings.SplitN: `limit` 0 gives no parts, a negative limit all; an empty separator splits into runes. */
export function split(s: string, separator: string, limit = -1n): string[] {
  if (limit === 0n) return [];
  const parts = separator === '' ? Array.from(s) : s.split(separator);
  if (limit < 0n || parts.length <= Number(limit)) return parts;
  const n = Number(limit);
  return [...parts.slice(0, n - 1), parts.slice(n - 1).join(separator)];
}

export function join(list: unknown[], separator = ''): string {
  for (const item of list) {
    if (typeof item !== 'string') throw new CelLibraryError('invalid_argument', 'join: list must contain only strings');
  }
  return list.join(separator);
}

export function substring(s: string, start: bigint, end?: bigint): string {
  const points = codePoints(s);
  const b = Number(start);
  const e = end === undefined ? points.length : Number(end);
  if (b < 0 || b > points.length) throw outOfRange(start);
  if (e < 0 || e > points.length) throw outOfRange(end);
  if (b > e) throw new CelLibraryError('invalid_argument', 'invalid substring range: start after end');
  return slice(points, b, e);
}

// Go's unicode.IsSpace set, which strings.TrimSpace uses (unlike JavaScript's trim, it keeps U+FEFF).
const SPACE = '[\\t\\n\\v\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]';
const TRIM = new RegExp(`^${SPACE}+|${SPACE}+$`, 'g');

export function trim(s: string): string {
  return s.replace(TRIM, '');
}

/** Charges the traversal of the strings a call reads. */
function metered<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    let length = 0;
    for (const a of args) if (typeof a === 'string') length += a.length;
    charge(traversalCost(length));
    return fn(...args);
  };
}

export function registerStringsLibrary(env: Environment): void {
  define(env, 'string.charAt(int): string', metered(charAt));
  define(
    env,
    'string.replace(string, string): string',
    metered((s: string, o: string, r: string) => replace(s, o, r)),
  );
  define(env, 'string.replace(string, string, int): string', metered(replace));
  defineRerouted(
    env,
    'string.indexOf(string): int',
    metered((s: string, sub: string) => indexOf(s, sub)),
  );
  defineRerouted(env, 'string.indexOf(string, int): int', metered(indexOf));
  defineRerouted(
    env,
    'string.lastIndexOf(string): int',
    metered((s: string, sub: string) => lastIndexOf(s, sub)),
  );
  defineRerouted(env, 'string.lastIndexOf(string, int): int', metered(lastIndexOf));
  defineRerouted(env, 'string.lowerAscii(): string', metered(lowerAscii));
  defineRerouted(env, 'string.upperAscii(): string', metered(upperAscii));
  defineRerouted(
    env,
    'string.split(string): list<string>',
    metered((s: string, sep: string) => split(s, sep)),
  );
  defineRerouted(env, 'string.split(string, int): list<string>', metered(split));
  defineRerouted(
    env,
    'string.substring(int): string',
    metered((s: string, b: bigint) => substring(s, b)),
  );
  defineRerouted(env, 'string.substring(int, int): string', metered(substring));
  defineRerouted(env, 'string.trim(): string', metered(trim));
  const joinMetered = (list: unknown[], sep = '') => {
    charge(traversalCost(list.reduce((n: number, s) => n + (typeof s === 'string' ? s.length : 0), 0)));
    return join(list, sep);
  };
  defineRerouted(env, 'list<string>.join(): string', (l: unknown[]) => joinMetered(l));
  defineRerouted(env, 'list<string>.join(string): string', joinMetered);
}
