// The schema validator of each kind, plus the compilation of the CEL expressions some kinds hold: upstream refuses a
// ValidatingAdmissionPolicy, a webhook configuration (its matchConditions) or a CustomResourceDefinition whose
// expressions do not compile with a 422 naming the field, at validation, before any admission plugin runs. The kinds'
// own rules live in api/, which cannot reach the CEL environment; this joins them.
import type { KindDefinition } from '../../../api/scheme.js';
import type { KObject } from '../../../api/meta/types.js';
import type { FieldError } from '../../../api/meta/field-errors.js';
import { createKindValidator } from '../../../api/validation/schema-validator.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import { APIEXTENSIONS_GROUP } from '../../../api/apiextensions/v1/crd-types.js';
import { pruneSchemaKeywords } from '../../../api/apiextensions/v1/custom-resource-definition.js';
import type { KindValidator } from '../../registry/admission-types.js';
import { webhookConfigurationExpressionErrors } from '../admission-expressions.js';
import { validationRuleErrors } from '../../apiextensions/rule-compilation.js';
import { compilePolicy } from './compile-policy.js';

/** What the server checks of some kinds beyond their own rules. */
interface ServerChecks {
  /** The compile errors of the expressions an object holds. */
  expressions(obj: KObject): FieldError[];
  /** Fields pruned beyond the kind schema's reach, reported as unknown fields (fieldValidation Warn and Strict). */
  prune?(obj: KObject): string[];
}

/** By `<group>/<kind>`. */
const SERVER_CHECKS: Record<string, ServerChecks> = {
  [`${ADMISSIONREGISTRATION_GROUP}/ValidatingAdmissionPolicy`]: { expressions: (obj) => compilePolicy(obj).errors },
  [`${ADMISSIONREGISTRATION_GROUP}/ValidatingWebhookConfiguration`]: {
    expressions: webhookConfigurationExpressionErrors,
  },
  [`${ADMISSIONREGISTRATION_GROUP}/MutatingWebhookConfiguration`]: {
    expressions: webhookConfigurationExpressionErrors,
  },
  [`${APIEXTENSIONS_GROUP}/CustomResourceDefinition`]: {
    expressions: validationRuleErrors,
    prune: pruneSchemaKeywords,
  },
};

export function serverKindValidator(def: KindDefinition): KindValidator {
  const base = createKindValidator(def);
  const checks = SERVER_CHECKS[`${def.group}/${def.kind}`];
  if (!checks) return base;
  const withExpressions = (
    errs: ReturnType<KindValidator['validate']>,
    obj: Parameters<KindValidator['validate']>[0],
  ) => [...errs, ...checks.expressions(obj)];
  return {
    prune: (obj) => [...base.prune(obj), ...(checks.prune?.(obj) ?? [])],
    validate: (obj) => withExpressions(base.validate(obj), obj),
    validateUpdate: (obj, old, warnings) => withExpressions(base.validateUpdate(obj, old, warnings), obj),
    validateStatusUpdate: (obj, old, warnings) => base.validateStatusUpdate(obj, old, warnings),
  };
}
