// Compiles the x-kubernetes-validations rules of a CustomResourceDefinition's schemas when it is written, as upstream
// does: each rule and messageExpression is type checked with `self` (and `oldSelf`) typed from the schema node the
// rule is on, so a rule that does not compile, or names a field the schema lacks, is refused with a 422 naming the
// rule and the position of the problem; its estimated cost, times the number of times it can run for one object, is
// refused over the per-expression budget, and the sum over a schema over the per-definition budget. Objects are
// evaluated with dynamically typed programs (rule-evaluation.ts): their values are plain JSON, which the types
// declared here only describe, but for formatted strings, which rule-values.ts converts to the types declared here.
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
  type JSONSchemaProps,
} from '../../api/apiextensions/v1/schema-props.js';
import {
  CelCompileError,
  compileCel,
  typeCheckCel,
  type CelCompiledProgram,
  type DeclaredSize,
} from '../../policies/cel/index.js';
import { mayYield } from '../../policies/cel/types.js';
import { asRuleSubject, cardinalityOf, declaredSizeOf, ruleSubjectTypes } from './rule-declarations.js';

/** Upstream's StaticEstimatedCostLimit: the largest estimated cost of one expression, times its cardinality. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Upstream's StaticEstimatedCRDCostLimit: the largest estimated cost of all the expressions of one schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** How many of the costliest expressions a refusal over the per-definition budget names, as upstream. */
const MOST_EXPENSIVE_REPORTED = 4;

const RULE_VARIABLES = { self: 'dyn', oldSelf: 'dyn' };

/** Whether a rule reads oldSelf, which makes it a transition rule. */
export const usesOldSelf = (rule: string): boolean => /\boldSelf\b/.test(rule);

/** A rule or messageExpression as the custom kinds' write checks compile it. */
export function compileRuleExpression(
  expression: string,
  resultTypes: string[],
  declaredSizes?: Record<string, DeclaredSize>,
): CelCompiledProgram {
  return compileCel(expression, { variables: RULE_VARIABLES, resultTypes, escapedPropertyNames: true, declaredSizes });
}

/** Upstream's getCostErrorMessage, with Go's %f and %.1f. */
function costErrorMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  const shown = factor > 100 ? 'more than 100x' : factor < 1.5 ? `${factor.toFixed(6)}x` : `${factor.toFixed(1)}x`;
  return (
    `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, maxProperties, ` +
    'and maxLength where arrays, maps, and strings are declared)'
  );
}

/** What a node's rules are checked against. */
interface RuleSubject {
  variables: Record<string, string>;
  objectTypes: ReturnType<typeof ruleSubjectTypes>['objects'];
  sizes: Record<string, DeclaredSize>;
  cardinality: number;
}

/** What every rule of a node is checked against; oldSelf is an optional for rules with optionalOldSelf. */
function subjectsOf(s: JSONSchemaProps, ancestors: readonly JSONSchemaProps[]): (optional: boolean) => RuleSubject {
  const subject = asRuleSubject(s, ancestors.length === 0);
  const types = ruleSubjectTypes(subject);
  const size = declaredSizeOf(subject);
  const sizes: Record<string, DeclaredSize> = size ? { self: size, oldSelf: size } : {};
  const cardinality = cardinalityOf(ancestors);
  return (optional) => ({
    variables: { self: types.type, oldSelf: optional ? `optional<${types.type}>` : types.type },
    objectTypes: types.objects,
    sizes,
    cardinality,
  });
}

/** The compile problem of an expression, or its estimated cost for one object. */
function checkExpression(
  expression: string,
  resultType: string,
  subject: RuleSubject,
): { problem: string } | { cost: number } {
  try {
    const typed = typeCheckCel(expression, {
      variables: subject.variables,
      objectTypes: subject.objectTypes,
      escapedPropertyNames: true,
    });
    if (!mayYield(typed, resultType))
      return { problem: `compilation failed: must evaluate to one of [${resultType}], got ${typed}` };
    const program = compileRuleExpression(expression, [resultType], subject.sizes);
    return {
      cost:
        program.estimatedCost === 0
          ? 0
          : Math.min(Number.MAX_SAFE_INTEGER, program.estimatedCost * subject.cardinality),
    };
  } catch (e) {
    if (e instanceof CelCompileError) return { problem: e.message };
    throw e;
  }
}

interface Walk {
  errs: FieldError[];
  costs: { path: FieldPath; cost: number }[];
}

// The items of a list that is not a map list cannot be paired with their previous version (upstream's correlation;
// fields and map entries pair by name), so no rule there may read oldSelf.
const itemsUncorrelatable = (s: JSONSchemaProps) => s['x-kubernetes-list-type'] !== 'map';

function checkRules(
  s: JSONSchemaProps,
  at: FieldPath,
  ancestors: JSONSchemaProps[],
  uncorrelatable: FieldPath | undefined,
  walk: Walk,
): void {
  const rules = asArr(s['x-kubernetes-validations']);
  if (rules.length === 0) return;
  const subjectFor = subjectsOf(s, ancestors);
  rules.forEach((r, i) => {
    const rule = asObj(r) ?? {};
    const ruleAt = at.child('x-kubernetes-validations').index(i);
    const text = asStr(rule.rule) ?? '';
    const subject = subjectFor(rule.optionalOldSelf === true);
    const expressions: [string, string, string, string][] = [
      ['rule', text, 'bool', 'estimated rule cost'],
      ['messageExpression', asStr(rule.messageExpression) ?? '', 'string', 'estimated messageExpression cost'],
    ];
    for (const [field, expression, resultType, costName] of expressions) {
      if (expression.trim() === '') continue;
      const outcome = checkExpression(expression, resultType, subject);
      if ('problem' in outcome) {
        walk.errs.push(fieldErrors.invalid(ruleAt.child(field), expression, outcome.problem));
        continue;
      }
      if (outcome.cost > STATIC_ESTIMATED_COST_LIMIT)
        walk.errs.push(
          fieldErrors.forbidden(
            ruleAt.child(field),
            costErrorMessage(costName, outcome.cost, STATIC_ESTIMATED_COST_LIMIT),
          ),
        );
      walk.costs.push({ path: ruleAt.child(field), cost: outcome.cost });
    }
    if (uncorrelatable && usesOldSelf(text))
      walk.errs.push(
        fieldErrors.invalid(
          ruleAt.child('rule'),
          text,
          `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable.toString()}`,
        ),
      );
  });
}

function rulesAt(
  raw: unknown,
  at: FieldPath,
  ancestors: JSONSchemaProps[],
  uncorrelatable: FieldPath | undefined,
  walk: Walk,
): void {
  const s = schemaAt(raw);
  if (!s || ancestors.length > MAX_SCHEMA_DEPTH) return;
  checkRules(s, at, ancestors, uncorrelatable, walk);
  const below = [...ancestors, s];
  rulesAt(itemsOf(s), at.child('items'), below, uncorrelatable ?? (itemsUncorrelatable(s) ? at : undefined), walk);
  for (const [name, child] of propertiesOf(s))
    rulesAt(child, at.child('properties').key(name), below, uncorrelatable, walk);
  rulesAt(additionalOf(s), at.child('additionalProperties'), below, uncorrelatable, walk);
}

/** The errors of one version's schema: each expression's, then the per-definition budget's. */
function schemaRuleErrors(raw: unknown, at: FieldPath): FieldError[] {
  const walk: Walk = { errs: [], costs: [] };
  rulesAt(raw, at, [], undefined, walk);
  const total = walk.costs.reduce((sum, c) => Math.min(Number.MAX_SAFE_INTEGER, sum + c.cost), 0);
  if (total <= STATIC_ESTIMATED_CRD_COST_LIMIT) return walk.errs;
  // As upstream, only expressions costing at least 1% of the budget are named.
  const mostExpensive = walk.costs
    .filter((c) => c.cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100)
    .sort((a, b) => b.cost - a.cost)
    .slice(0, MOST_EXPENSIVE_REPORTED);
  return [
    ...walk.errs,
    ...mostExpensive.map((c) =>
      fieldErrors.forbidden(
        c.path,
        'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      ),
    ),
    fieldErrors.forbidden(
      at,
      costErrorMessage(
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
        total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      ),
    ),
  ];
}

/** The compile and cost errors of every rule and messageExpression in every version's schema. */
export function validationRuleErrors(crd: KObject): FieldError[] {
  return versionsOf(crd).flatMap((v, i) =>
    schemaRuleErrors(
      asObj(v.schema)?.openAPIV3Schema,
      FieldPath.root('spec').child('versions').index(i).child('schema').child('openAPIV3Schema'),
    ),
  );
}
