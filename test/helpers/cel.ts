// Shorthands for the CEL unit tests: compile with declared variables and evaluate in one call.
import { compileCel, type CelCompileOptions } from '../../policies/cel/index.js';

export function celEval(
  expression: string,
  activation: Record<string, unknown> = {},
  options: Partial<CelCompileOptions> = {},
): unknown {
  const variables = options.variables ?? Object.fromEntries(Object.keys(activation).map((k) => [k, 'dyn']));
  return compileCel(expression, { resultTypes: ['dyn'], ...options, variables }).evaluate(activation);
}

/** The message of what `fn` throws (fails the test when nothing is thrown). */
export function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error, nothing was thrown');
}
