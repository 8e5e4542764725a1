// What the registry needs from the layers around it, as narrow interfaces so each can be built and tested alone.
import type { KObject } from '../../api/meta/types.js';
import type { FieldError } from '../../api/meta/field-errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import type { KindDefinition } from '../../api/scheme.js';

/** Schema-driven checks for one kind (built once per kind from its schema and rules). */
export interface KindValidator {
  /** Removes fields the schema does not know, in place; returns their paths (`spec.foo`). */
  prune(obj: KObject): string[];
  /** Every error of a new object: types, required fields, metadata, kind rules. */
  validate(obj: KObject): FieldError[];
  /** Errors of an update against the stored object (includes validate). */
  validateUpdate(obj: KObject, old: KObject): FieldError[];
  /** Errors of a status write against the stored object. */
  validateStatusUpdate(obj: KObject, old: KObject): FieldError[];
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
  /** Adds an annotation to the request's audit event (a no-op when the request is not audited). */
  annotate?: (key: string, value: string) => void;
}

/**
 * The write context of the server's own writes (controllers, quota charges): never a dry run, no field validation
 * against a body nobody sent, no manager and no user, so ownership and admission checks treat it as the server's.
 */
export function internalWrite(): WriteContext {
  return { dryRun: false, fieldValidation: 'Ignore', duplicateFields: [], warnings: [] };
}

/** One validated write as validating admission sees it: the final object, never to be mutated. */
export interface AdmissionRequest {
  operation: 'CREATE' | 'UPDATE';
  def: KindDefinition;
  /** '' for cluster-scoped kinds. */
  namespace: string;
  name: string;
  /** '' for the object itself, 'status' for a write through /status. */
  subresource: '' | 'status' | 'scale';
  object: KObject;
  /** The stored object, on UPDATE. */
  oldObject?: KObject;
  user?: UserInfo;
  dryRun: boolean;
  /** The request's `Warning:` headers, for plugins that warn instead of refusing. */
  warnings?: string[];
  annotate?: (key: string, value: string) => void;
}

/** A deletion as validating admission sees it: the object as stored, which the deletion removes. */
export interface DeleteAdmissionRequest {
  operation: 'DELETE';
  def: KindDefinition;
  namespace: string;
  name: string;
  oldObject: KObject;
  user?: UserInfo;
  dryRun: boolean;
  warnings?: string[];
  annotate?: (key: string, value: string) => void;
}
