// The x-kubernetes-validations rules of a custom kind's schema, compiled once per definition version and evaluated
// at every write as upstream's CEL validator does: each rule with `self` bound to the value at its schema node,
// transition rules (those reading `oldSelf`) only where an old value exists, a failure reported at the node (or its
// fieldPath) with the rule's message, messageExpression or `failed rule: <rule>`, under the rule's reason, and the
// node's schema type as the invalid value. Values inside lists are checked without oldSelf.
import { isObject, type KObject } from '../../api/meta/types.js';
import { fieldErrors, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
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
import { CelCompileError, type CelCompiledProgram } from '../../policies/cel/index.js';
import { compileRuleExpression } from './rule-compilation.js';

interface CompiledRule {
  text: string;
  program: CelCompiledProgram;
  message?: string;
  messageExpression?: CelCompiledProgram;
  reason: string;
  fieldPath: string[];
  transition: boolean;
}

interface RuleNode {
  type: string;
  rules: CompiledRule[];
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
    const messageExpression = asStr(rule.messageExpression);
    return [
      {
        text,
        program,
        message: asStr(rule.message),
        messageExpression: messageExpression ? compiled(messageExpression, 'string') : undefined,
        reason: asStr(rule.reason) ?? 'FieldValueInvalid',
        fieldPath: (parseFieldPath(asStr(rule.fieldPath) ?? '') ?? []).flatMap((seg) =>
          'field' in seg ? [seg.field] : [],
        ),
        transition: /\boldSelf\b/.test(text) && rule.optionalOldSelf !== true,
      },
    ];
  });
}

/** The rules under `raw`, or undefined when no node below it has any. */
function compileNode(raw: unknown, depth: number): RuleNode | undefined {
  const s = schemaAt(raw);
  if (!s || depth > MAX_SCHEMA_DEPTH) return undefined;
  const node: RuleNode = {
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
  return empty ? undefined : node;
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

function messageOf(rule: CompiledRule, activation: Record<string, unknown>): string {
  if (rule.messageExpression) {
    try {
      const value = rule.messageExpression.evaluate(activation);
      if (typeof value === 'string' && value.trim() !== '') return value;
    } catch {
      // As upstream, a messageExpression that fails falls back to the static message.
    }
  }
  return rule.message ?? `failed rule: ${rule.text}`;
}

function check(node: RuleNode, value: unknown, old: unknown, at: FieldPath, errs: FieldError[]): void {
  if (value === undefined || value === null) return;
  for (const rule of node.rules) {
    if (rule.transition && old === undefined) continue;
    const activation = old === undefined ? { self: value } : { self: value, oldSelf: old };
    try {
      if (rule.program.evaluate(activation) !== true) errs.push(failure(rule, node, at, messageOf(rule, activation)));
    } catch (e) {
      errs.push(fieldErrors.invalid(at, node.type, `${(e as Error).message}`));
    }
  }
  if (isObject(value)) {
    const oldObj = isObject(old) ? old : undefined;
    for (const [name, child] of node.properties) check(child, value[name], oldObj?.[name], at.child(name), errs);
    if (node.additional) {
      const declared = new Set(node.properties.map(([name]) => name));
      for (const [key, child] of Object.entries(value))
        if (!declared.has(key)) check(node.additional, child, oldObj?.[key], at.key(key), errs);
    }
  }
  if (Array.isArray(value) && node.items) {
    const items = node.items;
    value.forEach((item, i) => check(items, item, undefined, at.index(i), errs));
  }
}

export interface SchemaRules {
  /** Every rule's failure; `old` is the stored object on an update. */
  validate(obj: KObject, old?: KObject): FieldError[];
}

/** The rules of one version's schema, or undefined when it has none. */
export function compileSchemaRules(schema: JSONSchemaProps): SchemaRules | undefined {
  const root = compileNode(schema, 0);
  if (!root) return undefined;
  return {
    validate(obj, old) {
      const errs: FieldError[] = [];
      check(root, obj, old, FieldPath.root(''), errs);
      return errs;
    },
  };
}
