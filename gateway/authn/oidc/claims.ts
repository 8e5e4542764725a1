// From verified ID-token claims to a user, in upstream's order: username, groups, uid, extra; then required claims,
// claim validation expressions, user validation expressions. Any failure is a ClaimsError (the token is refused with a
// 401); its message names claims and expressions, never claim values that could be credentials.
import { CelEvaluationError, type CelProgram } from '../../../policies/cel/index.js';
import type { UserInfo } from '../../../api/meta/user.js';
import type { CompiledJwtAuthenticator } from './config-validation.js';

export type Claims = Record<string, unknown>;

export class ClaimsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClaimsError';
  }
}

function evaluate(program: CelProgram, activation: Record<string, unknown>, what: string): unknown {
  try {
    return program.evaluate(activation);
  } catch (e) {
    if (e instanceof CelEvaluationError)
      throw new ClaimsError(`oidc: error evaluating ${what}: ${e.message.split('\n')[0]}`);
    throw e;
  }
}

function jsonKind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A claim that must be a string (Go's unmarshal into a string field). */
function stringClaim(claims: Claims, name: string, what: string): string {
  if (!Object.hasOwn(claims, name)) throw new ClaimsError(`oidc: parse ${what} claim "${name}": claim not present`);
  const value = claims[name];
  if (typeof value !== 'string')
    throw new ClaimsError(`oidc: parse ${what} claim "${name}": cannot unmarshal ${jsonKind(value)} into a string`);
  return value;
}

/** A string or a list of strings; '' and null are none (upstream's convertCELValueToStringList). */
function stringList(value: unknown, what: string): string[] {
  if (value === null || value === undefined) return [];
  if (typeof value === 'string') return value === '' ? [] : [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value;
  throw new ClaimsError(`oidc: error evaluating ${what}: expression must return a string or a list of strings`);
}

function username(a: CompiledJwtAuthenticator, claims: Claims): string {
  const mapping = a.username;
  if ('program' in mapping) {
    const value = evaluate(mapping.program, { claims }, 'username claim expression');
    if (typeof value !== 'string')
      throw new ClaimsError(
        'oidc: error evaluating username claim expression: username claim expression must return a string',
      );
    if (value === '') throw new ClaimsError('oidc: empty username via CEL expression is not allowed');
    return value;
  }
  const name = stringClaim(claims, mapping.claim, 'username');
  if (mapping.claim === 'email' && Object.hasOwn(claims, 'email_verified')) {
    // OpenID Connect core: an email whose provider says it is unverified does not identify anyone.
    const verified = claims.email_verified;
    if (typeof verified !== 'boolean')
      throw new ClaimsError(`oidc: parse 'email_verified' claim: cannot unmarshal ${jsonKind(verified)} into a bool`);
    if (!verified) throw new ClaimsError('oidc: email not verified');
  }
  const full = mapping.prefix + name;
  if (full === '') throw new ClaimsError(`oidc: username claim "${mapping.claim}" is empty`);
  return full;
}

function groups(a: CompiledJwtAuthenticator, claims: Claims): string[] {
  const mapping = a.groups;
  if (!mapping) return [];
  if ('program' in mapping)
    return stringList(evaluate(mapping.program, { claims }, 'group claim expression'), 'group claim expression');
  if (!Object.hasOwn(claims, mapping.claim)) return [];
  // A single string is one group (some providers put a role there), as upstream allows.
  const value = claims[mapping.claim];
  let list: string[];
  if (value === null) list = [];
  else if (typeof value === 'string') list = [value];
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) list = value;
  else throw new ClaimsError(`oidc: parse groups claim "${mapping.claim}": must be a string or an array of strings`);
  return list.map((g) => mapping.prefix + g);
}

function uid(a: CompiledJwtAuthenticator, claims: Claims): string {
  const mapping = a.uid;
  if (!mapping) return '';
  if ('claim' in mapping) return stringClaim(claims, mapping.claim, 'uid');
  const value = evaluate(mapping.program, { claims }, 'uid claim expression');
  if (typeof value !== 'string')
    throw new ClaimsError('oidc: error evaluating uid claim expression: uid claim expression must return a string');
  return value;
}

function extra(a: CompiledJwtAuthenticator, claims: Claims): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { key, program } of a.extra) {
    const values = stringList(
      evaluate(program, { claims }, `extra claim expression for key ${key}`),
      `extra claim expression for key ${key}`,
    );
    if (values.length > 0) out[key] = values;
  }
  return out;
}

function checkRequiredClaims(a: CompiledJwtAuthenticator, claims: Claims): void {
  for (const { claim, requiredValue } of a.requiredClaims) {
    if (!Object.hasOwn(claims, claim)) throw new ClaimsError(`oidc: required claim ${claim} not present in ID token`);
    const value = claims[claim];
    if (typeof value !== 'string')
      throw new ClaimsError(`oidc: parse claim ${claim}: cannot unmarshal ${jsonKind(value)} into a string`);
    // The values are not echoed: a required claim may carry something tenant-private.
    if (value !== requiredValue) throw new ClaimsError(`oidc: required claim ${claim} value does not match`);
  }
}

function checkRules(
  rules: CompiledJwtAuthenticator['claimValidations'],
  activation: Record<string, unknown>,
  what: string,
): void {
  for (const { program, message } of rules) {
    const result = evaluate(program, activation, what);
    if (typeof result !== 'boolean')
      throw new ClaimsError(`oidc: error evaluating ${what}: validation expression must return a boolean`);
    if (!result)
      throw new ClaimsError(
        `oidc: error evaluating ${what}: validation expression ${program.expression} failed: ${message}`,
      );
  }
}

/** The user the claims stand for under authenticator `a`; throws ClaimsError when they do not qualify. */
export function userFromClaims(a: CompiledJwtAuthenticator, claims: Claims): UserInfo {
  const name = username(a, claims);
  const user: UserInfo = { name, groups: groups(a, claims) };
  const id = uid(a, claims);
  if (id !== '') user.uid = id;
  const extras = extra(a, claims);
  if (Object.keys(extras).length > 0) user.extra = extras;
  checkRequiredClaims(a, claims);
  checkRules(a.claimValidations, { claims }, 'claim validation expression');
  if (a.userValidations.length > 0) {
    const celUser = { username: user.name, uid: user.uid ?? '', groups: user.groups, extra: user.extra ?? {} };
    checkRules(a.userValidations, { user: celUser }, 'user info validation rule');
  }
  return user;
}
