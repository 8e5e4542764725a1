// The one expression environment for every place the spec uses CEL (authorization webhook matchConditions, OIDC claim
// mappings and validation rules, later validation rules of user-defined types). Callers compile once, when the
// configuration that holds the expression loads, and evaluate per request.
//
// Contract for callers:
// - compileCel throws CelCompileError (message names the problem and position) for syntax errors, undeclared
//   variables, a result type other than the ones allowed, or an estimated cost above the limit.
// - evaluate takes plain JSON-like values (numbers, strings, booleans, arrays, objects) and returns plain values:
//   bool → boolean, string → string, int/uint → number (bigint when beyond Number.MAX_SAFE_INTEGER), double → number,
//   list → array, map → object; it throws CelEvaluationError (never leaking the activation) on errors, including a
//   runtime cost budget being exceeded.
// - A value several evaluations read may be converted once, as a ConvertedCelValue, and passed in its place.
// - Integral JSON numbers reach the expression as int, others as double (values.ts explains; celDouble() forces a
//   double).
// - Expressions that use the authorizer library declare a variable of type AUTHORIZER_TYPE and pass
//   createCelAuthorizer(user, decide) as its value, or let evaluateWithAuthorizer pre-resolve an async Authorizer.
export {
  compileCel,
  typeCheckCel,
  type CelCompileOptions,
  type CelCompiledProgram,
  type CelProgram,
} from './compile.js';
export type { DeclaredSize } from './cost-estimate.js';
export {
  CEL_FORMAT_TYPES,
  celTypesOfSchema,
  type CelObjectType,
  type CelSchemaTypeOptions,
  type CelSchemaTypes,
} from './schema-types.js';
export { CelCompileError, CelEvaluationError, COST_LIMIT_EXCEEDED_MESSAGE } from './errors.js';
export { celDouble, CelDouble, celOptional, celValueOfFormat, ConvertedCelValue } from './values.js';
export { escapePropertyName, unescapePropertyName, CEL_RESERVED_KEYWORDS } from './escaping.js';
export {
  AUTHORIZER_TYPE,
  createCelAuthorizer,
  evaluateWithAuthorizer,
  type CelAuthorizer,
  type CelDecisionFunction,
} from './authorizer-library.js';
export {
  AUTHORIZER_CHECK_COST,
  DEFAULT_MAX_VALUE_SIZE,
  DEFAULT_RUNTIME_COST_BUDGET,
  LIST_CREATION_COST,
  LIST_LITERAL_COST,
  MAP_CREATION_COST,
  STRUCT_CREATION_COST,
} from './cost-constants.js';
