// A KindDefinition is everything the generic registry needs to serve one resource type: names, scope, schema and
// the kind's own rules. Kinds live in api/<group>/<version>/<kind>.ts; the scheme indexes them.
import type { KObject } from './meta/types.js';
import type { FieldError } from './meta/field-errors.js';
import type { JSONSchema } from './schema.js';
import type { VersionDeprecation } from './deprecation.js';

export interface TableColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0: always shown; 1: only with -o wide. */
  priority: number;
  /** Cell value for one object. */
  cell(obj: KObject): unknown;
}

/** The kind a create-only subresource reads and answers (discovery lists it as the subresource's responseKind). */
export interface CreateSubresourceKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * A subresource that reads and writes a projection of the object as another kind (ReplicaSet `scale`, an
 * autoscaling/v1 Scale): GET answers the projection, PUT and PATCH write one back through the parent's update, so
 * the parent's resourceVersion, rules and admission apply. Listed in discovery with verbs [get, patch, update].
 */
export interface ProjectionSubresource extends CreateSubresourceKind {
  /** Complete schema of the projection kind (apiVersion, kind and metadata included): pruning and type checks. */
  schema: JSONSchema;
  /** The projection of a stored object, as GET answers it. */
  read(parent: KObject): KObject;
  /** Rules on a written projection beyond its schema; never mutates. */
  validate(projection: KObject): FieldError[];
  /** Carries an accepted projection into the parent (a private copy), which is then updated as any update is. */
  write(projection: KObject, parent: KObject): void;
  /** Table columns after Name, as for a kind (`kubectl get --subresource=scale`). */
  tableColumns?: TableColumn[];
}

export interface KindDefinition {
  group: string; // '' for the core group
  version: string;
  kind: string;
  resource: string; // plural, as in the URL
  singular: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  /**
   * Other group names the kind is also served under: the `*.k8s.io` groups that typed clients hard-code and existing
   * manifests name. Discovery lists them after every group of ours (so resource and short names resolve to ours),
   * each with its OpenAPI documents. Requests there are authorized and stored as this group; answers carry the group
   * the client asked in, in the object and in the references inside it (mapReferencedGroups).
   */
  groupAliases?: string[];
  /**
   * This version is deprecated: requests to it (the resource and its own-kind status, under every group name) get a
   * Warning header, audit annotations and apiserver_requested_deprecated_apis. Subresources that answer another kind
   * (`scale`, `token`) are that kind's requests and are not announced, as upstream decides by the path's kind.
   */
  deprecation?: VersionDeprecation;
  /**
   * The object with every API group its references name (RBAC bindings' roleRef and subjects) passed through `map`:
   * a copy when something changed, else the object itself. Answers through an alias name the alias group with it.
   */
  mapReferencedGroups?(obj: KObject, map: (group: string) => string): KObject;
  /** Serves <item>/status (get, update, patch) and makes status read-only through the main resource. */
  statusSubresource: boolean;
  /**
   * Create-only subresources (ServiceAccount `token`): POST <item>/<name> with a body of another kind, answered 201
   * by a handler the gateway registers for it (gateway/handlers/create-subresource.ts); listed with verbs [create].
   */
  createSubresources?: Record<string, CreateSubresourceKind>;
  /** Subresources that are projections of the object as another kind (ReplicaSet `scale`). */
  projectionSubresources?: Record<string, ProjectionSubresource>;
  /** With a status subresource, status sent on create is dropped unless this is set (Node registers with status). */
  keepStatusOnCreate?: boolean;
  /**
   * metadata.generation set on create and bumped when anything outside metadata changes, status excepted when it
   * has a subresource of its own.
   */
  tracksGeneration: boolean;
  /** No DELETE of the whole collection (Namespace, as upstream's namespace storage): 405, and not in discovery. */
  noDeleteCollection?: boolean;
  /** DELETE answers the deleted object instead of a Status (ResourceQuota, Namespace). */
  deleteReturnsObject?: boolean;
  /** Strategic merge patch answers 415 (custom kinds, which carry no patch markers to merge by, as upstream). */
  noStrategicMergePatch?: boolean;
  /** PUT on a missing object creates it (the RBAC kinds); otherwise it is a 404. */
  allowCreateOnUpdate?: boolean;
  /** Finalizers held outside metadata.finalizers that also block removal (Namespace spec.finalizers). */
  blockingFinalizers?(obj: KObject): string[];
  /** Mutates the object when its deletion starts (Namespace: status.phase Terminating). */
  beginDeletion?(obj: KObject): void;
  /** Refuses deletion of some objects (built-in namespaces); returns the reason or undefined. */
  forbidDeletion?(obj: KObject): string | undefined;
  /** Complete schema of the object, apiVersion/kind/metadata included. */
  schema: JSONSchema;
  /**
   * What Go's typed decoder refuses in a body the schema accepts (a Secret's base64 data): answered 400
   * `<Kind> in version "<v>" cannot be handled as a <Kind>: <problem>`, before any validation.
   */
  decodeProblem?(obj: KObject): string | undefined;
  /** Fills defaults in place; runs on every decoded write after pruning. */
  defaults?(obj: KObject): void;
  /** On create, before validation (may mutate): e.g. clear fields clients may not set. */
  prepareForCreate?(obj: KObject): void;
  /** On update of the main resource, before validation (may mutate). */
  prepareForUpdate?(obj: KObject, old: KObject): void;
  /** Kind-specific rules beyond the schema; never mutates; returns every error. */
  validate?(obj: KObject): FieldError[];
  /** Rules of a create only, after validate (Event: the strictness depends on create or update). */
  validateCreate?(obj: KObject): FieldError[];
  /**
   * Rules that compare with the stored object (immutable fields); never mutates. A failure that does not fail the
   * update (a custom kind's ratcheted rule) goes to `warnings`, the response's Warning headers.
   */
  validateUpdate?(obj: KObject, old: KObject, warnings?: string[]): FieldError[];
  /** Rules for writes through the status subresource. */
  validateStatusUpdate?(obj: KObject, old: KObject, warnings?: string[]): FieldError[];
  /**
   * The schema errors of an update that still count: a kind whose validation ratchets (custom kinds, as upstream's
   * CRDValidationRatcheting) drops those about values unchanged from the stored object.
   */
  ratchetSchemaErrors?(errs: FieldError[], obj: unknown, old: KObject): FieldError[];
  /** Field-selector values beyond metadata.name and metadata.namespace. */
  selectableFields?(obj: KObject): Record<string, string>;
  /** Extra Table columns after Name (issue: printer columns); absent means the default Name/Created At. */
  tableColumns?: TableColumn[];
  /** tableColumns lists every column, Name included where the kind places it (Event: last, in -o wide). */
  tableColumnsIncludeName?: boolean;
  /**
   * The kind is another representation of objects stored by another resource (events.platform.io/v1 Event over
   * core/v1 events): its keys are that resource's, and every object crosses `storedAs` on its way in and out.
   */
  storedAs?: StoredRepresentation;
}

export interface StoredRepresentation {
  /** Group and resource of the keys the objects live under. */
  group: string;
  resource: string;
  /** A stored object (read-only) in this kind's form: a new object, apiVersion and kind included. */
  fromStorage(stored: KObject): KObject;
  /** This kind's form into the stored one: a new object. */
  toStorage(obj: KObject): KObject;
  /**
   * For a conversion that needs a round trip (a CustomResourceDefinition's conversion webhook): objects cross these
   * instead, a list in one call, and fromStorage and toStorage only give the form selection predicates match against
   * and the placeholder a create starts from.
   */
  convert?: {
    fromStorage(stored: KObject): Promise<KObject>;
    listFromStorage(stored: readonly KObject[]): Promise<KObject[]>;
    toStorage(obj: KObject): Promise<KObject>;
  };
}

export function apiVersionOf(def: Pick<KindDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

export function listKindOf(def: Pick<KindDefinition, 'kind'>): string {
  return `${def.kind}List`;
}
