// The one expression environment for every place the spec uses CEL (authorization webhook matchConditions, OIDC claim
// mappings and validation rules, later validation rules of user-defined types). Callers compile once, when the
// configuration that holds the expression loads, and evaluate per request.
//
// Contract for callers:
// - compileCel throws CelCompileError (message names the problem and position) for syntax errors, undeclared
//   variables, a result type other than the ones allowed, or an estimated cost above the limit.
// - evaluate takes plain JSON-like values (numbers, strings, booleans, arrays, objects) and returns plain values:
//   bool → boolean, string → string, int/uint → number (bigint when beyond Number.MAX_SAFE_INTEGER), double → number,
//   list → array, map → object; it throws CelEvaluationError (never leaking the activation) on errors, including a
//   runtime cost budget being exceeded.
import { Environment } from '@marcbachmann/cel-js';

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

export interface CelCompileOptions {
  /** Declared variables, name → CEL type (`bool`, `string`, `map<string, dyn>`, `dyn`, `list<string>`...). */
  variables: Record<string, string>;
  /** The types the expression may yield (for example `['bool']`, or `['string', 'list<string>']`). */
  resultTypes: string[];
  /** Reject at compile time an expression whose estimated cost is above this. */
  maxEstimatedCost?: number;
  /** Halt an evaluation that spends more than this (cost units). */
  runtimeCostBudget?: number;
}

export interface CelProgram {
  readonly expression: string;
  /** The checked type of the expression (one of resultTypes, or `dyn`). */
  readonly resultType: string;
  evaluate(activation: Record<string, unknown>): unknown;
}

function toPlain(value: unknown): unknown {
  if (typeof value === 'bigint') return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), toPlain(v)]));
  return value;
}

export function compileCel(expression: string, options: CelCompileOptions): CelProgram {
  const env = new Environment({ unlistedVariablesAreDyn: false });
  for (const [name, type] of Object.entries(options.variables)) env.registerVariable(name, type);
  let parsed;
  try {
    parsed = env.parse(expression);
  } catch (e) {
    throw new CelCompileError(`compilation failed: ${(e as Error).message}`);
  }
  const checked = parsed.check();
  if (!checked.valid) throw new CelCompileError(`compilation failed: ${checked.error?.message ?? 'type check failed'}`);
  const resultType = checked.type ?? 'dyn';
  if (resultType !== 'dyn' && !options.resultTypes.includes(resultType)) {
    throw new CelCompileError(`must evaluate to one of [${options.resultTypes.join(', ')}], got ${resultType}`);
  }
  return {
    expression,
    resultType,
    evaluate(activation) {
      try {
        return toPlain(parsed(activation));
      } catch (e) {
        throw new CelEvaluationError((e as Error).message);
      }
    },
  };
}
