// Label and field selectors of a list, watch or deletecollection request, as one storage predicate. A field
// selector may only name fields the kind makes selectable (400 otherwise, as kube-apiserver answers).
import { errors } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { KindDefinition } from '../../api/scheme.js';
import { parseLabelSelector } from '../../api/meta/selectors.js';
import { parseFieldSelector } from '../../api/meta/field-selectors.js';
import type { SelectionPredicate } from '../../backends/storage.js';

export function objectFields(def: KindDefinition, obj: KObject): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': obj.metadata.name ?? '' };
  if (def.namespaced) fields['metadata.namespace'] = obj.metadata.namespace ?? '';
  return { ...fields, ...(def.selectableFields?.(obj) ?? {}) };
}

function selectableFieldNames(def: KindDefinition): string[] {
  let extra: string[];
  try {
    extra = Object.keys(def.selectableFields?.({ metadata: {}, spec: {}, status: {} }) ?? {});
  } catch {
    extra = [];
  }
  return ['metadata.name', ...(def.namespaced ? ['metadata.namespace'] : []), ...extra];
}

export function selectionPredicate(def: KindDefinition, q: URLSearchParams): SelectionPredicate {
  const labels = parseLabelSelector(q.get('labelSelector') ?? '');
  const fields = parseFieldSelector(q.get('fieldSelector') ?? '');
  const allowed = new Set(selectableFieldNames(def));
  for (const r of fields.requirements) {
    // metadata.namespace on a cluster-scoped kind is accepted upstream and matches the empty namespace.
    if (!allowed.has(r.field) && r.field !== 'metadata.namespace') {
      throw errors.badRequest(`field label not supported: ${r.field}`);
    }
  }
  if (labels.empty && fields.empty) return { empty: true, matches: () => true };
  return {
    empty: false,
    matches: (obj) =>
      labels.matches(obj.metadata.labels ?? {}) &&
      fields.matches({ 'metadata.namespace': '', ...objectFields(def, obj) }),
  };
}
