// Namespace: a cluster-scoped scope for names. Its finalizers live in spec (not metadata) and its phase turns
// Terminating when deletion starts; the namespace-deletion controller owns both.
import type { KindDefinition } from '../../scheme.js';
import type { KObject } from '../../meta/types.js';
import { conditionStatus, kindSchema } from '../../common/object-meta.js';
import { enumStr, obj, str, stringList, time } from '../../common/schema-builders.js';
import { validateMetadata } from '../../common/meta-validation.js';
import { applySchemaDefaults } from '../../common/defaulting.js';
import { asObj, asStr } from '../../common/validation-helpers.js';
import { ageColumn, column, pathOf } from '../../common/printers.js';

const schema = kindSchema({
  group: '',
  version: 'v1',
  kind: 'Namespace',
  description: 'Namespace provides a scope for Names. Use of multiple namespaces is optional.',
  properties: {
    spec: obj(
      {
        finalizers: stringList(
          'Finalizers is an opaque list of values that must be empty to permanently remove the object from storage.',
          'atomic',
        ),
      },
      'Spec defines the behavior of the Namespace.',
    ),
    status: obj(
      {
        phase: enumStr(['Active', 'Terminating'], 'Phase is the current lifecycle phase of the namespace.'),
        conditions: {
          type: 'array',
          description: "The latest available observations of the namespace's current state.",
          items: obj(
            {
              type: str('Type of namespace controller condition.'),
              status: conditionStatus(),
              lastTransitionTime: time('Last time the condition transitioned.'),
              reason: str("Unique, one-word, CamelCase reason for the condition's last transition."),
              message: str('Human-readable message indicating details about the last transition.'),
            },
            'NamespaceCondition contains details about the state of a namespace.',
            ['type', 'status'],
          ),
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          'x-kubernetes-patch-merge-key': 'type',
          'x-kubernetes-patch-strategy': 'merge',
        },
      },
      'Status describes the current status of a Namespace.',
    ),
  },
});

/** Added on create; the namespace-deletion controller removes it once the namespace's content is gone. */
export const NAMESPACE_FINALIZER = 'platform';

/** Namespaces the server creates at start and never lets go. */
export const SYSTEM_NAMESPACES = ['default', 'platform-system', 'platform-public'];

/** Every namespace carries its own name as this label, so namespace selectors can pick one namespace by name. */
export const NAMESPACE_NAME_LABEL = 'platform.io/metadata.name';

/** Kept equal to the name on create and on every update, whatever the client sent. */
function labelWithName(obj: KObject): void {
  const name = obj.metadata.name;
  const labels: unknown = obj.metadata.labels;
  // A labels value of another type is left for validation to refuse.
  if (!name || (labels !== undefined && labels !== null && !asObj(labels))) return;
  obj.metadata.labels = { ...(asObj(labels) ?? {}), [NAMESPACE_NAME_LABEL]: name };
}

function specFinalizers(obj: KObject): string[] {
  const finalizers = asObj(obj.spec)?.finalizers;
  return Array.isArray(finalizers) ? finalizers.filter((f): f is string => typeof f === 'string') : [];
}

export const namespace: KindDefinition = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  resource: 'namespaces',
  singular: 'namespace',
  namespaced: false,
  shortNames: ['ns'],
  statusSubresource: true,
  tracksGeneration: false,
  deleteReturnsObject: true,
  noDeleteCollection: true,
  schema,
  defaults(obj) {
    applySchemaDefaults(schema, obj);
    const status = asObj(obj.status) ?? {};
    if (!asStr(status.phase)) obj.status = { ...status, phase: 'Active' };
    labelWithName(obj);
  },
  prepareForCreate(obj) {
    // Defaulting ran before a generateName was resolved; the name is final now.
    labelWithName(obj);
    // A new namespace always starts Active and carries the platform finalizer the deletion controller removes.
    obj.status = { phase: 'Active' };
    const spec = asObj(obj.spec) ?? {};
    const finalizers = Array.isArray(spec.finalizers) ? spec.finalizers : [];
    if (!finalizers.includes(NAMESPACE_FINALIZER))
      obj.spec = { ...spec, finalizers: [...finalizers, NAMESPACE_FINALIZER] };
  },
  prepareForUpdate: labelWithName,
  validate: (obj) => validateMetadata(obj, false, 'label'),
  blockingFinalizers: specFinalizers,
  beginDeletion(obj) {
    obj.status = { ...(asObj(obj.status) ?? {}), phase: 'Terminating' };
  },
  forbidDeletion: (obj) =>
    SYSTEM_NAMESPACES.includes(obj.metadata.name ?? '') ? 'this namespace may not be deleted' : undefined,
  selectableFields: (obj) => ({ 'status.phase': asStr(asObj(obj.status)?.phase) ?? '' }),
  tableColumns: [
    column('Status', 'The status of the namespace', (obj) => asStr(pathOf(obj, 'status', 'phase')) ?? ''),
    ageColumn,
  ],
};
