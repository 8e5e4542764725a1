// The scale subresource of a custom kind: the Scale reads and writes the fields a version's specReplicasPath,
// statusReplicasPath and labelSelectorPath name, as upstream's scaleFromCustomResource does (an absent replica count
// reads as 0, an absent selector as none).
import type { KObject } from '../../meta/types.js';
import { isObject } from '../../meta/types.js';
import type { ProjectionSubresource } from '../../scheme.js';
import { replicasScale } from '../../autoscaling/v1/scale.js';
import type { ScaleSubresource } from './crd-types.js';
import { fieldNamesOf, valueAtFields } from './json-path.js';

/** Sets a nested field, copying each object on the way so that nothing the parent shares with others changes. */
function setValueAt(obj: KObject, fields: string[], value: unknown): void {
  let at = obj as Record<string, unknown>;
  fields.forEach((field, i) => {
    if (i === fields.length - 1) {
      at[field] = value;
      return;
    }
    const next = at[field];
    at = at[field] = isObject(next) ? { ...next } : {};
  });
}

export function customScale(scale: ScaleSubresource): ProjectionSubresource {
  const spec = fieldNamesOf(scale.specReplicasPath);
  const status = fieldNamesOf(scale.statusReplicasPath);
  const selector = scale.labelSelectorPath ? fieldNamesOf(scale.labelSelectorPath) : undefined;
  return replicasScale({
    specReplicas: (parent) => valueAtFields(parent, spec),
    statusReplicas: (parent) => valueAtFields(parent, status),
    selector(parent) {
      const value = selector && valueAtFields(parent, selector);
      return typeof value === 'string' ? value : '';
    },
    setSpecReplicas: (parent, replicas) => setValueAt(parent, spec, replicas),
  });
}
