// The static rules of x-kubernetes-validations entries (rule, message, messageExpression, reason, fieldPath): what
// can be checked without the CEL environment. Compiling the expressions is the gateway's part
// (gateway/apiextensions/rule-compilation.ts), since api/ cannot reach the environment.
import { fieldErrors, type FieldError, type FieldPath } from '../../meta/field-errors.js';
import { asArr, asObj, asStr } from '../../common/validation-helpers.js';
import { parseFieldPath, resolvePath } from './json-path.js';
import type { JSONSchemaProps } from './schema-props.js';

export const VALIDATION_RULE_REASONS = [
  'FieldValueDuplicate',
  'FieldValueForbidden',
  'FieldValueInvalid',
  'FieldValueRequired',
];

const hasLineBreak = (s: string): boolean => /[\r\n]/.test(s);

export function validateValidationRules(s: JSONSchemaProps, at: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  const listAt = at.child('x-kubernetes-validations');
  const seen = new Set<string>();
  asArr(s['x-kubernetes-validations']).forEach((raw, i) => {
    const v = asObj(raw) ?? {};
    const ruleAt = listAt.index(i);
    const rule = asStr(v.rule) ?? '';
    const message = asStr(v.message) ?? '';
    if (rule.trim() === '') errs.push(fieldErrors.required(ruleAt.child('rule'), 'rule is not specified'));
    else if (message !== '' && message.trim() === '')
      errs.push(fieldErrors.invalid(ruleAt.child('message'), message, 'message must be non-empty if specified'));
    else if (hasLineBreak(message.trim()))
      errs.push(fieldErrors.invalid(ruleAt.child('message'), message, 'message must not contain line breaks'));
    else if (hasLineBreak(rule.trim()) && message.trim() === '')
      errs.push(
        fieldErrors.required(ruleAt.child('message'), 'message must be specified if rule contains line breaks'),
      );
    if (rule !== '') {
      // The list is a map keyed by rule: two entries with one rule would be merged into one by apply.
      if (seen.has(rule)) errs.push(fieldErrors.duplicate(ruleAt.child('rule'), rule));
      seen.add(rule);
    }
    const messageExpression = asStr(v.messageExpression);
    if (messageExpression !== undefined && messageExpression !== '' && messageExpression.trim() === '')
      errs.push(
        fieldErrors.required(ruleAt.child('messageExpression'), 'messageExpression must be non-empty if specified'),
      );
    if (v.reason !== undefined && !VALIDATION_RULE_REASONS.includes(asStr(v.reason) ?? ''))
      errs.push(fieldErrors.notSupported(ruleAt.child('reason'), v.reason, VALIDATION_RULE_REASONS));
    const fieldPath = asStr(v.fieldPath);
    if (fieldPath !== undefined && fieldPath !== '') {
      if (fieldPath.trim() === '')
        errs.push(
          fieldErrors.invalid(ruleAt.child('fieldPath'), fieldPath, 'fieldPath must be non-empty if specified'),
        );
      else if (hasLineBreak(fieldPath))
        errs.push(fieldErrors.invalid(ruleAt.child('fieldPath'), fieldPath, 'fieldPath must not contain line breaks'));
      else {
        const segments = parseFieldPath(fieldPath.trim());
        if (!segments || !resolvePath(s, segments))
          errs.push(fieldErrors.invalid(ruleAt.child('fieldPath'), fieldPath, 'fieldPath must be a valid path'));
      }
    }
    if (v.optionalOldSelf === true && !/\boldSelf\b/.test(rule))
      errs.push(
        fieldErrors.invalid(ruleAt.child('optionalOldSelf'), true, 'may not be set if rule does not use oldSelf'),
      );
  });
  return errs;
}
