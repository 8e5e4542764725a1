// Evaluates one compiled policy for one binding and one param against one request: matchConditions, then the
// validations and audit annotations, under upstream's per-expression limit and the policy-wide runtime budget.
// Variables are evaluated lazily, once per evaluation: an expression reads only those it names, and a variable that
// fails fails only the expressions that read it, as upstream's lazy variable map behaves.
import type { UserInfo } from '../../../api/meta/user.js';
import type { Authorizer } from '../../../policies/authorizer.js';
import {
  COST_LIMIT_EXCEEDED_MESSAGE,
  evaluateWithAuthorizer,
  type CelAuthorizer,
  type CelCompiledProgram,
} from '../../../policies/cel/index.js';
import type { ResourceCheckParts } from '../../../policies/cel/authorizer-library.js';
import type { CompiledPolicy } from './compile-policy.js';
import { RUNTIME_COST_BUDGET } from './compile-policy.js';

export interface Decision {
  /** deny: the validation failed, or an error under failurePolicy Fail. */
  action: 'admit' | 'deny';
  evaluation: 'admit' | 'deny' | 'error';
  /** An error that was the runtime cost budget running out (the metrics tell it apart). */
  outOfBudget?: boolean;
  message: string;
  reason?: string;
  expressionIndex: number;
  elapsedSeconds: number;
}

export interface PolicyOutcome {
  decisions: Decision[];
  /** `<key>` → value, for the audit annotations that evaluated to a string. */
  auditAnnotations: Map<string, string>;
  /** Set when a matchCondition was false: the policy does not apply. */
  skipped: boolean;
}

export interface Activation {
  object: unknown;
  oldObject: unknown;
  request: Record<string, unknown>;
  params: unknown;
  namespaceObject: unknown;
}

class BudgetExceeded extends Error {}

const VARIABLE_REFERENCE = /\bvariables\.([_a-zA-Z][_a-zA-Z0-9]*)/g;

/** The variable names a program's text reads, found once per compiled program rather than at every evaluation. */
const referencedVariables = new WeakMap<CelCompiledProgram, readonly string[]>();

function variablesReadBy(program: CelCompiledProgram): readonly string[] {
  let names = referencedVariables.get(program);
  if (!names) {
    names = [...new Set(Array.from(program.expression.matchAll(VARIABLE_REFERENCE), (m) => m[1]))];
    referencedVariables.set(program, names);
  }
  return names;
}

/** Errors evaluate under failurePolicy: a Fail policy denies with upstream's wording, an Ignore one admits. */
function errorDecision(policy: CompiledPolicy, expression: string, error: unknown, index: number): Decision {
  const message = `expression '${expression}' resulted in error: ${(error as Error).message}`;
  return {
    action: policy.failurePolicy === 'Fail' ? 'deny' : 'admit',
    evaluation: 'error',
    message,
    expressionIndex: index,
    elapsedSeconds: 0,
    outOfBudget: error instanceof BudgetExceeded || (error as Error).message.includes(COST_LIMIT_EXCEEDED_MESSAGE),
  };
}

export async function evaluatePolicy(
  policy: CompiledPolicy,
  base: Activation,
  user: UserInfo | undefined,
  authorizer: Authorizer | undefined,
  /** What `authorizer.requestResource` checks: the request's group, resource, subresource, namespace and name. */
  requestResource?: ResourceCheckParts,
): Promise<PolicyOutcome> {
  let spent = 0;
  const variableValues = new Map<string, { value?: unknown; error?: Error }>();
  const variableDefs = new Map(policy.variables.map((v) => [v.name, v.program]));

  function run(program: CelCompiledProgram, authorizerValue: CelAuthorizer | undefined): unknown {
    const variables: Record<string, unknown> = {};
    for (const name of variablesReadBy(program)) {
      const v = variableOf(name, authorizerValue);
      if (v === undefined) continue;
      if (v.error !== undefined) throw v.error;
      variables[name] = v.value;
    }
    const { value, cost } = program.evaluateWithCost({ ...base, variables, authorizer: authorizerValue });
    spent += cost;
    if (spent > RUNTIME_COST_BUDGET)
      throw new BudgetExceeded(
        'validation failed due to running out of cost budget, no further validation rules will be run',
      );
    return value;
  }

  function variableOf(name: string, authorizerValue: CelAuthorizer | undefined) {
    const cached = variableValues.get(name);
    if (cached) return cached;
    const program = variableDefs.get(name);
    if (!program) return undefined;
    // A variable reading itself, directly or through another, errors instead of looping.
    variableValues.set(name, { error: new Error(`composited variable "${name}" refers to itself`) });
    let result: { value?: unknown; error?: Error };
    try {
      result = { value: run(program, authorizerValue) };
    } catch (error) {
      result = { error: error instanceof Error ? error : new Error(String(error)) };
    }
    variableValues.set(name, result);
    return result;
  }

  async function evaluate(program: CelCompiledProgram): Promise<unknown> {
    const started = performance.now();
    try {
      if (!user || !authorizer) return run(program, undefined);
      return await evaluateWithAuthorizer(
        authorizer,
        user,
        (authorizerValue) => {
          // Each pre-resolution round starts the variables over: a placeholder answer must not stay cached.
          variableValues.clear();
          return run(program, authorizerValue);
        },
        undefined,
        requestResource,
      );
    } finally {
      lastElapsed = (performance.now() - started) / 1000;
    }
  }
  let lastElapsed = 0;

  const outcome: PolicyOutcome = { decisions: [], auditAnnotations: new Map(), skipped: false };
  // A false condition skips the policy even when another one failed: only with none false does an error count.
  let conditionError: Decision | undefined;
  for (const condition of policy.matchConditions) {
    try {
      if ((await evaluate(condition.program)) !== true) return { ...outcome, skipped: true };
    } catch (error) {
      conditionError ??= errorDecision(policy, condition.program.expression, error, 0);
    }
  }
  if (conditionError) {
    outcome.decisions.push(conditionError);
    return outcome;
  }
  for (const [index, validation] of policy.validations.entries()) {
    let passed: unknown;
    try {
      passed = await evaluate(validation.program);
    } catch (error) {
      outcome.decisions.push({
        ...errorDecision(policy, validation.program.expression, error, index),
        elapsedSeconds: lastElapsed,
      });
      if (error instanceof BudgetExceeded) return outcome;
      continue;
    }
    if (passed === true) {
      outcome.decisions.push({
        action: 'admit',
        evaluation: 'admit',
        message: '',
        expressionIndex: index,
        elapsedSeconds: lastElapsed,
      });
      continue;
    }
    let message = validation.message ?? `failed expression: ${validation.program.expression}`;
    if (validation.messageExpression) {
      // A messageExpression that fails or yields an empty or multi-line string falls back to the message.
      try {
        const value = await evaluate(validation.messageExpression);
        if (typeof value === 'string' && value.trim() !== '' && !/[\r\n]/.test(value)) message = value.trim();
      } catch {
        // fall back to message
      }
    }
    outcome.decisions.push({
      action: 'deny',
      evaluation: 'deny',
      message,
      reason: validation.reason ?? 'Invalid',
      expressionIndex: index,
      elapsedSeconds: lastElapsed,
    });
  }
  for (const annotation of policy.auditAnnotations) {
    try {
      const value = await evaluate(annotation.program);
      if (typeof value === 'string') outcome.auditAnnotations.set(annotation.key, value);
      else if (value !== null && value !== undefined)
        throw new Error(`valueExpression '${annotation.program.expression}' resulted in unsupported return type`);
    } catch (error) {
      outcome.decisions.push(errorDecision(policy, annotation.program.expression, error, 0));
    }
  }
  return outcome;
}
