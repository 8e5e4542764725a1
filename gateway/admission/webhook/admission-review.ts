// The AdmissionReview a webhook receives and the checks on the one it answers, as upstream's webhook request package
// makes and verifies them: the first of the webhook's admissionReviewVersions the server speaks (v1, v1beta1), in
// `admission.k8s.io` unless --admission-review-api-group says `platform.io`; an answer in either group is read. In v1
// the answer must carry the request's uid, and a validating webhook may not answer with a patch.
import { asArr, asObj, asStr } from '../../../api/common/validation-helpers.js';
import type { GroupVersionKind, GroupVersionResource } from '../../registry/admission-types.js';

export const REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof REVIEW_VERSIONS)[number];

/** The two names of the admission group: upstream's, which webhooks written for Kubernetes expect, and ours. */
export const ADMISSION_GROUPS = { 'k8s.io': 'admission.k8s.io', 'platform.io': 'admission.platform.io' } as const;
export type AdmissionReviewGroup = keyof typeof ADMISSION_GROUPS;

/** The first version the webhook accepts that the server speaks, undefined when none. */
export function reviewVersionOf(accepted: readonly string[]): ReviewVersion | undefined {
  return accepted.find((v): v is ReviewVersion => (REVIEW_VERSIONS as readonly string[]).includes(v));
}

/** admission.k8s.io's AdmissionRequest without the objects and options: the same fields in v1 and v1beta1. */
export interface ReviewRequest {
  uid: string;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  subResource?: string;
  requestKind: GroupVersionKind;
  requestResource: GroupVersionResource;
  requestSubResource?: string;
  name?: string;
  namespace?: string;
  operation: string;
  userInfo: { username: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  dryRun: boolean;
}

/** What the review carries beside the request's fields. */
export interface ReviewObjects {
  object: unknown;
  oldObject: unknown;
  options: unknown;
}

export function encodeReview(
  group: AdmissionReviewGroup,
  version: ReviewVersion,
  request: ReviewRequest,
  objects: ReviewObjects,
): string {
  // Empty strings are left out, as Go's omitempty does: webhooks tell a cluster-scoped object by a missing namespace.
  // One literal in the wire's field order, rather than spreads of the request, which cost a copy each per call.
  const omitEmpty = (value: string | undefined) => (value === '' ? undefined : value);
  return JSON.stringify({
    apiVersion: `${ADMISSION_GROUPS[group]}/${version}`,
    kind: 'AdmissionReview',
    request: {
      uid: request.uid,
      kind: request.kind,
      resource: request.resource,
      subResource: omitEmpty(request.subResource),
      requestKind: request.requestKind,
      requestResource: request.requestResource,
      requestSubResource: omitEmpty(request.requestSubResource),
      name: omitEmpty(request.name),
      namespace: omitEmpty(request.namespace),
      operation: request.operation,
      userInfo: request.userInfo,
      object: objects.object,
      oldObject: objects.oldObject,
      dryRun: request.dryRun,
      options: objects.options,
    },
  });
}

/** The Status a webhook refuses with, as much of it as the answer gave. */
export interface ReviewStatus {
  code?: number;
  message?: string;
  reason?: string;
  details?: Record<string, unknown>;
}

export interface ReviewResult {
  allowed: boolean;
  status?: ReviewStatus;
  /** The decoded JSON patch text; undefined when none. */
  patch?: string;
  patchType?: string;
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

const STRICT_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Throws an Error whose message says what is wrong with the answer (upstream's wording). */
export function verifyReviewResponse(
  answer: unknown,
  uid: string,
  version: ReviewVersion,
  mutating: boolean,
): ReviewResult {
  const review = asObj(answer);
  if (!review) throw new Error('webhook response was absent');
  const apiVersion = asStr(review.apiVersion) ?? '';
  const kind = asStr(review.kind) ?? '';
  const groups: string[] = Object.values(ADMISSION_GROUPS);
  const [group, answeredVersion] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  if (!groups.includes(group) || answeredVersion !== version || kind !== 'AdmissionReview')
    throw new Error(
      `expected webhook response of admission.k8s.io/${version}, Kind=AdmissionReview, got ${apiVersion}, Kind=${kind}`,
    );
  const response = asObj(review.response);
  if (!response) throw new Error('webhook response was absent');
  const answeredUid = asStr(response.uid) ?? '';
  // v1beta1 answers were never checked for their uid upstream, and webhooks written for it may leave it out.
  if (version === 'v1' && answeredUid !== uid)
    throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(answeredUid)}`);
  if (response.allowed !== undefined && typeof response.allowed !== 'boolean')
    throw new Error('response.allowed: must be a boolean');
  const rawPatch = response.patch;
  if (rawPatch !== undefined && rawPatch !== null && (typeof rawPatch !== 'string' || !STRICT_BASE64.test(rawPatch)))
    throw new Error('response.patch: must be base64-encoded JSON patch');
  const patch = typeof rawPatch === 'string' && rawPatch !== '' ? Buffer.from(rawPatch, 'base64').toString() : '';
  const patchType = asStr(response.patchType) ?? '';
  if (version === 'v1') {
    if (patch !== '' && patchType === '') throw new Error('webhook returned response.patch but not response.patchType');
    if (patchType !== '' && patch === '') throw new Error('webhook returned response.patchType but not response.patch');
  }
  if (!mutating && patch !== '') throw new Error('validating webhook may not return response.patch');
  if (!mutating && patchType !== '') throw new Error('validating webhook may not return response.patchType');
  const status = asObj(response.status);
  const auditAnnotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(asObj(response.auditAnnotations) ?? {}))
    if (typeof value === 'string') auditAnnotations[key] = value;
  return {
    allowed: response.allowed === true,
    status: status
      ? {
          code: typeof status.code === 'number' && Number.isInteger(status.code) ? status.code : undefined,
          message: asStr(status.message),
          reason: asStr(status.reason),
          details: asObj(status.details),
        }
      : undefined,
    patch: patch === '' ? undefined : patch,
    patchType: patchType === '' ? undefined : patchType,
    warnings: asArr(response.warnings).filter((w): w is string => typeof w === 'string'),
    auditAnnotations,
  };
}
