// Compiles the x-kubernetes-validations rules of a CustomResourceDefinition's schemas when it is written, so a rule
// that does not compile is refused with a 422 naming the rule and the position of the problem, as upstream does.
// `self` (and `oldSelf` for transition rules) are declared dynamically typed: their schema types are not carried into
// the type checker yet, and the estimated cost check is left to when custom objects are served.
import type { KObject } from '../../api/meta/types.js';
import { fieldErrors, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
import { asArr, asObj, asStr } from '../../api/common/validation-helpers.js';
import { versionsOf } from '../../api/apiextensions/v1/crd-types.js';
import {
  additionalOf,
  itemsOf,
  MAX_SCHEMA_DEPTH,
  propertiesOf,
  schemaAt,
} from '../../api/apiextensions/v1/schema-props.js';
import { CelCompileError, compileCel, type CelCompiledProgram } from '../../policies/cel/index.js';

const RULE_VARIABLES = { self: 'dyn', oldSelf: 'dyn' };

/** A rule or messageExpression as the definition's validation and the custom kinds' write checks compile it. */
export function compileRuleExpression(expression: string, resultTypes: string[]): CelCompiledProgram {
  return compileCel(expression, { variables: RULE_VARIABLES, resultTypes, escapedPropertyNames: true });
}

function compileProblem(expression: string, resultTypes: string[]): string | undefined {
  try {
    compileRuleExpression(expression, resultTypes);
    return undefined;
  } catch (e) {
    if (e instanceof CelCompileError) return e.message;
    throw e;
  }
}

function rulesAt(raw: unknown, at: FieldPath, depth: number): FieldError[] {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return [];
  const errs: FieldError[] = [];
  asArr(s['x-kubernetes-validations']).forEach((r, i) => {
    const rule = asObj(r) ?? {};
    const ruleAt = at.child('x-kubernetes-validations').index(i);
    const text = asStr(rule.rule) ?? '';
    const problem = text.trim() === '' ? undefined : compileProblem(text, ['bool']);
    if (problem) errs.push(fieldErrors.invalid(ruleAt.child('rule'), text, problem));
    const messageExpression = asStr(rule.messageExpression) ?? '';
    const messageProblem = messageExpression.trim() === '' ? undefined : compileProblem(messageExpression, ['string']);
    if (messageProblem)
      errs.push(fieldErrors.invalid(ruleAt.child('messageExpression'), messageExpression, messageProblem));
  });
  errs.push(...rulesAt(itemsOf(s), at.child('items'), depth + 1));
  for (const [name, child] of propertiesOf(s))
    errs.push(...rulesAt(child, at.child('properties').key(name), depth + 1));
  errs.push(...rulesAt(additionalOf(s), at.child('additionalProperties'), depth + 1));
  return errs;
}

/** The compile errors of every rule and messageExpression in every version's schema. */
export function validationRuleErrors(crd: KObject): FieldError[] {
  return versionsOf(crd).flatMap((v, i) =>
    rulesAt(
      asObj(v.schema)?.openAPIV3Schema,
      FieldPath.root('spec').child('versions').index(i).child('schema').child('openAPIV3Schema'),
      0,
    ),
  );
}
