// The x-kubernetes-validations rules of a custom kind's schema, compiled once per definition version and evaluated
// at every write as upstream's CEL validator does: each rule with `self` bound to the value at its schema node, a
// failure reported at the node (or its fieldPath) with the rule's message, messageExpression or `failed rule:
// <rule>`, under the rule's reason, and the node's schema type as the invalid value.
//
// On an update each value is paired with its old one (fields and map entries by name, items of map lists by their
// keys): transition rules (reading `oldSelf`) run only where an old value exists, unless optionalOldSelf makes oldSelf
// an optional that is empty on create; and a rule that does not read oldSelf and fails on a value unchanged from the
// old one does not fail the update but is answered as a warning, `<field>: <error>` as the error would read
// (ratcheting, as CRDValidationRatcheting). Each evaluation may spend the per-call limit, and all of one object's the
// runtime budget; past either, no further rule runs.
import { isObject, type KObject } from '../../api/meta/types.js';
import { fieldErrorMessage, fieldErrors, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
import { asArr, asObj, asStr } from '../../api/common/validation-helpers.js';
import {
  additionalOf,
  itemsOf,
  MAX_SCHEMA_DEPTH,
  propertiesOf,
  schemaAt,
  type JSONSchemaProps,
} from '../../api/apiextensions/v1/schema-props.js';
import { parseFieldPath } from '../../api/apiextensions/v1/json-path.js';
import { correlatedItem, sameValue } from '../../api/apiextensions/v1/ratcheting.js';
import {
  CelCompileError,
  celOptional,
  COST_LIMIT_EXCEEDED_MESSAGE,
  type CelCompiledProgram,
} from '../../policies/cel/index.js';
import { compileRuleExpression, usesOldSelf } from './rule-compilation.js';
import { valueConversionOf, type ValueConversion } from './rule-values.js';

/** Upstream's RuntimeCELCostBudget: what evaluating every rule for one object may spend. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

const OUT_OF_BUDGET = 'validation failed due to running out of cost budget, no further validation rules will be run';

interface CompiledRule {
  text: string;
  /** What upstream's messages name a rule by: its message, else the rule itself. */
  name: string;
  program: CelCompiledProgram;
  message?: string;
  messageExpression?: CelCompiledProgram;
  reason: string;
  fieldPath: string[];
  transition: boolean;
  optionalOldSelf: boolean;
}

interface RuleNode {
  schema: JSONSchemaProps;
  type: string;
  rules: CompiledRule[];
  /** Types the formatted strings under the node for its rules; absent when it has none. */
  typed?: ValueConversion;
  properties: [string, RuleNode][];
  items?: RuleNode;
  additional?: RuleNode;
}

/** A program, or undefined for what does not compile (refused when the definition was written). */
function compiled(expression: string, resultType: string): CelCompiledProgram | undefined {
  try {
    return compileRuleExpression(expression, [resultType]);
  } catch (e) {
    if (e instanceof CelCompileError) return undefined;
    throw e;
  }
}

function compileRules(s: JSONSchemaProps): CompiledRule[] {
  return asArr(s['x-kubernetes-validations']).flatMap((raw): CompiledRule[] => {
    const rule = asObj(raw) ?? {};
    const text = asStr(rule.rule) ?? '';
    const program = compiled(text, 'bool');
    if (!program) return [];
    const message = asStr(rule.message);
    const messageExpression = asStr(rule.messageExpression);
    const transition = usesOldSelf(text);
    return [
      {
        text,
        name: message?.trim() || text.trim(),
        program,
        message,
        messageExpression: messageExpression ? compiled(messageExpression, 'string') : undefined,
        reason: asStr(rule.reason) ?? 'FieldValueInvalid',
        fieldPath: (parseFieldPath(asStr(rule.fieldPath) ?? '') ?? []).flatMap((seg) =>
          'field' in seg ? [seg.field] : [],
        ),
        transition,
        optionalOldSelf: transition && rule.optionalOldSelf === true,
      },
    ];
  });
}

/** The rules under `raw`, or undefined when no node below it has any. */
function compileNode(raw: unknown, depth: number): RuleNode | undefined {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return undefined;
  const node: RuleNode = {
    schema: s,
    type: asStr(s.type) ?? '',
    rules: compileRules(s),
    properties: propertiesOf(s).flatMap(([name, child]): [string, RuleNode][] => {
      const compiledChild = compileNode(child, depth + 1);
      return compiledChild ? [[name, compiledChild]] : [];
    }),
    items: compileNode(itemsOf(s), depth + 1),
    additional: compileNode(additionalOf(s), depth + 1),
  };
  const empty = node.rules.length === 0 && node.properties.length === 0 && !node.items && !node.additional;
  if (empty) return undefined;
  if (node.rules.length > 0) node.typed = valueConversionOf(s);
  return node;
}

function failure(rule: CompiledRule, node: RuleNode, at: FieldPath, message: string): FieldError {
  const path = rule.fieldPath.reduce((p, field) => p.child(field), at);
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fieldErrors.forbidden(path, message);
    case 'FieldValueRequired':
      return fieldErrors.required(path, message);
    case 'FieldValueDuplicate':
      return fieldErrors.duplicate(path, node.type);
    default:
      return fieldErrors.invalid(path, node.type, message);
  }
}

/** One object's evaluation: its errors and what is left of its budget. */
class Run {
  readonly errs: FieldError[] = [];
  halted = false;
  constructor(
    private remaining: number,
    readonly warnings: string[],
  ) {}

  /** Charges an evaluation's cost; false (with the error at `at`) once the budget is spent. */
  spend(cost: number, node: RuleNode, at: FieldPath): boolean {
    if (cost > this.remaining) return this.halt(fieldErrors.invalid(at, node.type, OUT_OF_BUDGET));
    this.remaining -= cost;
    return true;
  }

  /** Before a node's rules: upstream stops at the first node that finds the budget spent. */
  hasBudget(node: RuleNode, at: FieldPath): boolean {
    return this.remaining > 0 || this.halt(fieldErrors.invalid(at, node.type, OUT_OF_BUDGET));
  }

  halt(err: FieldError): false {
    this.errs.push(err);
    this.halted = true;
    return false;
  }
}

function messageOf(rule: CompiledRule, activation: Record<string, unknown>, run: Run, node: RuleNode, at: FieldPath) {
  if (rule.messageExpression) {
    try {
      const { value, cost } = rule.messageExpression.evaluateWithCost(activation);
      if (!run.spend(cost, node, at)) return undefined;
      if (typeof value === 'string' && value.trim() !== '') return value;
    } catch {
      // As upstream, a messageExpression that fails falls back to the static message.
    }
  }
  return rule.message ?? `failed rule: ${rule.text}`;
}

function evaluationError(rule: CompiledRule, node: RuleNode, at: FieldPath, run: Run, message: string): void {
  if (message === COST_LIMIT_EXCEEDED_MESSAGE) {
    run.halt(
      fieldErrors.invalid(
        at,
        node.type,
        `'${message}': no further validation rules will be run due to call cost exceeds limit for rule: ${rule.name}`,
      ),
    );
  } else if (message.startsWith('no such overload')) {
    run.errs.push(
      fieldErrors.invalid(
        at,
        node.type,
        `'${message}': call arguments did not match a supported operator, function or macro signature for rule: ${rule.name}`,
      ),
    );
  } else {
    run.errs.push(fieldErrors.invalid(at, node.type, `${message} evaluating rule: ${rule.name}`));
  }
}

function activationOf(rule: CompiledRule, value: unknown, old: unknown): Record<string, unknown> {
  if (rule.optionalOldSelf) return { self: value, oldSelf: celOptional(old) };
  return rule.transition ? { self: value, oldSelf: old } : { self: value };
}

function runRules(node: RuleNode, value: unknown, old: unknown, at: FieldPath, run: Run): void {
  if (node.rules.length === 0 || !run.hasBudget(node, at)) return;
  const typedValue = node.typed ? node.typed(value) : value;
  const typedOld = node.typed && old !== undefined ? node.typed(old) : old;
  for (const rule of node.rules) {
    if (rule.transition && old === undefined && !rule.optionalOldSelf) continue;
    const activation = activationOf(rule, typedValue, typedOld);
    let outcome: { value: unknown; cost: number };
    try {
      outcome = rule.program.evaluateWithCost(activation);
    } catch (e) {
      evaluationError(rule, node, at, run, (e as Error).message);
      if (run.halted) return;
      continue;
    }
    if (!run.spend(outcome.cost, node, at)) return;
    if (outcome.value === true) continue;
    const message = messageOf(rule, activation, run, node, at);
    if (message === undefined) return;
    // Transition rules are never ratcheted: they exist to judge the change.
    const ratcheted = !rule.transition && old !== undefined && sameValue(value, old);
    if (ratcheted) run.warnings.push(fieldErrorMessage(failure(rule, node, at, message)));
    else run.errs.push(failure(rule, node, at, message));
  }
}

function check(node: RuleNode, value: unknown, old: unknown, at: FieldPath, run: Run): void {
  if (value === undefined || value === null || run.halted) return;
  runRules(node, value, old, at, run);
  if (isObject(value)) {
    const oldObj = isObject(old) ? old : undefined;
    const oldOf = (key: string) => (oldObj && Object.hasOwn(oldObj, key) ? oldObj[key] : undefined);
    for (const [name, child] of node.properties) check(child, value[name], oldOf(name), at.child(name), run);
    if (node.additional) {
      const declared = new Set(node.properties.map(([name]) => name));
      for (const [key, child] of Object.entries(value))
        if (!declared.has(key)) check(node.additional, child, oldOf(key), at.key(key), run);
    }
  }
  if (Array.isArray(value) && node.items) {
    const items = node.items;
    value.forEach((item, i) => check(items, item, correlatedItem(node.schema, item, old), at.index(i), run));
  }
}

export interface SchemaRules {
  /**
   * Every rule's failure; `old` is the stored object on an update, and the failures of values unchanged from it go
   * to `warnings` instead.
   */
  validate(obj: KObject, old?: KObject, warnings?: string[]): FieldError[];
}

/** The rules of one version's schema, or undefined when it has none; `budget` is what one object may spend. */
export function compileSchemaRules(
  schema: JSONSchemaProps,
  budget: number = RUNTIME_CEL_COST_BUDGET,
): SchemaRules | undefined {
  const root = compileNode(schema, 0);
  if (!root) return undefined;
  return {
    validate(obj, old, warnings = []) {
      const run = new Run(budget, warnings);
      check(root, obj, old, FieldPath.root(''), run);
      return run.errs;
    },
  };
}
