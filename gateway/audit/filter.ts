// The two audit filters, where kube-apiserver's handler chain has them: the Audit-Id header first of all (every
// answer carries it, an incoming Audit-ID is kept), and the audit filter after authentication and before
// impersonation, so that the policy sees the authenticated user and the event records whom it impersonated.
// Handlers reach the request's record through request-audit.ts to add the bodies and annotations they alone know;
// unaudited requests have none, so the hot path pays one property read.
import { randomUUID } from 'node:crypto';
import type { Context, Next } from 'koa';
import { isStatusError } from '../../api/meta/errors.js';
import type { UserInfo } from '../../api/meta/user.js';
import { attributesFrom } from '../filters/authorization.js';
import { requestInfoOf, type RequestInfo } from '../request/request-info.js';
import { userOf } from '../request/user.js';
import { isClientEnding } from '../server/connection.js';
import {
  auditUser,
  bodyJson,
  EVENT_API_VERSION,
  microTime,
  type AuditEvent,
  type ObjectReference,
  type ResponseStatus,
} from './event.js';
import { OutgoingEvent } from './encode.js';
import { levelAtLeast, type Level, type RequestAuditConfig, type Stage } from './policy.js';
import type { Attributes } from '../../policies/authorizer.js';
import { setRequestAudit, type RequestAuditHooks } from './request-audit.js';

/** What the filter needs of the configured audit: the policy's answer and where finished events go. */
export interface AuditSink {
  check(attrs: Attributes): RequestAuditConfig;
  /**
   * One event, encoded by the sink for each backend before this returns. Backends count and log their own failures;
   * a promise is returned only when the request is to wait for a blocking backend, and it rejects only when a
   * strict one failed.
   */
  emit(event: OutgoingEvent, stage: Stage): void | Promise<void>;
  now(): number;
}

export function auditIdFilter(ctx: Context, next: Next): Promise<void> {
  const id = ctx.get('audit-id') || randomUUID();
  ctx.state.auditID = id;
  ctx.set('Audit-Id', id);
  return next();
}

/** Upstream's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, without repeats. */
function sourceIPs(ctx: Context): string[] {
  const ips: string[] = [];
  const add = (ip: string | undefined) => {
    const trimmed = ip?.trim();
    if (trimmed && !ips.includes(trimmed)) ips.push(trimmed);
  };
  for (const ip of ctx.get('x-forwarded-for').split(',')) add(ip);
  add(ctx.get('x-real-ip'));
  add(ctx.req.socket.remoteAddress);
  return ips;
}

function objectRefOf(info: RequestInfo): ObjectReference | undefined {
  if (!info.isResourceRequest) return undefined;
  const ref: ObjectReference = { resource: info.resource };
  if (info.namespace) ref.namespace = info.namespace;
  if (info.name) ref.name = info.name;
  if (info.apiGroup) ref.apiGroup = info.apiGroup;
  if (info.apiVersion) ref.apiVersion = info.apiVersion;
  if (info.subresource) ref.subresource = info.subresource;
  return ref;
}

export class RequestAudit implements RequestAuditHooks {
  private readonly event: AuditEvent;
  private readonly user: UserInfo;
  private requestBody?: string;
  private responseValue?: unknown;
  private started = false;

  constructor(
    private readonly ctx: Context,
    private readonly config: RequestAuditConfig,
    private readonly sink: AuditSink,
    user: UserInfo,
  ) {
    const info = requestInfoOf(ctx);
    this.user = user;
    const received = microTime(sink.now());
    this.event = {
      kind: 'Event',
      apiVersion: EVENT_API_VERSION,
      level: config.level,
      auditID: ctx.state.auditID as string,
      stage: 'RequestReceived',
      requestURI: ctx.originalUrl,
      verb: info.verb,
      user: auditUser(this.user),
      sourceIPs: sourceIPs(ctx),
      userAgent: ctx.get('user-agent') || undefined,
      objectRef: objectRefOf(info),
      requestReceivedTimestamp: received,
      stageTimestamp: received,
    };
  }

  annotate(key: string, value: string, minimum?: Level): void {
    if (minimum !== undefined && !levelAtLeast(this.config.level, minimum)) return;
    (this.event.annotations ??= {})[key] = value;
  }

  /** Encoded now: handlers go on to change what they decoded. */
  requestObject(obj: unknown): void {
    const meta = (obj as { metadata?: Record<string, unknown> } | undefined)?.metadata;
    const ref = this.event.objectRef;
    if (ref && meta && typeof meta === 'object') {
      if (!ref.name && typeof meta.name === 'string' && meta.name) ref.name = meta.name;
      if (!ref.namespace && typeof meta.namespace === 'string' && meta.namespace) ref.namespace = meta.namespace;
      // As upstream's LogRequestObject: what the body says of the object it is about, which for an update is the
      // version the client read (a create's body seldom has either).
      if (!ref.uid && typeof meta.uid === 'string' && meta.uid) ref.uid = meta.uid;
      if (!ref.resourceVersion && typeof meta.resourceVersion === 'string' && meta.resourceVersion)
        ref.resourceVersion = meta.resourceVersion;
    }
    if (levelAtLeast(this.config.level, 'Request')) this.requestBody = bodyJson(obj, this.config.omitManagedFields);
  }

  requestPatch(patch: unknown): void {
    if (levelAtLeast(this.config.level, 'Request')) this.requestBody = bodyJson(patch, this.config.omitManagedFields);
  }

  /** Stored objects are immutable once written, so the answer is encoded only when the event is. */
  responseObject(obj: unknown): void {
    if (levelAtLeast(this.config.level, 'RequestResponse')) this.responseValue = obj;
  }

  responseStarted(status: number): void {
    if (this.started) return;
    this.started = true;
    this.event.responseStatus = { metadata: {}, code: status };
    // The watch is under way: a blocking backend's delivery of this stage is not waited for.
    void this.emit('ResponseStarted');
  }

  emit(stage: Stage, withBodies = false): void | Promise<void> {
    if (this.config.omitStages.has(stage)) return;
    this.event.stage = stage;
    this.event.stageTimestamp = microTime(this.sink.now());
    const impersonated = userOf(this.ctx) as UserInfo | undefined;
    if (impersonated && impersonated !== this.user) this.event.impersonatedUser = auditUser(impersonated);
    const response =
      withBodies && this.responseValue !== undefined
        ? bodyJson(this.responseValue, this.config.omitManagedFields)
        : undefined;
    return this.sink.emit(new OutgoingEvent(this.event, withBodies ? this.requestBody : undefined, response), stage);
  }

  finish(status: ResponseStatus): void {
    this.event.responseStatus = status;
  }
}

function failureStatus(e: unknown): ResponseStatus {
  if (isStatusError(e)) {
    const { status, message, reason, details, code } = e.toStatus();
    const out: ResponseStatus = { metadata: {}, status, message, reason, code };
    if (details) out.details = details;
    return out;
  }
  return { metadata: {}, status: 'Failure', message: 'Internal error occurred', reason: 'InternalError', code: 500 };
}

/** Who a request refused by authentication is: nobody (upstream's event has an empty user). */
const NO_USER: UserInfo = { name: '', groups: [] };

/**
 * Just outside authentication, as upstream's WithFailedAuthenticationAudit: a refused credential is audited too
 * (ResponseStarted and ResponseComplete with the 401), evaluated by the policy as a request without a user.
 */
export function createFailedAuthenticationAuditFilter(sink: AuditSink) {
  return async function failedAuthenticationAudit(ctx: Context, next: Next): Promise<void> {
    try {
      await next();
    } catch (e) {
      // Only authentication's own refusal: once it has set a user, a 401 is some later code's.
      if (!isStatusError(e) || e.code !== 401 || ctx.state.user !== undefined) throw e;
      const config = sink.check(attributesFrom(requestInfoOf(ctx), NO_USER));
      if (config.level === 'None') throw e;
      const record = new RequestAudit(ctx, config, sink, NO_USER);
      record.finish(failureStatus(e));
      const started = record.emit('ResponseStarted');
      if (started) await started;
      const completed = record.emit('ResponseComplete');
      if (completed) await completed;
      throw e;
    }
  };
}

export function createAuditFilter(sink: AuditSink) {
  return async function auditFilter(ctx: Context, next: Next): Promise<void> {
    const info = requestInfoOf(ctx);
    const user = userOf(ctx);
    const config = sink.check(attributesFrom(info, user));
    if (config.level === 'None') return next();
    const record = new RequestAudit(ctx, config, sink, user);
    setRequestAudit(ctx, record);
    // Only blocking-strict rejects, and only here: a request that cannot be audited is not served.
    const received = record.emit('RequestReceived');
    if (received) await received;
    try {
      await next();
    } catch (e) {
      record.finish(failureStatus(e));
      // Anything but a StatusError or a client going away is a failure of the server's own: upstream's Panic stage.
      const failed = record.emit(isStatusError(e) || isClientEnding(e) ? 'ResponseComplete' : 'Panic', true);
      if (failed) await failed;
      throw e;
    }
    // The response's own code: a watch writes its head past Koa, whose ctx.status would still read 404.
    record.finish({ metadata: {}, code: ctx.res.statusCode });
    const completed = record.emit('ResponseComplete', true);
    if (completed) await completed;
  };
}
