// The SubjectAccessReview the webhook authorizer sends and the answer it reads. Wire choices:
// - group: `authorization.platform.io`, where this API serves its access reviews; answers in the same
//   version of either that group or upstream's `authorization.k8s.io` are read, so a stock webhook that answers with
//   its own apiVersion keeps working.
// - v1 spells the groups `groups`, v1beta1 `group` (the only difference in the fields sent); empty strings and lists
//   are left out (omitempty upstream).
// - matchConditions see the v1 spec with every field present (empty when unset), so an expression reading
//   `request.groups` on a user without groups does not fail on a missing key; `resourceAttributes` and
//   `nonResourceAttributes` exist only on their kind of request, so `has(request.resourceAttributes)` works.
import type { Attributes } from '../authorizer.js';

export const SAR_GROUP = 'authorization.platform.io';
export const UPSTREAM_SAR_GROUP = 'authorization.k8s.io';
export type SarVersion = 'v1' | 'v1beta1';

export type SarSpec = Record<string, unknown>;

function compact(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined || v === '' || (Array.isArray(v) && v.length === 0)) continue;
    if (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

function resourceAttributes(attrs: Attributes): Record<string, string> {
  return {
    namespace: attrs.namespace,
    verb: attrs.verb,
    group: attrs.apiGroup,
    version: attrs.apiVersion,
    resource: attrs.resource,
    subresource: attrs.subresource,
    name: attrs.name,
  };
}

/** The spec as sent in `version`; its JSON is also the cache key (the whole review, as upstream keys it). */
export function sarSpec(attrs: Attributes, version: SarVersion): SarSpec {
  const spec: Record<string, unknown> = {
    user: attrs.user.name,
    uid: attrs.user.uid,
    [version === 'v1' ? 'groups' : 'group']: attrs.user.groups,
    extra: attrs.user.extra,
  };
  if (attrs.isResourceRequest) spec.resourceAttributes = compact(resourceAttributes(attrs));
  else spec.nonResourceAttributes = compact({ path: attrs.path, verb: attrs.verb });
  const out = compact(spec);
  // An empty attribute object still says which kind of request this is.
  if (attrs.isResourceRequest) out.resourceAttributes = spec.resourceAttributes;
  else out.nonResourceAttributes = spec.nonResourceAttributes;
  return out;
}

/**
 * The group the review is sent in: `authorization.k8s.io` when the webhook's URL is an API server's
 * `/apis/authorization.k8s.io/<version>/subjectaccessreviews` (another Gatehouse, or kube-apiserver, which would refuse
 * a body whose apiVersion is not the path's), ours otherwise.
 */
export function sarGroupFor(server: URL): string {
  return server.pathname.includes(`/apis/${UPSTREAM_SAR_GROUP}/`) ? UPSTREAM_SAR_GROUP : SAR_GROUP;
}

export function sarBody(spec: SarSpec, version: SarVersion, group: string = SAR_GROUP): Record<string, unknown> {
  return { apiVersion: `${group}/${version}`, kind: 'SubjectAccessReview', spec };
}

/** The `request` variable of matchConditions: the v1 spec, every field present. */
export function matchConditionRequest(attrs: Attributes): Record<string, unknown> {
  const request: Record<string, unknown> = {
    user: attrs.user.name,
    uid: attrs.user.uid ?? '',
    groups: [...attrs.user.groups],
    extra: { ...(attrs.user.extra ?? {}) },
  };
  if (attrs.isResourceRequest) request.resourceAttributes = resourceAttributes(attrs);
  else request.nonResourceAttributes = { path: attrs.path, verb: attrs.verb };
  return request;
}

export interface SarStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
  evaluationError: string;
}

export class MalformedReviewError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedReviewError';
  }
}

/** Reads the webhook's answer; anything that is not a SubjectAccessReview of the expected version is malformed. */
export function parseSarResponse(text: string, version: SarVersion): SarStatus {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new MalformedReviewError('the webhook answered with a body that is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new MalformedReviewError('the webhook answer is not an object');
  const review = body as Record<string, unknown>;
  const accepted = [`${SAR_GROUP}/${version}`, `${UPSTREAM_SAR_GROUP}/${version}`];
  if (review.apiVersion !== undefined && !accepted.includes(String(review.apiVersion))) {
    throw new MalformedReviewError(
      `the webhook answered with apiVersion ${JSON.stringify(review.apiVersion)}, expected ${accepted[0]}`,
    );
  }
  if (review.kind !== undefined && review.kind !== 'SubjectAccessReview') {
    throw new MalformedReviewError(
      `the webhook answered with kind ${JSON.stringify(review.kind)}, expected SubjectAccessReview`,
    );
  }
  const status = review.status ?? {};
  if (typeof status !== 'object' || status === null || Array.isArray(status))
    throw new MalformedReviewError('the webhook answer has a status that is not an object');
  const s = status as Record<string, unknown>;
  for (const key of ['allowed', 'denied'] as const) {
    if (s[key] !== undefined && typeof s[key] !== 'boolean')
      throw new MalformedReviewError(`the webhook answer has a status.${key} that is not a boolean`);
  }
  for (const key of ['reason', 'evaluationError'] as const) {
    if (s[key] !== undefined && typeof s[key] !== 'string')
      throw new MalformedReviewError(`the webhook answer has a status.${key} that is not a string`);
  }
  return {
    allowed: s.allowed === true,
    denied: s.denied === true,
    reason: (s.reason as string | undefined) ?? '',
    evaluationError: (s.evaluationError as string | undefined) ?? '',
  };
}
