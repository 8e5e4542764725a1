// The one error catalog. Every failure the server answers is a StatusError; its messages follow kube-apiserver's
// wording because clients (kubectl among them) print them verbatim and some match on them.
import type { Status, StatusCause, StatusDetails } from './types.js';
import { fieldErrorMessage, type FieldError } from './field-errors.js';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'ServiceUnavailable'
  /** Upstream's StatusReasonUnknown: a plain error answered as it is (a failed CRD conversion), without a reason. */
  | '';

/** Names a resource in messages: "nodes" or "replicasets.apps". */
export interface GroupResource {
  group: string;
  resource: string;
}

export function qualifiedResource(gr: GroupResource): string {
  return gr.group ? `${gr.resource}.${gr.group}` : gr.resource;
}

export class StatusError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details?: StatusDetails;
  /** Extra response headers the error needs (Retry-After). */
  readonly headers: Record<string, string>;

  constructor(
    code: number,
    reason: StatusReason,
    message: string,
    details?: StatusDetails,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'StatusError';
    this.code = code;
    this.reason = reason;
    this.details = details;
    this.headers = headers;
  }

  toStatus(): Status {
    const status: Status = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.reason === '') delete status.reason;
    // An empty details object is kept: kube-apiserver sends `details: {}` for its generic 404 and 405.
    if (this.details !== undefined) status.details = this.details;
    return status;
  }
}

export function isStatusError(e: unknown): e is StatusError {
  return e instanceof StatusError;
}

function named(gr: GroupResource, name?: string): StatusDetails {
  const d: StatusDetails = { kind: gr.resource };
  if (name) d.name = name;
  if (gr.group) d.group = gr.group;
  return d;
}

export const errors = {
  badRequest: (message: string, causes?: StatusCause[]) =>
    new StatusError(400, 'BadRequest', message, causes ? { causes } : undefined),

  unauthorized: (message = 'Unauthorized') => new StatusError(401, 'Unauthorized', message),

  forbidden: (gr: GroupResource, name: string, why: string) => {
    const what = name ? `${qualifiedResource(gr)} "${name}"` : qualifiedResource(gr);
    return new StatusError(403, 'Forbidden', `${what} is forbidden: ${why}`, named(gr, name));
  },

  forbiddenPath: (why: string) => new StatusError(403, 'Forbidden', `forbidden: ${why}`),

  notFound: (gr: GroupResource, name: string) =>
    new StatusError(404, 'NotFound', `${qualifiedResource(gr)} "${name}" not found`, named(gr, name)),

  pathNotFound: () => new StatusError(404, 'NotFound', 'the server could not find the requested resource', {}),

  alreadyExists: (gr: GroupResource, name: string) =>
    new StatusError(409, 'AlreadyExists', `${qualifiedResource(gr)} "${name}" already exists`, named(gr, name)),

  /** Server-side apply conflicts: one FieldManagerConflict cause per field (upstream's NewApplyConflict). */
  applyConflict: (message: string, causes: StatusCause[]) => new StatusError(409, 'Conflict', message, { causes }),

  conflict: (gr: GroupResource, name: string, why: string) =>
    new StatusError(
      409,
      'Conflict',
      `Operation cannot be fulfilled on ${qualifiedResource(gr)} "${name}": ${why}`,
      named(gr, name),
    ),

  staleObject: (gr: GroupResource, name: string) =>
    errors.conflict(
      gr,
      name,
      'the object has been modified; please apply your changes to the latest version and try again',
    ),

  invalid: (kind: string, group: string, name: string, fieldErrs: FieldError[]) => {
    const messages = fieldErrs.map(fieldErrorMessage);
    const summary = messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`;
    const causes: StatusCause[] = fieldErrs.map((e) => ({
      reason: e.type,
      message: fieldErrorMessage(e).slice(e.field.length + 2),
      field: e.field,
    }));
    const details: StatusDetails = { name, kind, causes };
    if (group) details.group = group;
    const qualifiedKind = group ? `${kind}.${group}` : kind;
    return new StatusError(422, 'Invalid', `${qualifiedKind} "${name}" is invalid: ${summary}`, details);
  },

  gone: (message: string) => new StatusError(410, 'Expired', message),

  resourceExpired: (message: string) => new StatusError(410, 'Expired', message),

  /** kube-apiserver answers every method a path does not serve with this one message. */
  methodNotAllowed: () =>
    new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {}),

  /** A custom object created while its definition is being deleted: upstream's crdHandler refuses it so. */
  definitionTerminating: (group: string, resource: string) =>
    new StatusError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating', {
      group,
      kind: resource,
    }),

  notAcceptable: (supported: string[]) =>
    new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${supported.join(', ')}`),

  unsupportedMediaType: (contentType: string, supported: string[]) =>
    new StatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format (${contentType || 'none given'}) - accepted media types include: ${supported.join(', ')}`,
    ),

  requestEntityTooLarge: (limit: number) =>
    new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limit}`),

  tooLargeResourceVersion: (requested: bigint | string, current: bigint | string, retryAfterSeconds = 1) =>
    new StatusError(
      504,
      'Timeout',
      `Too large resource version: ${requested}, current: ${current}`,
      { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),

  tooManyRequests: (message: string, retryAfterSeconds: number) =>
    new StatusError(
      429,
      'TooManyRequests',
      message,
      { retryAfterSeconds },
      { 'Retry-After': String(retryAfterSeconds) },
    ),

  timeout: (message: string) => new StatusError(504, 'Timeout', message),

  serviceUnavailable: (message: string) => new StatusError(503, 'ServiceUnavailable', message),

  /** Never leaks the cause to the client; the caller logs it. */
  internal: (message = 'an error on the server has prevented the request from succeeding') =>
    new StatusError(500, 'InternalError', `Internal error occurred: ${message}`),
};
