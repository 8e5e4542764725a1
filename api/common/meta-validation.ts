// The one place kinds reach the shared metadata and quantity rules, so each kind names only its name format.
import type { FieldError } from '../meta/field-errors.js';
import { fieldErrors, type FieldPath } from '../meta/field-errors.js';
import type { KObject } from '../meta/types.js';
import { dns1123Label, dns1123Subdomain, pathSegmentName, validateObjectMeta } from '../meta/validation.js';
import { isQuantity, QUANTITY_FORMAT_MESSAGE } from '../meta/quantity.js';
import { asObj } from './validation-helpers.js';

export type NameFormat = 'subdomain' | 'label' | 'pathSegment';

const NAME_VALIDATORS: Record<NameFormat, (name: string) => string[]> = {
  subdomain: dns1123Subdomain,
  label: dns1123Label,
  pathSegment: pathSegmentName,
};

/** ObjectMeta rules for a top-level object: name format, namespace presence, labels, annotations, owners. */
export function validateMetadata(obj: KObject, namespaced: boolean, format: NameFormat): FieldError[] {
  return validateObjectMeta(obj.metadata, { namespaced, nameValidator: NAME_VALIDATORS[format] });
}

/** Quantities arrive as strings or, from some clients, as plain JSON numbers. */
function quantityOk(v: unknown): boolean {
  return typeof v === 'number' ? Number.isFinite(v) : typeof v === 'string' && isQuantity(v);
}

/** Every value of a map of quantities must parse; ResourceQuota and pod resources share the message. */
export function validateQuantityMap(m: unknown, at: FieldPath): FieldError[] {
  return Object.entries(asObj(m) ?? {}).flatMap(([k, v]) =>
    quantityOk(v) ? [] : [fieldErrors.invalid(at.key(k), v, QUANTITY_FORMAT_MESSAGE)],
  );
}
