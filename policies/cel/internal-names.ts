// The library (@marcbachmann/cel-js) already defines some functions with semantics that differ from cel-go's
// (`matches` uses JavaScript RegExp instead of RE2, `lowerAscii` lowers non-ASCII letters, string indexes count UTF-16
// units instead of code points) and refuses a second definition of the same overload. We therefore register our
// versions under internal names and rename the calls in each parsed expression before type checking. An expression
// that spells an internal name itself only reaches the same implementation, so nothing is exposed by it.

export const INTERNAL_PREFIX = 'gh__';

/** Method and global function names whose calls are routed to our own implementations. */
export const REROUTED_FUNCTIONS = new Set([
  'matches',
  'lowerAscii',
  'upperAscii',
  'indexOf',
  'lastIndexOf',
  'substring',
  'split',
  'join',
  'trim',
]);

export function internalName(name: string): string {
  return `${INTERNAL_PREFIX}${name}`;
}

/** Removes the internal prefix from messages, so errors show the names the author wrote. */
export function displayName(message: string): string {
  return message.split(INTERNAL_PREFIX).join('');
}
