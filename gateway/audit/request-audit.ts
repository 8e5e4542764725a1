// How the filters and handlers after the audit filter add to a request's event, without depending on the audit
// filter itself (which depends on them). A request the policy does not audit has no record: each call is a no-op.
import type { Context } from 'koa';
import type { Level } from './policy.js';

export interface RequestAuditHooks {
  /** `minimum`: recorded only in an event of that level or above (upstream's AddAnnotationWithLevel). */
  annotate(key: string, value: string, minimum?: Level): void;
  /** The request body as decoded: completes objectRef, and is the requestObject from level Request. */
  requestObject(obj: unknown): void;
  /**
   * A patch or apply body: the requestObject from level Request. Unlike a decoded object it says nothing of the
   * objectRef, as upstream's LogRequestPatch (a patch may carry a resourceVersion it only preconditions on).
   */
  requestPatch(patch: unknown): void;
  /** The answer's object: the responseObject at level RequestResponse. */
  responseObject(obj: unknown): void;
  /** A long-running request (watch) sent its headers with this code. */
  responseStarted(code: number): void;
}

const AUDIT_STATE = 'audit';

export function setRequestAudit(ctx: Context, hooks: RequestAuditHooks): void {
  ctx.state[AUDIT_STATE] = hooks;
}

export function auditOf(ctx: Context): RequestAuditHooks | undefined {
  return ctx.state[AUDIT_STATE] as RequestAuditHooks | undefined;
}

export function addAuditAnnotation(ctx: Context, key: string, value: string): void {
  auditOf(ctx)?.annotate(key, value);
}
