// Compiles every CEL expression of a ValidatingAdmissionPolicy against the admission environment: at write time, to
// refuse a policy whose expressions do not compile (422 naming the field), and in the plugin, once per policy
// version. The environment declares what upstream's does: object, oldObject, request, params, namespaceObject,
// variables and authorizer.
import type { KObject } from '../../../api/meta/types.js';
import type { FieldError, FieldPath } from '../../../api/meta/field-errors.js';
import { asArr, asObj, asStr, root, specOf } from '../../../api/common/validation-helpers.js';
import { AUTHORIZER_TYPE, type CelCompiledProgram } from '../../../policies/cel/index.js';
import { compileAdmissionExpression, compileNamedExpressions } from '../admission-expressions.js';

/** Upstream's celconfig.RuntimeCELCostBudget: what all expressions of one policy evaluation may spend together. */
export const RUNTIME_COST_BUDGET = 10_000_000;

const VARIABLES: Record<string, string> = {
  object: 'dyn',
  oldObject: 'dyn',
  request: 'map<string, dyn>',
  params: 'dyn',
  namespaceObject: 'dyn',
  variables: 'map<string, dyn>',
  authorizer: AUTHORIZER_TYPE,
};

export interface CompiledValidation {
  program: CelCompiledProgram;
  message?: string;
  messageExpression?: CelCompiledProgram;
  reason?: string;
}

export interface CompiledPolicy {
  name: string;
  generation: number;
  failurePolicy: 'Fail' | 'Ignore';
  paramKind?: { apiVersion: string; kind: string };
  matchConstraints: Record<string, unknown>;
  matchConditions: { name: string; program: CelCompiledProgram }[];
  variables: { name: string; program: CelCompiledProgram }[];
  validations: CompiledValidation[];
  auditAnnotations: { key: string; program: CelCompiledProgram }[];
}

/** A compiled policy, or the field errors of the expressions that did not compile. */
export function compilePolicy(policy: KObject): { compiled?: CompiledPolicy; errors: FieldError[] } {
  const spec = specOf(policy);
  const at = root('spec');
  const errors: FieldError[] = [];
  const compile = (expression: unknown, field: FieldPath, resultTypes: string[]) =>
    compileAdmissionExpression(expression, field, VARIABLES, resultTypes, errors);
  const named = (list: unknown, field: string, name: string, expression: string, types: string[]) =>
    compileNamedExpressions(list, at.child(field), { name, expression }, VARIABLES, types, errors);
  const matchConditions = named(spec.matchConditions, 'matchConditions', 'name', 'expression', ['bool']);
  const variables = named(spec.variables, 'variables', 'name', 'expression', ['dyn']);
  const auditAnnotations = named(spec.auditAnnotations, 'auditAnnotations', 'key', 'valueExpression', [
    'string',
    'dyn',
  ]).map(({ name, program }) => ({ key: name, program }));
  const validations = asArr(spec.validations).flatMap((raw, i): CompiledValidation[] => {
    const v = asObj(raw) ?? {};
    const vAt = at.child('validations').index(i);
    const program = compile(v.expression, vAt.child('expression'), ['bool']);
    const messageExpression =
      v.messageExpression === undefined
        ? undefined
        : compile(v.messageExpression, vAt.child('messageExpression'), ['string']);
    return program ? [{ program, message: asStr(v.message), messageExpression, reason: asStr(v.reason) }] : [];
  });
  if (errors.length > 0) return { errors };
  const paramKind = asObj(spec.paramKind);
  return {
    errors,
    compiled: {
      name: policy.metadata.name ?? '',
      generation: policy.metadata.generation ?? 0,
      failurePolicy: spec.failurePolicy === 'Ignore' ? 'Ignore' : 'Fail',
      paramKind: paramKind
        ? { apiVersion: asStr(paramKind.apiVersion) ?? '', kind: asStr(paramKind.kind) ?? '' }
        : undefined,
      matchConstraints: asObj(spec.matchConstraints) ?? {},
      matchConditions,
      variables,
      validations,
      auditAnnotations,
    },
  };
}

/**
 * Upstream's type-checking warnings, reduced to what an untyped environment can tell: an expression that reads
 * `params` while the policy declares no paramKind can only fail at run time.
 */
export function typeCheckWarnings(policy: KObject): { fieldRef: string; warning: string }[] {
  const spec = specOf(policy);
  if (asObj(spec.paramKind)) return [];
  const warnings: { fieldRef: string; warning: string }[] = [];
  const check = (expression: unknown, fieldRef: string) => {
    if (/\bparams\b/.test(asStr(expression) ?? ''))
      warnings.push({
        fieldRef,
        warning: 'undefined field or variable: params is only defined when spec.paramKind is set',
      });
  };
  asArr(spec.validations).forEach((v, i) => {
    check(asObj(v)?.expression, `spec.validations[${i}].expression`);
    check(asObj(v)?.messageExpression, `spec.validations[${i}].messageExpression`);
  });
  asArr(spec.auditAnnotations).forEach((a, i) =>
    check(asObj(a)?.valueExpression, `spec.auditAnnotations[${i}].valueExpression`),
  );
  asArr(spec.variables).forEach((v, i) => check(asObj(v)?.expression, `spec.variables[${i}].expression`));
  asArr(spec.matchConditions).forEach((c, i) => check(asObj(c)?.expression, `spec.matchConditions[${i}].expression`));
  return warnings;
}
