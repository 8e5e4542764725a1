// Regular expressions with RE2 semantics (as cel-go): `matches` (also the global `matches(s, re)`) is true when the
// pattern matches any part of the string, `find` gives the first match or "", `findAll` all matches (optionally at
// most n). re2js runs in time linear in the input, so no pattern can backtrack catastrophically, and it accepts RE2
// syntax such as `(?i)` that JavaScript's RegExp rejects.
import type { Environment } from '@marcbachmann/cel-js';
import { RE2JS } from 're2js';
import { setBounded } from '../../api/meta/bounded-map.js';
import { regexCost } from './cost-constants.js';
import { define, defineRerouted } from './define.js';
import { CelLibraryError } from './errors.js';
import { charge } from './runtime-cost.js';

const CACHE_LIMIT = 500;
const cache = new Map<string, RE2JS>();

/** Compiles (and caches) a pattern; throws CelLibraryError without echoing the pattern, which may be data. */
export function compileRegex(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (re) return re;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    throw new CelLibraryError('invalid_argument', 'invalid regular expression');
  }
  setBounded(cache, pattern, re, CACHE_LIMIT);
  return re;
}

/** Whether `pattern` is valid RE2 syntax (used to reject bad literal patterns at compile time). */
export function isValidRegex(pattern: string): boolean {
  try {
    compileRegex(pattern);
    return true;
  } catch {
    return false;
  }
}

export function matches(input: string, pattern: string): boolean {
  charge(regexCost(pattern.length, input.length));
  return compileRegex(pattern).test(input);
}

export function find(input: string, pattern: string): string {
  charge(regexCost(pattern.length, input.length));
  const m = compileRegex(pattern).matcher(input);
  return m.find() ? (m.group() ?? '') : '';
}

export function findAll(input: string, pattern: string, limit = -1n): string[] {
  charge(regexCost(pattern.length, input.length));
  if (limit === 0n) return [];
  const max = limit < 0n ? Infinity : Number(limit);
  const m = compileRegex(pattern).matcher(input);
  const out: string[] = [];
  while (out.length < max && m.find()) out.push(m.group() ?? '');
  return out;
}

export function registerRegexLibrary(env: Environment): void {
  defineRerouted(env, 'string.matches(string): bool', matches);
  defineRerouted(env, 'matches(string, string): bool', matches);
  define(env, 'string.find(string): string', find);
  define(env, 'string.findAll(string): list<string>', (s: string, p: string) => findAll(s, p));
  define(env, 'string.findAll(string, int): list<string>', findAll);
}
