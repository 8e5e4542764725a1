// The schema validator of each kind, plus, for ValidatingAdmissionPolicy, the compilation of its CEL expressions:
// upstream refuses a policy whose expressions do not compile with a 422 naming the field, at validation, before any
// admission plugin runs. The kind's own rules live in api/, which cannot reach the CEL environment; this joins them.
import type { KindDefinition } from '../../../api/scheme.js';
import { createKindValidator } from '../../../api/validation/schema-validator.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../../api/admissionregistration/v1/admission-common.js';
import type { KindValidator } from '../../registry/admission-types.js';
import { compilePolicy } from './compile-policy.js';

export function serverKindValidator(def: KindDefinition): KindValidator {
  const base = createKindValidator(def);
  if (def.group !== ADMISSIONREGISTRATION_GROUP || def.kind !== 'ValidatingAdmissionPolicy') return base;
  const withExpressions = (
    errs: ReturnType<KindValidator['validate']>,
    obj: Parameters<KindValidator['validate']>[0],
  ) => [...errs, ...compilePolicy(obj).errors];
  return {
    prune: (obj) => base.prune(obj),
    validate: (obj) => withExpressions(base.validate(obj), obj),
    validateUpdate: (obj, old) => withExpressions(base.validateUpdate(obj, old), obj),
    validateStatusUpdate: (obj, old) => base.validateStatusUpdate(obj, old),
  };
}
