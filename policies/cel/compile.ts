// compileCel: parse → rewrite (rerouted functions, escaped names) → type check against the declared variables →
// require one of the allowed result types → reject invalid literal regular expressions → estimate the cost against
// the limit → instrument the runtime cost meter. The returned program converts the activation to CEL values,
// evaluates under the runtime budget and converts the result back to plain values.
import type { CelNode } from './ast.js';
import { DEFAULT_MAX_VALUE_SIZE, DEFAULT_RUNTIME_COST_BUDGET } from './cost-constants.js';
import { estimateCost, type DeclaredSize } from './cost-estimate.js';
import { createCelEnvironment } from './environment.js';
import { CelCompileError, CelEvaluationError, compileErrorAt, toCompileError, toEvaluationError } from './errors.js';
import { unescapeFieldSelections } from './escaping.js';
import { isValidRegex } from './regex-library.js';
import { literalPatterns, rerouteFunctions } from './rewrite.js';
import { instrumentRuntimeCost, runMetered } from './runtime-cost.js';
import { mayYield, normalizeTypeName, runtimeTypeName, valueIsOfType } from './types.js';
import { toCelActivation, toPlain } from './values.js';
import type { CelObjectType } from './schema-types.js';

export interface CelCompileOptions {
  /** Declared variables, name → CEL type (`bool`, `string`, `map<string, dyn>`, `dyn`, `list<string>`...). */
  variables: Record<string, string>;
  /** The types the expression may yield (for example `['bool']`, or `['string', 'list<string>']`). */
  resultTypes: string[];
  /** Reject at compile time an expression whose estimated cost is above this. */
  maxEstimatedCost?: number;
  /** Halt an evaluation that spends more than this (cost units). Default 1,000,000 (kube's per-expression limit). */
  runtimeCostBudget?: number;
  /**
   * When the checked type is gradual (`dyn`), the value is checked against resultTypes after evaluation (default). A
   * caller that checks results itself, with its own messages, turns this off.
   */
  checkResultAtRuntime?: boolean;
  /**
   * Size assumed by the cost estimate for a string, list or map whose size the expression does not fix.
   * Default 3 MiB (the request size limit), as kube-apiserver assumes for unbounded values.
   */
  maxValueSize?: number;
  /** What the cost estimate may assume of some variables' sizes (from a schema), instead of maxValueSize. */
  declaredSizes?: Record<string, DeclaredSize>;
  /**
   * Field selections use the spec's escaped property names (`self.foo__dot__bar` reads property `foo.bar`,
   * `self.__namespace__` reads `namespace`). For fields whose variables are typed objects (validation rules);
   * leave off for plain maps such as OIDC claims, which are indexed (`claims["foo.bar"]`) instead.
   */
  escapedPropertyNames?: boolean;
}

export interface CelProgram {
  readonly expression: string;
  /**
   * The checked type of the expression: one of resultTypes, or a less specific type (`dyn`, `list<dyn>`...) whose
   * value evaluate checks against resultTypes at run time.
   */
  readonly resultType: string;
  evaluate(activation: Record<string, unknown>): unknown;
}

/** What compileCel returns: a CelProgram that also reports costs. */
export interface CelCompiledProgram extends CelProgram {
  /** The static cost estimate (an upper bound under maxValueSize). */
  readonly estimatedCost: number;
  /** The runtime budget evaluations run under. */
  readonly runtimeCostBudget: number;
  /** Like evaluate, also reporting the cost units spent (to sum against a budget over several expressions). */
  evaluateWithCost(activation: Record<string, unknown>): { value: unknown; cost: number };
}

interface ParsedExpression {
  (context: Record<string, unknown>): unknown;
  ast: CelNode;
  check(): { valid: boolean; type?: string; error?: unknown };
}

/** Parses, rewrites and type checks; throws CelCompileError. */
function parseAndCheck(
  expression: string,
  variables: Record<string, string>,
  objectTypes: readonly CelObjectType[],
  escapedPropertyNames: boolean,
): { parsed: ParsedExpression; resultType: string } {
  if (typeof expression !== 'string') throw new CelCompileError('compilation failed: expression must be a string');
  let env;
  try {
    env = createCelEnvironment(variables, objectTypes);
  } catch (e) {
    throw new CelCompileError(`compilation failed: invalid variable declaration: ${(e as Error).message}`);
  }
  let parsed: ParsedExpression;
  try {
    parsed = env.parse(expression) as unknown as ParsedExpression;
  } catch (e) {
    throw toCompileError(e, expression);
  }
  rerouteFunctions(parsed.ast);
  if (escapedPropertyNames) unescapeFieldSelections(parsed.ast);

  const checked = parsed.check();
  if (!checked.valid) throw toCompileError(checked.error, expression);
  return { parsed, resultType: normalizeTypeName(checked.type ?? 'dyn') };
}

/**
 * Type checks an expression against variables that may be of object types declared from schemas
 * (schema-types.ts), without building a program: the checked type, or a CelCompileError naming the problem and its
 * position (`undefined field 'foo'`, `no such overload`...).
 */
export function typeCheckCel(
  expression: string,
  declarations: {
    variables: Record<string, string>;
    objectTypes: readonly CelObjectType[];
    /** As CelCompileOptions.escapedPropertyNames. */
    escapedPropertyNames?: boolean;
  },
): string {
  return parseAndCheck(
    expression,
    declarations.variables,
    declarations.objectTypes,
    declarations.escapedPropertyNames ?? false,
  ).resultType;
}

export function compileCel(expression: string, options: CelCompileOptions): CelCompiledProgram {
  const { parsed, resultType } = parseAndCheck(
    expression,
    options.variables,
    [],
    options.escapedPropertyNames ?? false,
  );
  if (!options.resultTypes.some((t) => mayYield(resultType, t))) {
    throw new CelCompileError(
      `compilation failed: must evaluate to one of [${options.resultTypes.join(', ')}], got ${resultType}`,
    );
  }

  for (const { pattern, node } of literalPatterns(parsed.ast)) {
    if (!isValidRegex(pattern)) {
      throw compileErrorAt('invalid regular expression', node.pos, expression);
    }
  }

  const estimatedCost = estimateCost(parsed.ast, options.maxValueSize ?? DEFAULT_MAX_VALUE_SIZE, options.declaredSizes);
  if (options.maxEstimatedCost !== undefined && estimatedCost > options.maxEstimatedCost) {
    throw new CelCompileError(
      `compilation failed: estimated cost ${estimatedCost} exceeds the limit of ${options.maxEstimatedCost} ` +
        '(try simplifying the expression, or bounding the size of the lists and strings it ranges over)',
    );
  }

  instrumentRuntimeCost(parsed.ast);
  const budget = options.runtimeCostBudget ?? DEFAULT_RUNTIME_COST_BUDGET;
  const exact =
    options.checkResultAtRuntime === false || (resultType !== 'dyn' && options.resultTypes.includes(resultType));

  function evaluateWithCost(activation: Record<string, unknown>): { value: unknown; cost: number } {
    let outcome: { value: unknown; cost: number };
    try {
      outcome = runMetered(budget, () => parsed(toCelActivation(activation)));
    } catch (e) {
      throw toEvaluationError(e);
    }
    const { value, cost } = outcome;
    if (value instanceof Promise) {
      // Only async functions could produce one, and none are registered.
      value.catch(() => undefined);
      throw new CelEvaluationError('internal error: the expression did not evaluate synchronously');
    }
    if (!exact && !options.resultTypes.some((t) => valueIsOfType(value, t))) {
      throw new CelEvaluationError(
        `expression must evaluate to one of [${options.resultTypes.join(', ')}], got ${runtimeTypeName(value)}`,
      );
    }
    return { value: toPlain(value), cost };
  }

  return {
    expression,
    resultType,
    estimatedCost,
    runtimeCostBudget: budget,
    evaluateWithCost,
    evaluate: (activation) => evaluateWithCost(activation).value,
  };
}
