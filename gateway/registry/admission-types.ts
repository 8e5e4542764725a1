// What the registry needs from the layers around it, as narrow interfaces so each can be built and tested alone.
import type { KObject } from '../../api/meta/types.js';
import type { FieldError } from '../../api/meta/field-errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import type { KindDefinition } from '../../api/scheme.js';
import type { Level } from '../audit/policy.js';

export type AuditAnnotator = (key: string, value: string, minimum?: Level) => void;

/** Schema-driven checks for one kind (built once per kind from its schema and rules). */
export interface KindValidator {
  /** Removes fields the schema does not know, in place; returns their paths (`spec.foo`). */
  prune(obj: KObject): string[];
  /** Every error of a new object: types, required fields, metadata, kind rules. */
  validate(obj: KObject): FieldError[];
  /** Errors of an update against the stored object (includes validate); `warnings` collects what only warns. */
  validateUpdate(obj: KObject, old: KObject, warnings?: string[]): FieldError[];
  /** Errors of a status write against the stored object. */
  validateStatusUpdate(obj: KObject, old: KObject, warnings?: string[]): FieldError[];
}

/** NamespaceLifecycle admission: refuses content in namespaces that are missing or terminating. */
export interface NamespaceGate {
  admitCreate(namespace: string): Promise<void>;
  /** Told of each namespace deletion through this gateway, before it is written. */
  deleted?(name: string): void;
}

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** Per-request write settings the handler resolved from the query. */
export interface WriteContext {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** Duplicate fields the decoder found in the body. */
  duplicateFields: string[];
  /** Collected for `Warning:` response headers. */
  warnings: string[];
  /**
   * The field manager an API write records in metadata.managedFields (the fieldManager parameter, else derived from
   * the User-Agent). Internal writes (controllers) leave it unset and change no ownership.
   */
  fieldManager?: string;
  /** Who writes; absent for the server's own writes (controllers, bootstrap), which admission checks skip. */
  user?: UserInfo;
  /**
   * Adds an annotation to the request's audit event (a no-op when the request is not audited), only at `minimum`
   * level or above when given.
   */
  annotate?: AuditAnnotator;
  /** What admission is told of the API request behind the write; absent for the server's own writes. */
  request?: RequestAttributes;
}

/** The request as the client made it, which admission reports beside the kind served (AdmissionRequest.request*). */
export interface RequestAttributes {
  /** The group the path named: a `*.k8s.io` alias of the kind's group, or the group itself. */
  group: string;
  /** The write's options as the query gave them, before any defaulting (the manager is not derived here). */
  dryRun: string[];
  fieldManager: string;
  fieldValidation: string;
}

/**
 * The write context of the server's own writes (controllers, quota charges): never a dry run, no field validation
 * against a body nobody sent, no manager and no user, so ownership and admission checks treat it as the server's.
 */
export function internalWrite(): WriteContext {
  return { dryRun: false, fieldValidation: 'Ignore', duplicateFields: [], warnings: [] };
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/**
 * The options object of the operation, as kube-apiserver puts it in AdmissionReview.request.options: a
 * meta.k8s.io/v1 CreateOptions (a create, an apply that creates), UpdateOptions (an update; a patch's PatchOptions
 * travel as UpdateOptions) or DeleteOptions, each with only the fields the request set.
 */
export interface AdmissionOptions {
  apiVersion: 'meta.k8s.io/v1';
  kind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions';
  dryRun?: string[];
  fieldManager?: string;
  fieldValidation?: string;
  [field: string]: unknown;
}

/** What every admission request tells of the request, as upstream's AdmissionRequest (admission.k8s.io/v1). */
interface RequestIdentity {
  /** Unique to this admission request (upstream gives each webhook call a fresh UUID; a plugin may use this one). */
  uid: string;
  def: KindDefinition;
  /** The kind of `object`: the resource's own, an autoscaling/v1 Scale through `scale`, a TokenRequest through `token`. */
  kind: GroupVersionKind;
  /** The resource as served: the kind's own group (`*.platform.io`), whatever group the client used. */
  resource: GroupVersionResource;
  /** `kind`, `resource` and the subresource as the client addressed them: the `*.k8s.io` alias group if it used one. */
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource: string;
  /** '' for cluster-scoped kinds. */
  namespace: string;
  name: string;
  user?: UserInfo;
  dryRun: boolean;
  options: AdmissionOptions;
  /** The request's `Warning:` headers, for plugins that warn instead of refusing. */
  warnings?: string[];
  annotate?: AuditAnnotator;
}

/**
 * One write as admission sees it. In the mutating phase a plugin may change `object` in place (or replace it); the
 * registry then prunes, defaults and validates the result again, and refuses a change of metadata.name, namespace,
 * uid or resourceVersion. In the validating phase `object` is the final object, never to be changed.
 */
export interface AdmissionRequest extends RequestIdentity {
  operation: 'CREATE' | 'UPDATE';
  /** '' for the object itself; 'status', 'scale' or 'token' for a write through that subresource. */
  subresource: '' | 'status' | 'scale' | 'token';
  object: KObject;
  /** The stored object, on UPDATE. */
  oldObject?: KObject;
}

/** A deletion as both phases see it: the object as stored, which the deletion removes, and no object to change. */
export interface DeleteAdmissionRequest extends RequestIdentity {
  operation: 'DELETE';
  oldObject: KObject;
}
