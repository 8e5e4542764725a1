// What the kind-rule tests share: an object of a kind with its metadata, and what the kind's validation says of it.
import type { KindDefinition } from '../../api/scheme.js';
import type { KObject } from '../../api/meta/types.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';

const meta = (def: KindDefinition, name = 'x') => (def.namespaced ? { name, namespace: 'default' } : { name });
export const mk = (def: KindDefinition, body: Record<string, unknown> = {}, name = 'x'): KObject => ({
  metadata: meta(def, name),
  ...structuredClone(body),
});
export const fields = (def: KindDefinition, o: unknown) =>
  createKindValidator(def)
    .validate(o)
    .map((e) => e.field);
export const messages = (def: KindDefinition, o: unknown) =>
  createKindValidator(def).validate(o).map(fieldErrorMessage);
export const defaulted = (def: KindDefinition, o: KObject) => {
  def.defaults?.(o);
  return o;
};
