// Schema conversion for the OpenAPI documents: named sub-schemas become components (referenced the way
// kube-apiserver's v3 documents do: `allOf: [{$ref}]` beside a use-site description), kinds and lists carry their
// group-version-kind, and the meta/v1 envelope types (Status, DeleteOptions, Patch, WatchEvent) are added.
import type { KindDefinition } from '../scheme.js';
import type { JSONSchema } from '../schema.js';
import { definitionNameOf, namedDefinition } from '../common/schema-builders.js';
import { listMetaSchema } from '../common/object-meta.js';
import { apiVersionOf, listKindOf } from '../scheme.js';

export type Components = Record<string, Record<string, unknown>>;

const META = 'io.platform.apimachinery.pkg.apis.meta.v1';
export const ref = (name: string): Record<string, unknown> => ({ $ref: `#/components/schemas/${name}` });

/** `io.platform.api.<package>.<version>.<Kind>`: the package is the group's first label, or `core`. */
export function schemaNameOf(def: Pick<KindDefinition, 'group' | 'version'>, kind: string): string {
  const pkg = def.group ? def.group.split('.')[0] : 'core';
  return `io.platform.api.${pkg}.${def.version}.${kind}`;
}

/** Converts one schema, registering named sub-schemas in `out` (each converted once). */
export function convert(schema: JSONSchema, out: Components, isDefinitionBody = false): Record<string, unknown> {
  const name = definitionNameOf(schema);
  if (name && !isDefinitionBody) {
    if (!out[name]) {
      out[name] = {};
      out[name] = convert(namedDefinition(name) ?? schema, out, true);
    }
    const canonical = namedDefinition(name)?.description;
    if (!schema.description || schema.description === canonical) return ref(name);
    return {
      description: schema.description,
      allOf: [ref(name)],
      ...(schema.default !== undefined ? { default: schema.default } : {}),
    };
  }
  const result: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'properties')
      result[k] = Object.fromEntries(
        Object.entries(v as Record<string, JSONSchema>).map(([p, s]) => [p, convert(s, out)]),
      );
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object'))
      result[k] = convert(v as JSONSchema, out);
    else if (k === 'allOf' || k === 'anyOf' || k === 'oneOf')
      result[k] = (v as JSONSchema[]).map((s) => convert(s, out));
    else if (!(k === 'description' && v === '')) result[k] = v;
  }
  // Built-in documents type Quantity and IntOrString as strings (format int-or-string); validation keeps the
  // precise integer-or-string rule, clients only need a printable type.
  if (isDefinitionBody && schema['x-kubernetes-int-or-string'] && !schema.type) {
    delete result['x-kubernetes-int-or-string'];
    result.type = 'string';
  }
  return result;
}

const gvk = (group: string, version: string, kind: string) => ({ group, version, kind });

/** A create-only kind that is never stored (the reviews): documented with its schema and a POST on its collection. */
export interface CreateOnlyKind {
  group: string;
  version: string;
  kind: string;
  resource: string;
  namespaced: boolean;
  schema: JSONSchema;
}

/** Adds a create-only kind to `out`, marked with its group-version-kind (it has no list). */
export function addCreateOnlySchemas(k: CreateOnlyKind, out: Components): void {
  out[schemaNameOf(k, k.kind)] = {
    ...convert(k.schema, out, true),
    'x-kubernetes-group-version-kind': [gvk(k.group, k.version, k.kind)],
  };
}

/** Adds the kind and its list to `out`, both marked with their group-version-kind. */
export function addKindSchemas(def: KindDefinition, out: Components): void {
  const name = schemaNameOf(def, def.kind);
  out[name] = {
    ...convert(def.schema, out, true),
    'x-kubernetes-group-version-kind': [gvk(def.group, def.version, def.kind)],
  };
  const listKind = listKindOf(def);
  out[schemaNameOf(def, listKind)] = {
    description: `${listKind} is a list of ${def.kind} objects.`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: { type: 'string', description: `APIVersion of the list: ${apiVersionOf(def)}.` },
      kind: { type: 'string', description: `Kind of the list: ${listKind}.` },
      metadata: { description: 'Standard list metadata.', allOf: [ref(`${META}.ListMeta`)], default: {} },
      items: { type: 'array', description: `List of ${def.resource}.`, items: { allOf: [ref(name)], default: {} } },
    },
    'x-kubernetes-group-version-kind': [gvk(def.group, def.version, listKind)],
  };
  convert(listMetaSchema, out);
  // The kinds of projection subresources (autoscaling/v1 Scale) are documented where their paths are.
  for (const target of Object.values(def.projectionSubresources ?? {})) {
    out[schemaNameOf(target, target.kind)] = {
      ...convert(target.schema, out, true),
      'x-kubernetes-group-version-kind': [gvk(target.group, target.version, target.kind)],
    };
  }
}

const str = (description: string) => ({ type: 'string', description });

/** The meta/v1 types every group-version document references from its operations. */
export function addEnvelopeSchemas(out: Components, groupVersions: { group: string; version: string }[]): void {
  out[`${META}.StatusCause`] = {
    type: 'object',
    description: 'StatusCause provides more information about an api.Status failure.',
    properties: {
      field: str('The field of the resource that caused the error, in JSONPath-like form.'),
      message: str('A human-readable description of the cause.'),
      reason: str('A machine-readable description of the cause.'),
    },
  };
  out[`${META}.StatusDetails`] = {
    type: 'object',
    description: 'StatusDetails is a set of additional properties set by the server to explain a Status.',
    properties: {
      causes: {
        type: 'array',
        description: 'The causes of the error, such as invalid fields.',
        items: { allOf: [ref(`${META}.StatusCause`)], default: {} },
        'x-kubernetes-list-type': 'atomic',
      },
      group: str('The group attribute of the resource.'),
      kind: str('The kind attribute of the resource.'),
      name: str('The name attribute of the resource.'),
      retryAfterSeconds: {
        type: 'integer',
        format: 'int32',
        description: 'Seconds to wait before retrying the operation.',
      },
      uid: str('UID of the resource.'),
    },
  };
  out[`${META}.Status`] = {
    type: 'object',
    description: "Status is a return value for calls that don't return other objects.",
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      code: {
        type: 'integer',
        format: 'int32',
        description: 'Suggested HTTP return code for this status, 0 if not set.',
      },
      details: { description: 'Extended data associated with the reason.', allOf: [ref(`${META}.StatusDetails`)] },
      message: str('A human-readable description of the status of this operation.'),
      metadata: { description: 'Standard list metadata.', allOf: [ref(`${META}.ListMeta`)], default: {} },
      reason: str('A machine-readable description of why this operation is in the Failure status.'),
      status: str('Status of the operation: "Success" or "Failure".'),
    },
    'x-kubernetes-group-version-kind': [gvk('', 'v1', 'Status')],
  };
  out[`${META}.Preconditions`] = {
    type: 'object',
    description: 'Preconditions must be fulfilled before an operation (update, delete, etc.) is carried out.',
    properties: {
      resourceVersion: str('Specifies the target ResourceVersion.'),
      uid: str('Specifies the target UID.'),
    },
  };
  out[`${META}.DeleteOptions`] = {
    type: 'object',
    description: 'DeleteOptions may be provided when deleting an API object.',
    properties: {
      apiVersion: str('APIVersion defines the versioned schema of this representation of an object.'),
      kind: str('Kind is a string value representing the REST resource this object represents.'),
      dryRun: {
        type: 'array',
        items: { type: 'string', default: '' },
        description: 'When present, modifications are not persisted. Valid value: All.',
        'x-kubernetes-list-type': 'atomic',
      },
      gracePeriodSeconds: {
        type: 'integer',
        format: 'int64',
        description: 'The duration in seconds before the object should be deleted.',
      },
      ignoreStoreReadErrorWithClusterBreakingPotential: {
        type: 'boolean',
        description: 'Deletes a corrupt object that cannot be read from storage. Dangerous.',
      },
      orphanDependents: { type: 'boolean', description: 'Deprecated: use propagationPolicy.' },
      preconditions: {
        description: 'Must be fulfilled before a deletion is carried out.',
        allOf: [ref(`${META}.Preconditions`)],
      },
      propagationPolicy: str('Whether and how garbage collection will be performed: Orphan, Background or Foreground.'),
    },
    'x-kubernetes-group-version-kind': [...groupVersions.map((gv) => gvk(gv.group, gv.version, 'DeleteOptions'))],
  };
  out[`${META}.Patch`] = {
    type: 'object',
    description: 'Patch is provided to give a concrete name and type to the patch request body.',
  };
  out[`${META}.WatchEvent`] = {
    type: 'object',
    required: ['type', 'object'],
    description: 'Event represents a single event to a watched resource.',
    properties: {
      object: {
        type: 'object',
        description: 'The object: the resource for ADDED, MODIFIED, DELETED and BOOKMARK; a Status for ERROR.',
      },
      type: str('ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.'),
    },
    'x-kubernetes-group-version-kind': groupVersions.map((gv) => gvk(gv.group, gv.version, 'WatchEvent')),
  };
}
