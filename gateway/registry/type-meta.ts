// The first check of every written body: an object of the endpoint's kind (apiVersion and kind, when given, are
// that kind's) with an object for metadata. Shared by the store and the projection subresources, whose bodies are
// of another kind than the stored one.
import { errors } from '../../api/meta/errors.js';
import { checkBodyKind } from './body-kind.js';
import { fieldErrors } from '../../api/meta/field-errors.js';
import { isObject, type KObject } from '../../api/meta/types.js';
import { apiVersionOf, type CreateSubresourceKind } from '../../api/scheme.js';

/** The body as a KObject of `kind`, apiVersion and kind filled in; 400 for another kind (checkBodyKind), 422 for a bad metadata. */
export function admitTypeMeta(body: unknown, kind: CreateSubresourceKind): KObject {
  checkBodyKind(body, kind);
  const obj = body as KObject;
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  // Everything after this reads and sets metadata fields, so a metadata of another type is refused first.
  if (!isObject(obj.metadata)) {
    throw errors.invalid(kind.kind, kind.group, '', [
      fieldErrors.typeInvalid('metadata', obj.metadata, 'must be of type object'),
    ]);
  }
  obj.apiVersion = apiVersionOf(kind);
  obj.kind = kind.kind;
  return obj;
}
