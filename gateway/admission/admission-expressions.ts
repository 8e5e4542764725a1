// Compiling the CEL expressions of admissionregistration's kinds, shared by ValidatingAdmissionPolicy (policy/) and
// the webhook configurations: at write time, to refuse an expression that does not compile with a 422 naming the
// field and the position, and where the expressions are evaluated. Each kind declares its own environment.
import type { KObject } from '../../api/meta/types.js';
import { fieldErrors, type FieldError, type FieldPath } from '../../api/meta/field-errors.js';
import { asArr, asObj, asStr, root } from '../../api/common/validation-helpers.js';
import { AUTHORIZER_TYPE, CelCompileError, compileCel, type CelCompiledProgram } from '../../policies/cel/index.js';

/** Upstream's celconfig.PerCallLimit: what one expression may spend at run time. */
export const PER_CALL_LIMIT = 1_000_000;

/** Upstream's webhook matchConditions environment: no params, no namespaceObject, no variables. */
export const WEBHOOK_MATCH_CONDITION_VARIABLES: Record<string, string> = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'map<string, dyn>',
  authorizer: AUTHORIZER_TYPE,
};

export interface NamedProgram {
  name: string;
  program: CelCompiledProgram;
}

/** The program of one expression, or undefined with its error pushed on `errors`; a blank one is the kind's to refuse. */
export function compileAdmissionExpression(
  expression: unknown,
  field: FieldPath,
  variables: Record<string, string>,
  resultTypes: string[],
  errors: FieldError[],
): CelCompiledProgram | undefined {
  const text = asStr(expression) ?? '';
  if (text.trim() === '') return undefined;
  try {
    return compileCel(text, {
      variables,
      resultTypes,
      runtimeCostBudget: PER_CALL_LIMIT,
      checkResultAtRuntime: !resultTypes.includes('dyn'),
    });
  } catch (e) {
    if (!(e instanceof CelCompileError)) throw e;
    errors.push(fieldErrors.invalid(field, text, e.message));
    return undefined;
  }
}

/** A list of `{<nameKey>, <exprKey>}` items (match conditions, variables...), compiled in order. */
export function compileNamedExpressions(
  list: unknown,
  at: FieldPath,
  keys: { name: string; expression: string },
  variables: Record<string, string>,
  resultTypes: string[],
  errors: FieldError[],
): NamedProgram[] {
  return asArr(list).flatMap((raw, i) => {
    const item = asObj(raw) ?? {};
    const program = compileAdmissionExpression(
      item[keys.expression],
      at.index(i).child(keys.expression),
      variables,
      resultTypes,
      errors,
    );
    return program ? [{ name: asStr(item[keys.name]) ?? '', program }] : [];
  });
}

/** One webhook's matchConditions (`webhook` is an item of a configuration's `webhooks`, found at `at`). */
export function compileWebhookMatchConditions(
  webhook: unknown,
  at: FieldPath,
): { conditions: NamedProgram[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const conditions = compileNamedExpressions(
    asObj(webhook)?.matchConditions,
    at.child('matchConditions'),
    { name: 'name', expression: 'expression' },
    WEBHOOK_MATCH_CONDITION_VARIABLES,
    ['bool'],
    errors,
  );
  return { conditions, errors };
}

/** The compile errors of every webhook's matchConditions in a Validating- or MutatingWebhookConfiguration. */
export function webhookConfigurationExpressionErrors(configuration: KObject): FieldError[] {
  return asArr(configuration.webhooks).flatMap(
    (hook, i) => compileWebhookMatchConditions(hook, root('webhooks').index(i)).errors,
  );
}
