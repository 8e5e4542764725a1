// The scale subresource of a custom kind: the Scale reads and writes the fields a version's specReplicasPath,
// statusReplicasPath and labelSelectorPath name, as upstream's scaleFromCustomResource does (an absent replica count
// reads as 0, an absent selector as none).
import type { KObject } from '../../meta/types.js';
import { isObject } from '../../meta/types.js';
import type { ProjectionSubresource } from '../../scheme.js';
import { replicasScale } from '../../autoscaling/v1/scale.js';
import type { ScaleSubresource } from './crd-types.js';
import { parseFieldPath } from './json-path.js';

/** The field names of a path the definition's validation accepted (dot-separated fields only). */
function fieldsOf(path: string): string[] {
  return (parseFieldPath(path) ?? []).flatMap((seg) => ('field' in seg ? [seg.field] : []));
}

function valueAt(obj: KObject, fields: string[]): unknown {
  let at: unknown = obj;
  for (const field of fields) at = isObject(at) ? at[field] : undefined;
  return at;
}

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
  const spec = fieldsOf(scale.specReplicasPath);
  const status = fieldsOf(scale.statusReplicasPath);
  const selector = scale.labelSelectorPath ? fieldsOf(scale.labelSelectorPath) : undefined;
  return replicasScale({
    specReplicas: (parent) => valueAt(parent, spec),
    statusReplicas: (parent) => valueAt(parent, status),
    selector(parent) {
      const value = selector && valueAt(parent, selector);
      return typeof value === 'string' ? value : '';
    },
    setSpecReplicas: (parent, replicas) => setValueAt(parent, spec, replicas),
  });
}
