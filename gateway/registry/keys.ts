// Storage keys: /registry/<group>/<resource>/[<namespace>/]<name>. Every prefix ends in '/', so a prefix never
// matches a longer sibling (ns1 vs ns10).
import type { KindDefinition } from '../../api/scheme.js';

// A kind stored as another resource's objects (KindDefinition.storedAs) shares that resource's keys.
function groupSegment(def: KindDefinition): string {
  return (def.storedAs ? def.storedAs.group : def.group) || 'core';
}

export function collectionPrefix(def: KindDefinition, namespace: string): string {
  const base = `/registry/${groupSegment(def)}/${def.storedAs?.resource ?? def.resource}/`;
  return def.namespaced && namespace ? `${base}${namespace}/` : base;
}
