// TokenRequest: the body of the create-only `serviceaccounts/<name>/token` subresource, which issues a token for the
// account. Data and rules only (no I/O): its names, the spec as read from a request, defaults and validation. The
// issuing itself is gateway/handlers/token-request.ts.
import { isObject } from '../../meta/types.js';
import { FieldPath, fieldErrors, type FieldError } from '../../meta/field-errors.js';

export const TOKEN_REQUEST_KIND = 'TokenRequest';
export const TOKEN_REQUEST_SUBRESOURCE = 'token';
/** The group kubectl's typed client sends and expects back; what discovery lists. */
export const TOKEN_REQUEST_GROUP = 'authentication.k8s.io';
/** Accepted as well, and answered in kind (the spec's own group name). */
export const TOKEN_REQUEST_PLATFORM_GROUP = 'authentication.platform.io';
export const TOKEN_REQUEST_VERSION = 'v1';

export const DEFAULT_EXPIRATION_SECONDS = 3600;
export const MIN_EXPIRATION_SECONDS = 600;
export const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface BoundObjectReference {
  kind: string;
  apiVersion: string;
  name: string;
  uid: string;
}

export interface TokenRequestInput {
  metadata: { name?: string; namespace?: string };
  /** Undefined where the request left a field out (defaults apply later). */
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: BoundObjectReference;
}

function optionalString(
  obj: Record<string, unknown>,
  field: string,
  at: FieldPath,
  errs: FieldError[],
): string | undefined {
  const v = obj[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    errs.push(fieldErrors.typeInvalid(at.child(field), v, 'must be of type string'));
    return undefined;
  }
  return v;
}

/** Reads the fields the server uses, with a type error for each that is not of its type. Unknown fields are ignored. */
export function readTokenRequest(body: Record<string, unknown>): { input: TokenRequestInput; errors: FieldError[] } {
  const errs: FieldError[] = [];
  const input: TokenRequestInput = { metadata: {} };
  const metadata = body.metadata;
  if (isObject(metadata)) {
    const at = FieldPath.root('metadata');
    input.metadata.name = optionalString(metadata, 'name', at, errs) || undefined;
    input.metadata.namespace = optionalString(metadata, 'namespace', at, errs) || undefined;
  } else if (metadata !== undefined && metadata !== null) {
    errs.push(fieldErrors.typeInvalid('metadata', metadata, 'must be of type object'));
  }

  const spec = body.spec;
  const specPath = FieldPath.root('spec');
  if (spec === undefined || spec === null) return { input, errors: errs };
  if (!isObject(spec)) {
    errs.push(fieldErrors.typeInvalid(specPath, spec, 'must be of type object'));
    return { input, errors: errs };
  }

  const audiences = spec.audiences;
  if (Array.isArray(audiences)) {
    audiences.forEach((a, i) => {
      if (typeof a !== 'string')
        errs.push(fieldErrors.typeInvalid(specPath.child('audiences').index(i), a, 'must be of type string'));
    });
    input.audiences = audiences.filter((a): a is string => typeof a === 'string');
  } else if (audiences !== undefined && audiences !== null) {
    errs.push(fieldErrors.typeInvalid(specPath.child('audiences'), audiences, 'must be of type array'));
  }

  const expiration = spec.expirationSeconds;
  if (typeof expiration === 'number' && Number.isSafeInteger(expiration)) {
    input.expirationSeconds = expiration;
  } else if (expiration !== undefined && expiration !== null) {
    errs.push(fieldErrors.typeInvalid(specPath.child('expirationSeconds'), expiration, 'must be of type integer'));
  }

  const ref = spec.boundObjectRef;
  const refPath = specPath.child('boundObjectRef');
  if (isObject(ref)) {
    input.boundObjectRef = {
      kind: optionalString(ref, 'kind', refPath, errs) ?? '',
      apiVersion: optionalString(ref, 'apiVersion', refPath, errs) ?? '',
      name: optionalString(ref, 'name', refPath, errs) ?? '',
      uid: optionalString(ref, 'uid', refPath, errs) ?? '',
    };
  } else if (ref !== undefined && ref !== null) {
    errs.push(fieldErrors.typeInvalid(refPath, ref, 'must be of type object'));
  }
  return { input, errors: errs };
}

/** Upstream's ValidateTokenRequest: the validity must be between 10 minutes and 2^32 seconds. */
export function validateExpiration(expirationSeconds: number): FieldError[] {
  const at = FieldPath.root('spec').child('expirationSeconds');
  if (expirationSeconds < MIN_EXPIRATION_SECONDS)
    return [fieldErrors.invalid(at, expirationSeconds, 'may not specify a duration less than 10 minutes')];
  if (expirationSeconds > MAX_EXPIRATION_SECONDS)
    return [fieldErrors.invalid(at, expirationSeconds, 'may not specify a duration larger than 2^32 seconds')];
  return [];
}

/** The group of an apiVersion (`v1` → ''), as bound object references are matched. */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
