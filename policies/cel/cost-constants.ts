// Cost units shared by the static estimate and the runtime meter. They follow cel-go's cost model (the one
// kube-apiserver's limits are expressed in) so a limit written for Kubernetes means the same here.

/** Reading a variable, selecting a field, indexing, comparing, arithmetic, calling a plain function. */
export const BASE_COST = 1;
/** A list literal (`[a, b]`); the spec fixes this base cost. */
export const LIST_LITERAL_COST = 40;
/** A list built by a macro (`map`, `filter`), cel-go's list creation cost. */
export const LIST_CREATION_COST = 10;
/** A map literal, cel-go's map creation cost. */
export const MAP_CREATION_COST = 30;
/** An object literal of a declared type, cel-go's struct creation cost. */
export const STRUCT_CREATION_COST = 40;
/** String traversals (contains, split, lowerAscii...) cost this much per character, rounded up. */
export const STRING_TRAVERSAL_FACTOR = 0.1;
/** Regular expressions cost this much per character of the pattern, times the traversal cost of the input. */
export const REGEX_LENGTH_FACTOR = 0.25;
/** One authorization check; kube-apiserver's figure, which allows two checks under its per-expression limit. */
export const AUTHORIZER_CHECK_COST = 350_000;
/** Cost units kube-apiserver allows one expression to spend when the field sets no budget (PerCallLimit). */
export const DEFAULT_RUNTIME_COST_BUDGET = 1_000_000;
/** Size assumed for a string, list or map whose size the expression does not fix (3 MiB, the request size limit). */
export const DEFAULT_MAX_VALUE_SIZE = 3 * 1024 * 1024;

export function traversalCost(length: number): number {
  return Math.ceil(length * STRING_TRAVERSAL_FACTOR);
}

/** Cost of matching a pattern of `patternLength` characters against an input of `inputLength` characters. */
export function regexCost(patternLength: number, inputLength: number): number {
  return Math.max(1, traversalCost(inputLength)) * Math.max(1, Math.ceil(patternLength * REGEX_LENGTH_FACTOR));
}
