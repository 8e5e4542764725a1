// The schema validator of each kind, plus, for the admissionregistration kinds with CEL (ValidatingAdmissionPolicy,
// the webhook configurations' matchConditions), the compilation of their expressions: upstream refuses one whose
// expressions do not compile with a 422 naming the field, at validation, before any admission plugin runs. The kinds'
// own rules live in api/, which cannot reach the CEL environment; this joins them.
import type { KindDefinition } from '../../../api/scheme.js';
import type { KObject } from '../../../api/meta/types.js';
import type { FieldError } from '../../../api/meta/field-errors.js';
import { createKindValidator } from '../../../api/validation/schema-validator.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import type { KindValidator } from '../../registry/admission-types.js';
import { webhookConfigurationExpressionErrors } from '../admission-expressions.js';
import { compilePolicy } from './compile-policy.js';

const EXPRESSION_ERRORS: Record<string, (obj: KObject) => FieldError[]> = {
  ValidatingAdmissionPolicy: (obj) => compilePolicy(obj).errors,
  ValidatingWebhookConfiguration: webhookConfigurationExpressionErrors,
  MutatingWebhookConfiguration: webhookConfigurationExpressionErrors,
};

export function serverKindValidator(def: KindDefinition): KindValidator {
  const base = createKindValidator(def);
  const expressionErrors = def.group === ADMISSIONREGISTRATION_GROUP ? EXPRESSION_ERRORS[def.kind] : undefined;
  if (!expressionErrors) return base;
  const withExpressions = (
    errs: ReturnType<KindValidator['validate']>,
    obj: Parameters<KindValidator['validate']>[0],
  ) => [...errs, ...expressionErrors(obj)];
  return {
    prune: (obj) => base.prune(obj),
    validate: (obj) => withExpressions(base.validate(obj), obj),
    validateUpdate: (obj, old) => withExpressions(base.validateUpdate(obj, old), obj),
    validateStatusUpdate: (obj, old) => base.validateStatusUpdate(obj, old),
  };
}
