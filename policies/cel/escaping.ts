// Property-name escaping: only property names matching
// `[a-zA-Z_.-/][a-zA-Z0-9_.-/]*` are reachable by field selection, written with `__underscores__` for `__`,
// `__dot__` for `.`, `__dash__` for `-`, `__slash__` for `/`, and `__{keyword}__` for a property whose whole name is
// a reserved word. Maps with arbitrary keys stay reachable by index (`m["a.b"]`) without escaping.
import type { CelNode } from './ast.js';
import { walk } from './ast.js';

/** CEL's reserved words: the language keywords plus the words reserved for future use. */
export const CEL_RESERVED_KEYWORDS: ReadonlySet<string> = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

const ESCAPABLE = /^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/;
const ESCAPES: Record<string, string> = { __: '__underscores__', '.': '__dot__', '-': '__dash__', '/': '__slash__' };
const UNESCAPES: Record<string, string> = { underscores: '__', dot: '.', dash: '-', slash: '/' };

/** The identifier an expression uses for `name`, or null when the name cannot be reached by field selection. */
export function escapePropertyName(name: string): string | null {
  if (CEL_RESERVED_KEYWORDS.has(name)) return `__${name}__`;
  if (!ESCAPABLE.test(name)) return null;
  return name.replace(/__|[.\-/]/g, (m) => ESCAPES[m]);
}

/** The property name an escaped identifier stands for. */
export function unescapePropertyName(identifier: string): string {
  const keyword = /^__([a-z]+)__$/.exec(identifier);
  if (keyword && CEL_RESERVED_KEYWORDS.has(keyword[1])) return keyword[1];
  return identifier.replace(/__(underscores|dot|dash|slash)__/g, (_m, word: string) => UNESCAPES[word]);
}

/** Rewrites every field selection (`a.b`, `a.?b`, and inside `has()`) to the unescaped property name. */
export function unescapeFieldSelections(root: CelNode): void {
  walk(root, (node) => {
    if ((node.op === '.' || node.op === '.?') && typeof node.args[1] === 'string') {
      node.args[1] = unescapePropertyName(node.args[1]);
    }
  });
}
