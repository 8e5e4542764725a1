// Whether one webhook is called for a write, and the call itself, as upstream's generic webhook plugin and its
// dispatchers do: the rules (under matchPolicy Equivalent, through our groups' `*.k8s.io` aliases too, the review then
// naming the alias the rule named), the namespace and object selectors, the matchConditions; then the review, its
// answer's checks, the warnings and audit annotations it carries, and for a mutating webhook its JSON patch. What a
// call ends in is an outcome the dispatcher turns into metrics and, by failurePolicy, into a refusal or not.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { KObject } from '../../../api/meta/types.js';
import { StatusError, errors, type GroupResource } from '../../../api/meta/errors.js';
import type { ProjectionSubresource } from '../../../api/scheme.js';
import type { Authorizer } from '../../../policies/authorizer.js';
import { evaluateWithAuthorizer } from '../../../policies/cel/index.js';
import type { AdmissionRequest, DeleteAdmissionRequest } from '../../registry/admission-types.js';
import { applyJsonPatch } from '../../patch/json-patch.js';
import { ruleMatches, selectorInput, selectorsMatch, type MatchAttributes } from '../match-rules.js';
import {
  encodeReview,
  reviewVersionOf,
  verifyReviewResponse,
  type AdmissionReviewGroup,
  type ReviewRequest,
  type ReviewResult,
} from './admission-review.js';
import { reviewUserInfo } from '../policy/request-value.js';
import type { CompiledWebhook } from './webhook-config.js';
import type { WebhookClient } from './webhook-client.js';
import { WebhookCallError } from './webhook-client.js';
import { dryRunUnsupported, internalError, webhookDenial } from './webhook-errors.js';

export type Request = AdmissionRequest | DeleteAdmissionRequest;

/** One write as the webhooks see it: through a projection (`scale`) they see the projection, as upstream. */
export interface WriteView {
  req: Request;
  object?: KObject;
  oldObject?: KObject;
  subresource: string;
  projection?: ProjectionSubresource;
  namespaceObject?: KObject;
}

export type CallOutcome =
  /** `patch`: the JSON patch operations applied, even when they changed nothing; `patched`: the changed object. */
  | { kind: 'allowed'; patched?: KObject; patch?: unknown[] }
  /** The webhook could not be called or answered nonsense: failurePolicy decides. */
  | { kind: 'calling'; reason: string; code: number }
  /** The webhook said no. */
  | { kind: 'rejected'; error: StatusError }
  /** Something on our side (a patch that cannot apply, dry run unsupported): refuses whatever failurePolicy says. */
  | { kind: 'internal'; error: StatusError };

export interface CallDeps {
  client: WebhookClient;
  reviewGroup: AdmissionReviewGroup;
  authorizer?: Authorizer;
}

/** Upstream's RuntimeCELCostBudgetMatchConditions: what all matchConditions of one webhook may spend together. */
const MATCH_CONDITIONS_BUDGET = 7_000_000;

function attributesOf(view: WriteView): MatchAttributes {
  const { def } = view.req;
  return {
    operation: view.req.operation,
    group: def.group,
    groupAliases: def.groupAliases ?? [],
    requestGroup: view.req.requestResource.group,
    version: def.version,
    resource: def.resource,
    subresource: view.subresource,
    namespaced: def.namespaced,
    name: view.req.name,
  };
}

/**
 * The group the webhook is called in: the one the client addressed when a rule names it; under Equivalent else our
 * own group or the first alias a rule names (upstream tries the request's own resource, then its equivalents);
 * undefined when no rule matches.
 */
function matchedGroup(hook: CompiledWebhook, a: MatchAttributes): string | undefined {
  const candidates = hook.equivalent ? new Set([a.requestGroup, a.group, ...a.groupAliases]) : [a.requestGroup];
  for (const group of candidates) {
    const attributes = { ...a, group, groupAliases: [], requestGroup: group };
    if (hook.rules.some((r) => ruleMatches(r, attributes, false))) return group;
  }
  return undefined;
}

export interface Invocation {
  hook: CompiledWebhook;
  group: string;
  request: ReviewRequest;
}

/** The invocation of a webhook that applies to the write; undefined when it does not; a refusal when conditions fail. */
export async function invocationOf(
  hook: CompiledWebhook,
  view: WriteView,
  authorizer: Authorizer | undefined,
): Promise<Invocation | StatusError | undefined> {
  const attributes = attributesOf(view);
  const group = matchedGroup(hook, attributes);
  if (group === undefined) return undefined;
  const labels = selectorInput(view.req.def, view.namespaceObject, view.object, view.oldObject);
  if (!selectorsMatch(hook.namespaceSelector, hook.objectSelector, labels)) return undefined;
  const request = requestOf(view, group);
  const gr: GroupResource = { group: view.req.def.group, resource: view.req.def.resource };
  if (hook.conditionError !== undefined)
    return hook.failurePolicy === 'Ignore' ? undefined : errors.forbidden(gr, view.req.name, hook.conditionError);
  const failures: string[] = [];
  let spent = 0;
  for (const condition of hook.matchConditions) {
    const activation = {
      object: withGroup(view.object, group, view.req.def) ?? null,
      oldObject: withGroup(view.oldObject, group, view.req.def) ?? null,
      request,
    };
    try {
      const run = (authorizerValue: unknown) => {
        const { value, cost } = condition.program.evaluateWithCost({ ...activation, authorizer: authorizerValue });
        spent += cost;
        if (spent > MATCH_CONDITIONS_BUDGET) throw new Error('operation cancelled: actual cost limit exceeded');
        return value;
      };
      const user = view.req.user;
      const value = user && authorizer ? await evaluateWithAuthorizer(authorizer, user, run) : run(undefined);
      // Any false condition skips the webhook, even when another one failed.
      if (value !== true) return undefined;
    } catch (e) {
      failures.push(`expression '${condition.program.expression}' resulted in error: ${(e as Error).message}`);
    }
  }
  if (failures.length > 0) {
    if (hook.failurePolicy === 'Ignore') return undefined;
    return errors.forbidden(gr, view.req.name, failures.length === 1 ? failures[0] : `[${failures.join(', ')}]`);
  }
  return { hook, group, request };
}

/**
 * An object as the webhook's group names it: under Equivalent a rule naming the alias sees the alias. Only the
 * resource's own kind is renamed; another kind written through a subresource (a Scale, a TokenRequest) keeps its own.
 */
function withGroup(object: KObject | undefined, group: string, def: Request['def']): KObject | undefined {
  if (!object || !object.apiVersion?.includes('/')) return object;
  const [objectGroup, version] = object.apiVersion.split('/', 2);
  if (objectGroup === group || (objectGroup !== def.group && !def.groupAliases?.includes(objectGroup))) return object;
  return { ...object, apiVersion: `${group}/${version}` };
}

/** admission.k8s.io's AdmissionRequest without the objects: the review's and the matchConditions' `request`. */
function requestOf(view: WriteView, group: string): ReviewRequest {
  const { req } = view;
  const { def } = req;
  // Under Equivalent the webhook is told the kind and resource in the group its rule named; requestKind and
  // requestResource keep what the client wrote to.
  const alias = group !== def.group;
  return {
    // Upstream gives every call its own uid, reinvocations included.
    uid: randomUUID(),
    kind: alias && req.kind.group === def.group ? { ...req.kind, group } : req.kind,
    resource: alias ? { ...req.resource, group } : req.resource,
    subResource: view.subresource,
    requestKind: req.requestKind,
    requestResource: req.requestResource,
    requestSubResource: req.requestSubResource,
    name: req.name || (view.object?.metadata.name ?? view.oldObject?.metadata.name ?? ''),
    namespace: req.namespace,
    operation: req.operation,
    userInfo: reviewUserInfo(req.user),
    dryRun: req.dryRun,
  };
}

/** Calls the webhook; for a mutating one, applies its patch to the view's object. */
export async function callWebhook(deps: CallDeps, invocation: Invocation, view: WriteView): Promise<CallOutcome> {
  const { hook, group } = invocation;
  const mutating = hook.type === 'mutating';
  // v1 allows only None and NoneOnDryRun; a configuration stored through v1beta1 may still say Unknown or Some.
  if (view.req.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun')
    return { kind: 'internal', error: dryRunUnsupported(hook.name) };
  const version = reviewVersionOf(hook.admissionReviewVersions);
  if (!version)
    return {
      kind: 'calling',
      reason: `webhook does not accept known AdmissionReview versions (${hook.admissionReviewVersions.join(', ')})`,
      code: 500,
    };
  const { uid } = invocation.request;
  const body = encodeReview(deps.reviewGroup, version, invocation.request, {
    object: withGroup(view.object, group, view.req.def) ?? null,
    oldObject: withGroup(view.oldObject, group, view.req.def) ?? null,
    options: view.req.options,
  });
  let result: ReviewResult;
  try {
    const answer = await deps.client.post(hook, body);
    try {
      result = verifyReviewResponse(answer, uid, version, mutating);
    } catch (e) {
      return { kind: 'calling', reason: `received invalid webhook response: ${(e as Error).message}`, code: 503 };
    }
  } catch (e) {
    if (!(e instanceof WebhookCallError)) throw e;
    return { kind: 'calling', reason: `failed to call webhook: ${e.message}`, code: e.code };
  }
  for (const [key, value] of Object.entries(result.auditAnnotations)) view.req.annotate?.(`${hook.name}/${key}`, value);
  for (const warning of result.warnings) view.req.warnings?.push(warning);
  const gr: GroupResource = { group: view.req.def.group, resource: view.req.def.resource };
  if (!result.allowed) return { kind: 'rejected', error: webhookDenial(gr, view.req.name, hook.name, result.status) };
  if (result.patch === undefined) return { kind: 'allowed' };
  return applyPatch(hook, view, result, gr);
}

function applyPatch(hook: CompiledWebhook, view: WriteView, result: ReviewResult, gr: GroupResource): CallOutcome {
  let operations: unknown;
  try {
    operations = JSON.parse(result.patch ?? '');
    if (!Array.isArray(operations))
      throw new Error('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  } catch (e) {
    return {
      kind: 'calling',
      reason: `received undecodable patch in webhook response: ${(e as Error).message}`,
      code: 503,
    };
  }
  if (operations.length === 0) return { kind: 'allowed' };
  if (!view.object)
    return {
      kind: 'internal',
      error: internalError(
        `admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`,
      ),
    };
  if (result.patchType !== 'JSONPatch')
    return {
      kind: 'calling',
      reason: `unsupported patch type ${JSON.stringify(result.patchType ?? '')}`,
      code: webhookDenial(gr, view.req.name, hook.name, result.status).code,
    };
  let patched: unknown;
  try {
    patched = applyJsonPatch(view.object, operations);
  } catch (e) {
    return { kind: 'internal', error: internalError((e as Error).message + causesOf(e)) };
  }
  if (typeof patched !== 'object' || patched === null || Array.isArray(patched))
    return { kind: 'internal', error: internalError('the patched object is not a JSON object') };
  const next = patched as KObject;
  next.apiVersion = view.object.apiVersion;
  next.kind = view.object.kind;
  return { kind: 'allowed', patched: isDeepStrictEqual(next, view.object) ? undefined : next, patch: operations };
}

function causesOf(e: unknown): string {
  if (!(e instanceof StatusError)) return '';
  const causes = e.details?.causes?.map((c) => c.message).filter(Boolean) ?? [];
  return causes.length > 0 ? `: ${causes.join('; ')}` : '';
}
