// The one expression environment: standard macros and functions, homogeneous aggregate literals, UTC as the default
// time zone (timestamp accessors without a zone argument read UTC), eager declaration checking (an undeclared
// variable is a compile error), optional types, and the Kubernetes libraries. Building it is expensive, so the base is
// built once and each compilation clones it to declare its own variables.
import { Environment } from '@marcbachmann/cel-js';
import { registerAuthorizerLibrary } from './authorizer-library.js';
import { registerListsLibrary } from './lists-library.js';
import { registerQuantityLibrary } from './quantity-library.js';
import { registerRegexLibrary } from './regex-library.js';
import { registerStandardExtras } from './standard-extras.js';
import { registerStringsLibrary } from './strings-library.js';
import { registerUrlLibrary } from './url-library.js';
import type { CelObjectType } from './schema-types.js';

let base: Environment | undefined;

function createBaseEnvironment(): Environment {
  const env = new Environment({
    unlistedVariablesAreDyn: false,
    homogeneousAggregateLiterals: true,
    enableOptionalTypes: true,
  });
  registerStandardExtras(env);
  registerStringsLibrary(env);
  registerListsLibrary(env);
  registerRegexLibrary(env);
  registerUrlLibrary(env);
  registerQuantityLibrary(env);
  registerAuthorizerLibrary(env);
  return env;
}

/**
 * A fresh environment with every library, the given object types (for variables typed from a schema) and the given
 * variables (name → CEL type) declared.
 */
export function createCelEnvironment(
  variables: Record<string, string>,
  objectTypes: readonly CelObjectType[] = [],
): Environment {
  base ??= createBaseEnvironment();
  const env = base.clone();
  // A constructor of its own per type: without one the library builds a converter, which needs every field's type
  // registered first (impossible for a recursive schema); values never reach these types anyway.
  for (const { name, fields } of objectTypes) env.registerType(name, { ctor: class {}, fields } as never);
  // cel-go compares two values of one object type, and an object with null (objects are nullable there), so
  // `object.spec == oldObject.spec` and `object.spec != null` check as they do upstream.
  const noEvaluation = () => {
    throw new Error('object types are declared for type checking only');
  };
  for (const { name } of objectTypes) {
    env.registerOperator(`${name} == ${name}`, noEvaluation);
    env.registerOperator(`${name} == null`, noEvaluation);
  }
  for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
  return env;
}
