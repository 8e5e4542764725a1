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

/** A fresh environment with every library and the given variables (name → CEL type) declared. */
export function createCelEnvironment(variables: Record<string, string>): Environment {
  base ??= createBaseEnvironment();
  const env = base.clone();
  for (const [name, type] of Object.entries(variables)) env.registerVariable(name, type);
  return env;
}
