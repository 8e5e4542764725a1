// The checks a written body goes through before it may become the stored object: its type and fields (unknown and
// duplicate ones by the request's fieldValidation), defaults, the name and namespace of the URL, and the kind's
// rules for a new object or against the stored one.
import { errors } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import { validateObjectMetaUpdate } from '../../api/meta/validation.js';
import type { KindValidator, WriteContext } from './admission-types.js';
import type { StoreScope, Subresource } from './store-scope.js';
import { prepareForStatusUpdate, prepareForUpdate } from './strategy.js';
import { admitTypeMeta } from './type-meta.js';

/** Body → object of this kind: type checks, unknown/duplicate field policy, defaults. */
export function admitBody(scope: StoreScope, body: unknown, ctx: WriteContext): KObject {
  const { def } = scope;
  const obj = admitTypeMeta(body, def);
  const undecodable = def.decodeProblem?.(obj);
  if (undecodable)
    throw errors.badRequest(
      `${def.kind} in version "${def.version}" cannot be handled as a ${def.kind}: ${undecodable}`,
    );
  applyFieldValidation(scope.validator.prune(obj), ctx);
  def.defaults?.(obj);
  return obj;
}

function applyFieldValidation(unknown: string[], ctx: WriteContext): void {
  if (ctx.fieldValidation === 'Ignore' || (unknown.length === 0 && ctx.duplicateFields.length === 0)) return;
  const problems = [
    ...unknown.map((f) => `unknown field "${f}"`),
    ...ctx.duplicateFields.map((f) => `duplicate field "${f}"`),
  ];
  if (ctx.fieldValidation === 'Strict') throw errors.badRequest(`strict decoding error: ${problems.join(', ')}`);
  // Not push(...problems): a body with a hundred thousand unknown fields would pass more arguments than the stack holds.
  for (const problem of problems) ctx.warnings.push(problem);
}

export function invalid(scope: StoreScope, obj: KObject, fieldErrors: ReturnType<KindValidator['validate']>): void {
  if (fieldErrors.length > 0)
    throw errors.invalid(scope.def.kind, scope.def.group, obj.metadata?.name ?? '', fieldErrors);
}

export function checkNameMatches(obj: KObject, name: string): void {
  const bodyName = obj.metadata.name;
  if (bodyName !== undefined && bodyName !== '' && bodyName !== name) {
    throw errors.badRequest(`the name of the object (${bodyName}) does not match the name on the URL (${name})`);
  }
  obj.metadata.name = name;
}

export function checkNamespaceMatches(scope: StoreScope, obj: KObject, namespace: string): void {
  if (!scope.def.namespaced) return;
  const bodyNs = obj.metadata.namespace;
  if (bodyNs !== undefined && bodyNs !== '' && bodyNs !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = namespace;
}

/**
 * The stored object's successor: server-owned fields as stored, then the kind's rules for an update, whose warnings
 * join the request's.
 */
export function buildUpdate(
  scope: StoreScope,
  obj: KObject,
  current: KObject,
  subresource: Subresource,
  ctx: WriteContext,
): KObject {
  const next = prepareUpdate(scope, obj, current, subresource);
  validateUpdate(scope, next, current, subresource, ctx.warnings);
  return next;
}

export function prepareUpdate(scope: StoreScope, obj: KObject, current: KObject, subresource: Subresource): KObject {
  if (subresource === 'status') return prepareForStatusUpdate(obj, current);
  prepareForUpdate(scope.def, obj, current);
  return obj;
}

export function validateUpdate(
  scope: StoreScope,
  next: KObject,
  current: KObject,
  subresource: Subresource,
  warnings?: string[],
): void {
  const { validator } = scope;
  if (subresource === 'status') {
    invalid(scope, next, validator.validateStatusUpdate(next, current, warnings));
    return;
  }
  const errs = validator.validateUpdate(next, current, warnings);
  // A value of the wrong type is the one error reported, as for a create: the metadata rules would name it again.
  const wrongType = errs.some((e) => e.type === 'FieldValueTypeInvalid');
  invalid(scope, next, wrongType ? errs : [...validateObjectMetaUpdate(next.metadata, current.metadata), ...errs]);
}
