// The shapes of apiextensions/v1 CustomResourceDefinition (upstream's types.go) and the readers the kind, the status
// controller and, later, the serving of custom objects share. `servedDefinitionOf` is the in-memory form a validated
// definition is served from: one typed object per definition, built once per revision.
import type { KObject } from '../../meta/types.js';
import { asArr, asObj, asStr, type Obj } from '../../common/validation-helpers.js';
import type { JSONSchemaProps } from './schema-props.js';

export const APIEXTENSIONS_GROUP = 'apiextensions.platform.io';
export const APIEXTENSIONS_GROUP_ALIASES = ['apiextensions.k8s.io'];
/** Upstream's finalizer: a definition leaves storage only after its objects are gone. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';
export const DEFAULT_WEBHOOK_PORT = 443;
export const SCOPES = ['Cluster', 'Namespaced'];
export const CONVERSION_STRATEGIES = ['None', 'Webhook'];

export interface CRDNames {
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
}

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority: number;
  jsonPath: string;
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface ServedVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string;
  schema: JSONSchemaProps;
  statusSubresource: boolean;
  scale?: ScaleSubresource;
  printerColumns: PrinterColumn[];
  selectableFields: string[];
}

export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port: number };
  caBundle?: string;
}

/** Everything serving a definition's objects needs, read once from a validated definition. */
export interface ServedDefinition {
  name: string;
  uid: string;
  resourceVersion: string;
  group: string;
  names: CRDNames;
  namespaced: boolean;
  versions: ServedVersion[];
  storageVersion: string;
  conversion:
    { strategy: 'None' } | { strategy: 'Webhook'; clientConfig: WebhookClientConfig; reviewVersions: string[] };
}

const strList = (v: unknown): string[] => asArr(v).filter((x): x is string => typeof x === 'string');

export function namesOf(raw: unknown): CRDNames {
  const n = asObj(raw) ?? {};
  return {
    plural: asStr(n.plural) ?? '',
    singular: asStr(n.singular) ?? '',
    kind: asStr(n.kind) ?? '',
    listKind: asStr(n.listKind) ?? '',
    shortNames: strList(n.shortNames),
    categories: strList(n.categories),
  };
}

export const crdSpecOf = (crd: KObject): Obj => asObj(crd.spec) ?? {};
export const versionsOf = (crd: KObject): Obj[] => asArr(crdSpecOf(crd).versions).map((v) => asObj(v) ?? {});
export const storageVersionOf = (crd: KObject): string | undefined =>
  asStr(versionsOf(crd).find((v) => v.storage === true)?.name);
export const storedVersionsOf = (crd: KObject): string[] => strList(asObj(crd.status)?.storedVersions);

export function crdConditionsOf(crd: KObject): CRDCondition[] {
  return asArr(asObj(crd.status)?.conditions).flatMap((c) => (asObj(c) ? [c as CRDCondition] : []));
}

export function crdCondition(crd: KObject, type: string): CRDCondition | undefined {
  return crdConditionsOf(crd).find((c) => c.type === type);
}

export const isEstablished = (crd: KObject): boolean => crdCondition(crd, 'Established')?.status === 'True';

function printerColumnsOf(v: Obj): PrinterColumn[] {
  return asArr(v.additionalPrinterColumns).map((raw) => {
    const c = asObj(raw) ?? {};
    return {
      name: asStr(c.name) ?? '',
      type: asStr(c.type) ?? '',
      format: asStr(c.format),
      description: asStr(c.description),
      priority: typeof c.priority === 'number' ? c.priority : 0,
      jsonPath: asStr(c.jsonPath) ?? '',
    };
  });
}

function webhookClientConfigOf(raw: unknown): WebhookClientConfig {
  const c = asObj(raw) ?? {};
  const service = asObj(c.service);
  return {
    url: asStr(c.url),
    caBundle: asStr(c.caBundle),
    service: service && {
      namespace: asStr(service.namespace) ?? '',
      name: asStr(service.name) ?? '',
      path: asStr(service.path),
      port: typeof service.port === 'number' ? service.port : DEFAULT_WEBHOOK_PORT,
    },
  };
}

/** The served form of a definition that passed validation (its defaults applied). */
export function servedDefinitionOf(crd: KObject): ServedDefinition {
  const spec = crdSpecOf(crd);
  const versions = versionsOf(crd).map((v): ServedVersion => {
    const subresources = asObj(v.subresources) ?? {};
    const scale = asObj(subresources.scale);
    return {
      name: asStr(v.name) ?? '',
      served: v.served === true,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      deprecationWarning: asStr(v.deprecationWarning),
      schema: asObj(asObj(v.schema)?.openAPIV3Schema) ?? {},
      statusSubresource: asObj(subresources.status) !== undefined,
      scale: scale && {
        specReplicasPath: asStr(scale.specReplicasPath) ?? '',
        statusReplicasPath: asStr(scale.statusReplicasPath) ?? '',
        labelSelectorPath: asStr(scale.labelSelectorPath),
      },
      printerColumns: printerColumnsOf(v),
      selectableFields: asArr(v.selectableFields).flatMap((f) => strList([asObj(f)?.jsonPath])),
    };
  });
  const conversion = asObj(spec.conversion) ?? {};
  const webhook = asObj(conversion.webhook) ?? {};
  return {
    name: crd.metadata.name ?? '',
    uid: crd.metadata.uid ?? '',
    resourceVersion: crd.metadata.resourceVersion ?? '',
    group: asStr(spec.group) ?? '',
    names: namesOf(asObj(crd.status)?.acceptedNames ?? spec.names),
    namespaced: spec.scope === 'Namespaced',
    versions,
    storageVersion: storageVersionOf(crd) ?? '',
    conversion:
      conversion.strategy === 'Webhook'
        ? {
            strategy: 'Webhook',
            clientConfig: webhookClientConfigOf(webhook.clientConfig),
            reviewVersions: strList(webhook.conversionReviewVersions),
          }
        : { strategy: 'None' },
  };
}
