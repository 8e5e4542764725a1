// Schema `pattern`s with upstream's semantics: Go compiles them as RE2, so a pattern matches anywhere in the string
// unless anchored, accepts RE2 syntax such as `(?i)`, refuses what RE2 lacks (lookaround, backreferences), and runs
// in time linear in the input. The last matters most here: a pattern comes from a user's CustomResourceDefinition, and
// a backtracking engine would let `^(a+)+$` and one crafted value stall the event loop.
import { RE2JS } from 're2js';
import { setBounded } from '../meta/bounded-map.js';

/** The shape ajv asks of a regular-expression engine (`code.regExp`), also used by the definition checks. */
export interface PatternMatcher {
  test(text: string): boolean;
  toString(): string;
}

const CACHE_LIMIT = 1000;
const compiled = new Map<string, PatternMatcher>();

/** Compiles `pattern` as RE2 (cached); throws Go's message (`error parsing regexp: ...`) when it does not compile. */
export function re2Pattern(pattern: string): PatternMatcher {
  let matcher = compiled.get(pattern);
  if (matcher) return matcher;
  const re = RE2JS.compile(pattern);
  matcher = { test: (text) => re.matcher(text).find(), toString: () => `re2:${pattern}` };
  setBounded(compiled, pattern, matcher, CACHE_LIMIT);
  return matcher;
}

/** The RE2 compile error of `pattern`, or undefined when it compiles. */
export function re2PatternError(pattern: string): string | undefined {
  try {
    re2Pattern(pattern);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
