// Metadata schemas shared by every kind (meta/v1), and the helper that wraps a kind's own fields into a complete
// top-level object schema.
import type { JSONSchema } from '../schema.js';
import {
  arr,
  bool,
  describe,
  enumStr,
  int64,
  mapList,
  named,
  obj,
  preserved,
  str,
  stringList,
  stringMap,
  time,
} from './schema-builders.js';

const META = 'io.platform.apimachinery.pkg.apis.meta.v1';

export const ownerReferenceSchema = named(
  `${META}.OwnerReference`,
  obj(
    {
      apiVersion: str('API version of the referent.'),
      kind: str('Kind of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      controller: bool('If true, this reference points to the managing controller.'),
      blockOwnerDeletion: bool(
        'If true, the owner cannot be deleted from storage before this reference is removed (foreground deletion).',
      ),
    },
    'OwnerReference identifies an owning object; the owner must be in the same namespace or cluster-scoped.',
    ['apiVersion', 'kind', 'name', 'uid'],
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export const managedFieldsEntrySchema = named(
  `${META}.ManagedFieldsEntry`,
  obj(
    {
      manager: str('Identifier of the workflow managing these fields.'),
      operation: str('Operation that caused this entry: Apply or Update.'),
      apiVersion: str('Version of the resource this field set applies to.'),
      time: time('When these fields were last changed.'),
      fieldsType: str('Format of fieldsV1; the only valid value is FieldsV1.'),
      fieldsV1: named(
        `${META}.FieldsV1`,
        preserved('FieldsV1 is the set of fields in a trie of f:<name>, k:<keys>, v:<value> and i:<index> nodes.'),
      ),
      subresource: str('Subresource the entry was written through; empty for the main resource.'),
    },
    'ManagedFieldsEntry records the fields a manager owns and how it last changed them.',
  ),
);

export const objectMetaSchema = named(
  `${META}.ObjectMeta`,
  obj(
    {
      name: str(
        'Name must be unique within a namespace. It is required when creating, unless generateName is used. Cannot be updated.',
      ),
      generateName: str('Optional prefix used by the server to generate a unique name when name is not provided.'),
      namespace: str(
        'Namespace defines the space within which the name must be unique. An empty namespace is the "default" namespace; cluster-scoped objects have none. Cannot be updated.',
      ),
      selfLink: str('Deprecated: selfLink is a legacy read-only field that is no longer populated.'),
      uid: str('UID is the unique, server-generated identifier of this object in time and space. Read-only.'),
      resourceVersion: str(
        'An opaque value that represents the internal version of this object, for optimistic concurrency and watches. Read-only.',
      ),
      generation: int64('A sequence number representing a specific generation of the desired state. Read-only.'),
      creationTimestamp: time('Time this object was created, set by the server. Read-only.'),
      deletionTimestamp: time(
        'Time after which this resource will be deleted, set by the server when a graceful deletion is requested. Read-only.',
      ),
      deletionGracePeriodSeconds: int64(
        'Seconds allowed for this object to terminate gracefully before removal. Read-only.',
      ),
      labels: stringMap('Map of string keys and values used to organize and select objects.'),
      annotations: stringMap(
        'Unstructured key value map stored with a resource for arbitrary metadata; not queryable.',
      ),
      ownerReferences: mapList(
        ownerReferenceSchema,
        'uid',
        'Objects this object depends on; when all owners are deleted the object is garbage collected.',
      ),
      // Merged, not replaced, by strategic merge patches: several controllers add their own entries.
      finalizers: {
        ...stringList(
          'Must be empty before the object is deleted from the registry; each entry names a responsible component.',
          'set',
        ),
        'x-kubernetes-patch-strategy': 'merge',
      },
      managedFields: arr(
        managedFieldsEntrySchema,
        'Maps workflow ids and versions to the fields they manage; maintained by the server.',
        'atomic',
      ),
    },
    'ObjectMeta is metadata that all persisted resources must have.',
  ),
);

export const listMetaSchema = named(
  `${META}.ListMeta`,
  obj(
    {
      selfLink: str('Deprecated; no longer populated.'),
      resourceVersion: str('Version of the store at which the list was built, usable to start a watch.'),
      continue: str('Token for the next chunk of a paged list; empty at the end.'),
      remainingItemCount: int64('Number of items not returned in this response; omitted when unknown.'),
    },
    'ListMeta describes metadata that synthetic resources must have, including lists.',
  ),
);

export const labelSelectorRequirementSchema = named(
  `${META}.LabelSelectorRequirement`,
  obj(
    {
      key: str('The label key that the selector applies to.'),
      operator: str('Relationship of the key to the values: In, NotIn, Exists or DoesNotExist.'),
      values: stringList('Values for In and NotIn (non-empty); must be empty for Exists and DoesNotExist.', 'atomic'),
    },
    'A label selector requirement: a key, an operator and values.',
    ['key', 'operator'],
  ),
);

export const labelSelectorSchema = named(
  `${META}.LabelSelector`,
  obj(
    {
      matchLabels: stringMap(
        'Map of {key,value} pairs; each is equivalent to a matchExpressions element with operator In and one value.',
      ),
      matchExpressions: arr(labelSelectorRequirementSchema, 'Label selector requirements, ANDed.', 'atomic'),
    },
    'A label query over a set of resources. An empty selector matches all objects; a null one matches none.',
    undefined,
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export const conditionStatus = (description = 'Status of the condition: True, False or Unknown.'): JSONSchema =>
  enumStr(['True', 'False', 'Unknown'], description);

export const objectReferenceSchema = named(
  'io.platform.api.core.v1.ObjectReference',
  obj(
    {
      kind: str('Kind of the referent.'),
      namespace: str('Namespace of the referent.'),
      name: str('Name of the referent.'),
      uid: str('UID of the referent.'),
      apiVersion: str('API version of the referent.'),
      resourceVersion: str('Specific resourceVersion to which this reference is made, if any.'),
      fieldPath: str('A path to a piece of the object instead of the whole, such as spec.containers{name}.'),
    },
    'ObjectReference contains enough information to inspect or modify the referred object.',
    undefined,
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export const localObjectReferenceSchema = named(
  'io.platform.api.core.v1.LocalObjectReference',
  obj(
    {
      name: str('Name of the referent in the same namespace.', { default: '' }),
    },
    'LocalObjectReference lets you locate the referenced object inside the same namespace.',
    undefined,
    { 'x-kubernetes-map-type': 'atomic' },
  ),
);

export interface KindSchemaOptions {
  group: string;
  version: string;
  kind: string;
  description: string;
  properties: Record<string, JSONSchema>;
  required?: string[];
}

/** Complete top-level schema: apiVersion, kind and metadata around the kind's own fields. */
export function kindSchema(o: KindSchemaOptions): JSONSchema {
  return obj(
    {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents. In CamelCase.'),
      metadata: describe(objectMetaSchema, "Standard object's metadata."),
      ...o.properties,
    },
    o.description,
    o.required,
  );
}
