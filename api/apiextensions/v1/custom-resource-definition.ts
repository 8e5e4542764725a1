// CustomResourceDefinition: a kind users define, its names, versions and schemas. This file is the definition's own
// kind (defaults, create and update preparation, rules); serving the kinds it defines is a later step, which starts
// from servedDefinitionOf (crd-types.ts). Upstream: apiextensions-apiserver's v1 types, defaults and strategy.
import type { KindDefinition } from '../../scheme.js';
import type { KObject } from '../../meta/types.js';
import { kindSchema } from '../../common/object-meta.js';
import { describe } from '../../common/schema-builders.js';
import { asArr, asObj, asStr } from '../../common/validation-helpers.js';
import {
  APIEXTENSIONS_GROUP,
  APIEXTENSIONS_GROUP_ALIASES,
  CRD_CLEANUP_FINALIZER,
  DEFAULT_WEBHOOK_PORT,
  storageVersionOf,
  storedVersionsOf,
  type CRDCondition,
} from './crd-types.js';
import { crdSpecSchema, crdStatusSchema } from './crd-schema.js';
import { normalizeSchemaProps } from './schema-props.js';
import { validateCRD, validateCRDCreate, validateCRDStatus, validateCRDUpdate } from './crd-validation.js';

/** SetDefaults_CustomResourceDefinition(Spec), SetDefaults_CustomResourceConversion and SetDefaults_ServiceReference. */
export function defaultCRD(crd: KObject): void {
  const spec = asObj(crd.spec);
  if (!spec) return;
  const names = asObj(spec.names);
  if (names) {
    const kind = asStr(names.kind) ?? '';
    if (!names.singular) names.singular = kind.toLowerCase();
    if (!names.listKind && kind !== '') names.listKind = `${kind}List`;
  }
  if (!asObj(spec.conversion)) spec.conversion = { strategy: 'None' };
  const conversion = asObj(spec.conversion)!;
  if (!conversion.strategy) conversion.strategy = 'None';
  const service = asObj(asObj(asObj(conversion.webhook)?.clientConfig)?.service);
  if (service && (service.port === undefined || service.port === null)) service.port = DEFAULT_WEBHOOK_PORT;
  pruneSchemaKeywords(crd);
}

/**
 * Drops the schema keys JSONSchemaProps does not have, as decoding into the Go type does (the kind schema keeps
 * openAPIV3Schema opaque); returns their paths for the unknown-field report of fieldValidation.
 */
export function pruneSchemaKeywords(crd: KObject): string[] {
  const unknown: string[] = [];
  asArr(asObj(crd.spec)?.versions).forEach((v, i) => {
    const schema = asObj(asObj(v)?.schema);
    if (schema) normalizeSchemaProps(schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`, unknown);
  });
  return unknown;
}

/** The storage version joins storedVersions the first time it is written with it (upstream's strategy). */
function recordStorageVersion(crd: KObject): void {
  const storage = storageVersionOf(crd);
  const stored = storedVersionsOf(crd);
  if (storage === undefined || stored.includes(storage)) return;
  crd.status = { ...(asObj(crd.status) ?? {}), storedVersions: [...stored, storage] };
}

/** Terminating while the definition's objects are removed (upstream's registry, on the first DELETE). */
function markTerminating(crd: KObject): void {
  const status = asObj(crd.status) ?? {};
  const others = asArr(status.conditions).filter((c) => asObj(c)?.type !== 'Terminating');
  const terminating: CRDCondition = {
    type: 'Terminating',
    status: 'True',
    lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    reason: 'InstanceDeletionInProgress',
    message: 'CustomResource deletion is in progress',
  };
  crd.status = { ...status, conditions: [...others, terminating] };
}

export const customResourceDefinition: KindDefinition = {
  group: APIEXTENSIONS_GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  resource: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  groupAliases: APIEXTENSIONS_GROUP_ALIASES,
  statusSubresource: true,
  tracksGeneration: true,
  schema: kindSchema({
    group: APIEXTENSIONS_GROUP,
    version: 'v1',
    kind: 'CustomResourceDefinition',
    description:
      'CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.',
    properties: {
      spec: describe(crdSpecSchema, 'spec describes how the user wants the resources to appear'),
      status: describe(crdStatusSchema, 'status indicates the actual state of the CustomResourceDefinition'),
    },
    required: ['spec'],
  }),
  defaults: defaultCRD,
  prepareForCreate(crd) {
    crd.status = { acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
    recordStorageVersion(crd);
    const finalizers = crd.metadata.finalizers ?? [];
    if (!finalizers.includes(CRD_CLEANUP_FINALIZER)) crd.metadata.finalizers = [...finalizers, CRD_CLEANUP_FINALIZER];
  },
  prepareForUpdate: (crd) => recordStorageVersion(crd),
  beginDeletion: markTerminating,
  validate: validateCRD,
  validateCreate: validateCRDCreate,
  validateUpdate: (crd, old) => validateCRDUpdate(crd, old),
  validateStatusUpdate: (crd) => validateCRDStatus(crd),
};
