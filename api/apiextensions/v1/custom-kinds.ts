// The kinds a served CustomResourceDefinition defines: one KindDefinition per served version, all of them reading
// and writing the objects of one key space in the storage version's form (conversion None: only apiVersion differs).
// Every version, the storage version included, reads through a representation, which fills the version's defaults
// into stored objects as upstream does on read.
import type { KObject } from '../../meta/types.js';
import type { JSONSchema } from '../../schema.js';
import type { KindDefinition, StoredRepresentation } from '../../scheme.js';
import { kindSchema } from '../../common/object-meta.js';
import { errors } from '../../meta/errors.js';
import type { ServedDefinition, ServedVersion } from './crd-types.js';
import { withSchemaDefaults } from './schema-defaults.js';
import { customScale } from './custom-scale.js';
import { printerColumnsOf } from './printer-columns.js';
import { fieldNamesOf, valueAtFields } from './json-path.js';
import { ratchetSchemaErrors } from './ratcheting.js';

/**
 * The object's schema: the version's openAPIV3Schema with apiVersion, kind and metadata as every kind has them
 * (a definition may only constrain metadata's name, which ObjectMeta's own rules already cover).
 */
function objectSchema(served: ServedDefinition, version: ServedVersion): JSONSchema {
  const declared = version.schema as JSONSchema;
  const base = kindSchema({
    group: served.group,
    version: version.name,
    kind: served.names.kind,
    properties: {},
    description: declared.description ?? '',
  });
  return { ...declared, type: 'object', properties: { ...declared.properties, ...base.properties } };
}

/** Rewrites apiVersion only: conversion None, as upstream's nopConverter. */
function withApiVersion(obj: KObject, apiVersion: string): KObject {
  return obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion };
}

const defaulted = (version: ServedVersion, obj: KObject): KObject => withSchemaDefaults(version.schema, obj) as KObject;

/**
 * Converts objects to `apiVersion` (conversion Webhook: the definition's webhook), one object or a list in one call;
 * objects already in it come back as they are, in their places.
 */
export interface VersionConverter {
  one(obj: KObject, apiVersion: string): Promise<KObject>;
  list(objects: readonly KObject[], apiVersion: string): Promise<KObject[]>;
}

function storedAsStorageVersion(
  served: ServedDefinition,
  version: ServedVersion,
  converter: VersionConverter | undefined,
): StoredRepresentation {
  const storageApiVersion = `${served.group}/${served.storageVersion}`;
  const apiVersion = `${served.group}/${version.name}`;
  return {
    group: served.group,
    resource: served.names.plural,
    fromStorage: (stored) => defaulted(version, withApiVersion(stored, apiVersion)),
    toStorage: (obj) => withApiVersion(obj, storageApiVersion),
    // Defaults fill what the converted form lacks, as upstream defaults after converting on read.
    convert: converter && {
      fromStorage: async (stored) => defaulted(version, await converter.one(stored, apiVersion)),
      listFromStorage: async (stored) =>
        (await converter.list(stored, apiVersion)).map((obj) => defaulted(version, obj)),
      toStorage: (obj) => converter.one(obj, storageApiVersion),
    },
  };
}

/** Field selector values of a version's selectableFields: `spec.color=red`, as upstream names them by path. */
function selectableFieldsOf(version: ServedVersion): KindDefinition['selectableFields'] {
  if (version.selectableFields.length === 0) return undefined;
  const paths = version.selectableFields.map((path) => ({ name: path.slice(1), fields: fieldNamesOf(path) }));
  return (obj) => {
    const values: Record<string, string> = {};
    for (const { name, fields } of paths) {
      const value = valueAtFields(obj, fields);
      values[name] =
        typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : '';
    }
    return values;
  };
}

/** The storage version first, so that a lookup by group and kind finds the form objects are kept in. */
/** `terminating`: the definition is being deleted, its objects with it, and no new one may be created. */
/** `converter`: the definition's conversion webhook, which conversion Webhook needs (None rewrites apiVersion). */
export function customKindsOf(
  served: ServedDefinition,
  terminating = false,
  converter?: VersionConverter,
): KindDefinition[] {
  const versions = served.versions
    .filter((v) => v.served)
    .sort((a, b) => Number(b.name === served.storageVersion) - Number(a.name === served.storageVersion));
  return versions.map((version): KindDefinition => ({
    group: served.group,
    version: version.name,
    kind: served.names.kind,
    resource: served.names.plural,
    singular: served.names.singular || served.names.kind.toLowerCase(),
    namespaced: served.namespaced,
    shortNames: served.names.shortNames.length > 0 ? served.names.shortNames : undefined,
    categories: served.names.categories.length > 0 ? served.names.categories : undefined,
    statusSubresource: version.statusSubresource,
    projectionSubresources: version.scale ? { scale: customScale(version.scale) } : undefined,
    tracksGeneration: true,
    noStrategicMergePatch: true,
    tableColumns: printerColumnsOf(version.printerColumns),
    selectableFields: selectableFieldsOf(version),
    schema: objectSchema(served, version),
    prepareForCreate: terminating
      ? () => {
          throw errors.definitionTerminating(served.group, served.names.plural);
        }
      : undefined,
    defaults(obj) {
      const filled = defaulted(version, obj);
      if (filled !== obj) Object.assign(obj, filled);
    },
    storedAs: storedAsStorageVersion(served, version, converter),
    ratchetSchemaErrors: (errs, obj, old) => ratchetSchemaErrors(version.schema, errs, obj, old),
  }));
}
