// Error types of the expression environment, and the translation of the library's errors into them. Messages name
// the problem and, for compile errors, the position in the expression; they never carry activation data (claims,
// request bodies, tokens), so an error may be logged or returned to a client as is.
import { EvaluationError, ParseError, TypeError as CelTypeError } from '@marcbachmann/cel-js';
import { displayName } from './internal-names.js';

export class CelCompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelCompileError';
  }
}

export class CelEvaluationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CelEvaluationError';
  }
}

/** The message cel-go and kube-apiserver give when an evaluation runs over its runtime cost budget. */
export const COST_LIMIT_EXCEEDED_MESSAGE = 'operation cancelled: actual cost limit exceeded';

/**
 * Thrown by our library functions. It extends the library's EvaluationError so the evaluator attaches the position,
 * and it marks the message as written by us without data from the activation.
 */
export class CelLibraryError extends EvaluationError {
  constructor(code: string, message: string) {
    super({ code, message });
  }
}

/** Thrown by the cost meter; a plain Error so the evaluator passes it through untouched. */
export class CostLimitError extends Error {
  constructor() {
    super(COST_LIMIT_EXCEEDED_MESSAGE);
    this.name = 'CostLimitError';
  }
}

// Library error codes whose summaries only name types, variables or operators from the expression, never values.
const TYPE_ONLY_CODES = new Set([
  'no_such_overload',
  'no_matching_overload',
  'unknown_variable',
  'variable_type_mismatch',
  'invalid_logical_operand',
  'invalid_condition_type',
  'division_by_zero',
  'modulo_by_zero',
  'invalid_comprehension_range',
  'unsupported_type',
  'heterogeneous_list_element',
  'heterogeneous_map_key',
  'heterogeneous_map_value',
  'incompatible_ternary_branches',
]);

interface LocatedError {
  code?: string;
  summary?: string;
  message: string;
  node?: { op?: string; args?: unknown; pos?: number; input?: string };
  range?: { start: number; end: number };
}

/** Turns anything an evaluation throws into a CelEvaluationError whose message holds no activation data. */
export function toEvaluationError(error: unknown): CelEvaluationError {
  if (error instanceof CelEvaluationError) return error;
  if (error instanceof CostLimitError) return new CelEvaluationError(COST_LIMIT_EXCEEDED_MESSAGE);
  if (error instanceof CelLibraryError) return new CelEvaluationError(displayName(error.summary));
  if (error instanceof EvaluationError) {
    const e = error as unknown as LocatedError;
    const code = e.code ?? 'evaluation_error';
    if (TYPE_ONLY_CODES.has(code)) return new CelEvaluationError(displayName(e.summary ?? code));
    if (code === 'no_such_key') {
      // A `.field` selection names its key in the expression itself; a `[key]` index may come from the data.
      const node = e.node;
      const field = (node?.op === '.' || node?.op === '.?') && Array.isArray(node.args) ? node.args[1] : undefined;
      return new CelEvaluationError(typeof field === 'string' ? `no such key: ${field}` : 'no such key');
    }
    return new CelEvaluationError(code.replace(/_/g, ' '));
  }
  // A defect in a library function: say so without echoing anything that might hold data.
  return new CelEvaluationError('internal error while evaluating the expression');
}

/** Formats a parse or type-check error like cel-go: `ERROR: <input>:line:column: summary` plus the caret lines. */
export function toCompileError(error: unknown, expression: string): CelCompileError {
  if (error instanceof CelCompileError) return error;
  if (error instanceof ParseError || error instanceof CelTypeError) {
    const e = error as unknown as LocatedError;
    let summary = displayName(e.summary ?? e.message);
    // cel-go's wording, which kube-apiserver returns for an undeclared variable.
    const unknown = e.code === 'unknown_variable' ? /Unknown variable: (.*)$/.exec(summary) : null;
    if (unknown) summary = `undeclared reference to '${unknown[1]}' (in container '')`;
    // cel-go's wording for a selection an object type does not declare.
    const field = e.code === 'no_such_key' ? /No such key: (.*)$/.exec(summary) : null;
    let pos = e.range?.start ?? e.node?.pos;
    if (field) {
      summary = `undefined field '${field[1]}'`;
      // cel-go places a selection at its dot, the library at the field name.
      while (typeof pos === 'number' && pos > 0 && '.?'.includes(expression[pos - 1])) pos--;
    }
    return compileErrorAt(summary, pos, expression);
  }
  return new CelCompileError(`compilation failed: ${error instanceof Error ? error.message : String(error)}`);
}

/** A compile error at a position of the expression, with the line and a caret under the position. */
export function compileErrorAt(summary: string, pos: number | undefined, expression: string): CelCompileError {
  if (typeof pos !== 'number') return new CelCompileError(`compilation failed: ERROR: <input>: ${summary}`);
  const before = expression.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - (before.lastIndexOf('\n') + 1);
  const text = expression.split('\n')[line - 1] ?? '';
  return new CelCompileError(
    `compilation failed: ERROR: <input>:${line}:${column + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(column)}^`,
  );
}
