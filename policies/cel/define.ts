// Small helpers for registering library functions: synchronous handlers only (an async handler breaks inside
// comprehensions, see CEL-NOTES.md) and internal names for the functions that replace the library's own.
import type { Environment } from '@marcbachmann/cel-js';
import { internalName } from './internal-names.js';

// The library's handler type is loose (any arguments); ours are typed at their definition.
type Handler = (...args: any[]) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Registers `signature` (for example `string.charAt(int): string`). */
export function define(env: Environment, signature: string, handler: Handler): void {
  env.registerFunction(signature, handler as never, { async: false } as never);
}

/** Registers a function that replaces one of the library's, under its internal name (see internal-names.ts). */
export function defineRerouted(env: Environment, signature: string, handler: Handler): void {
  const m = /^(?:([a-zA-Z0-9.<>, ]+)\.)?(\w+)\((.*)$/.exec(signature);
  if (!m) throw new Error(`bad signature ${signature}`);
  const [, receiver, name, rest] = m;
  define(env, `${receiver ? `${receiver}.` : ''}${internalName(name)}(${rest}`, handler);
}

/** Registers an opaque object type: expressions reach its values only through functions, never as fields. */
export function defineOpaqueType(env: Environment, name: string, ctor: new (...args: never[]) => object): void {
  env.registerType(name, { ctor, fields: {} } as never);
}
