// The audit Event as audit.k8s.io/v1 writes it (field names, omitted empties, microsecond timestamps), and its
// serialization to one JSON line. Request and response bodies travel as JSON text already made, so that an event is
// encoded once and a body captured early cannot change under it.
import type { UserInfo } from '../../api/meta/user.js';
import type { Level, Stage } from './policy.js';

/** The apiVersion of emitted events: the one the tools that read audit logs expect. */
export const EVENT_API_VERSION = 'audit.k8s.io/v1';

export interface AuditUser {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface ResponseStatus {
  metadata: Record<string, never>;
  status?: string;
  message?: string;
  reason?: string;
  details?: unknown;
  code: number;
}

export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs?: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: ResponseStatus;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

export function auditUser(user: UserInfo): AuditUser {
  const out: AuditUser = {};
  if (user.name) out.username = user.name;
  if (user.uid) out.uid = user.uid;
  if (user.groups.length > 0) out.groups = user.groups;
  if (user.extra && Object.keys(user.extra).length > 0) out.extra = user.extra;
  return out;
}

/** metav1.MicroTime's form; the clock has milliseconds, so the last three digits are zeros. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

/** `obj` without metadata.managedFields (items' too, for lists), copying only what it changes. */
export function withoutManagedFields(obj: unknown): unknown {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return obj;
  const o = obj as Record<string, unknown>;
  let out = o;
  const meta = o.metadata as Record<string, unknown> | undefined;
  if (meta && typeof meta === 'object' && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta;
    out = { ...o, metadata: rest };
  }
  if (Array.isArray(o.items)) out = { ...out, items: o.items.map(withoutManagedFields) };
  return out;
}

/** JSON text of a body for the event, or undefined when it cannot be written as JSON. */
export function bodyJson(obj: unknown, omitManagedFields: boolean): string | undefined {
  try {
    return JSON.stringify(omitManagedFields ? withoutManagedFields(obj) : obj);
  } catch {
    return undefined;
  }
}

/** One JSON line (no newline) with the bodies placed as upstream orders them, after responseStatus. */
export function serializeEvent(event: AuditEvent, requestObject?: string, responseObject?: string): string {
  const { requestReceivedTimestamp, stageTimestamp, annotations, ...head } = event;
  let line = JSON.stringify(head);
  line = line.slice(0, -1);
  if (requestObject !== undefined) line += `,"requestObject":${requestObject}`;
  if (responseObject !== undefined) line += `,"responseObject":${responseObject}`;
  line += `,"requestReceivedTimestamp":"${requestReceivedTimestamp}","stageTimestamp":"${stageTimestamp}"`;
  if (annotations) line += `,"annotations":${JSON.stringify(annotations)}`;
  return `${line}}`;
}
