// The ConversionReview a conversion webhook receives and the checks on its answer, as apiextensions-apiserver's
// webhook converter makes and verifies them: the first of the definition's conversionReviewVersions the server speaks
// (v1, v1beta1), in `apiextensions.k8s.io` unless --admission-review-api-group says `platform.io` (the one switch for
// every review webhooks receive); an answer in either group is read. A v1 answer must carry the request's uid.
import { asObj, asStr } from '../../api/common/validation-helpers.js';
import type { KObject } from '../../api/meta/types.js';
import type { AdmissionReviewGroup } from '../admission/webhook/admission-review.js';

export const CONVERSION_REVIEW_VERSIONS = ['v1', 'v1beta1'] as const;
export type ConversionReviewVersion = (typeof CONVERSION_REVIEW_VERSIONS)[number];

/** The two names of the apiextensions group, by the same switch as admission reviews. */
export const CONVERSION_GROUPS: Record<AdmissionReviewGroup, string> = {
  'k8s.io': 'apiextensions.k8s.io',
  'platform.io': 'apiextensions.platform.io',
};

/** The first version the definition lists that the server speaks, undefined when none. */
export function conversionReviewVersionOf(accepted: readonly string[]): ConversionReviewVersion | undefined {
  return accepted.find((v): v is ConversionReviewVersion =>
    (CONVERSION_REVIEW_VERSIONS as readonly string[]).includes(v),
  );
}

export function encodeConversionReview(
  group: AdmissionReviewGroup,
  version: ConversionReviewVersion,
  request: { uid: string; desiredAPIVersion: string; objects: readonly KObject[] },
): string {
  // The empty response beside the request is upstream's wire form: its review is sent with both halves.
  return JSON.stringify({
    apiVersion: `${CONVERSION_GROUPS[group]}/${version}`,
    kind: 'ConversionReview',
    request,
    response: { uid: '', convertedObjects: null, result: { metadata: {} } },
  });
}

/** Go's GroupVersionKind.String() of an apiVersion and kind: `group/version, Kind=kind`. */
export function gvkText(apiVersion: string, kind: string): string {
  const slash = apiVersion.indexOf('/');
  const [group, version] = slash < 0 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
  return `${group}/${version}, Kind=${kind}`;
}

/**
 * The convertedObjects of a successful answer; throws an Error whose message says what is wrong (upstream's wording:
 * a failed conversion's result.message as the webhook wrote it).
 */
export function convertedObjectsOf(
  answer: unknown,
  sent: { group: AdmissionReviewGroup; version: ConversionReviewVersion; uid: string },
): unknown[] {
  const review = asObj(answer);
  if (!review) throw new Error('no response provided');
  if (sent.version === 'v1') {
    const apiVersion = asStr(review.apiVersion) ?? '';
    const kind = asStr(review.kind) ?? '';
    const understood = Object.values(CONVERSION_GROUPS).map((group) => `${group}/v1`);
    if (!understood.includes(apiVersion) || kind !== 'ConversionReview')
      throw new Error(
        `expected webhook response of ${CONVERSION_GROUPS[sent.group]}/v1, Kind=ConversionReview, got ${gvkText(apiVersion, kind)}`,
      );
  }
  const response = asObj(review.response);
  if (!response) throw new Error('no response provided');
  // v1beta1 answers were never checked for their uid upstream, and webhooks written for it may leave it out.
  const uid = asStr(response.uid) ?? '';
  if (sent.version === 'v1' && uid !== sent.uid)
    throw new Error(`expected response.uid=${JSON.stringify(sent.uid)}, got ${JSON.stringify(uid)}`);
  const result = asObj(response.result) ?? {};
  const status = asStr(result.status) ?? '';
  if (status !== 'Success') {
    const message = asStr(result.message) ?? '';
    throw new Error(message !== '' ? message : `response.result.status was '${status}', not 'Success'`);
  }
  const converted = response.convertedObjects;
  if (converted === undefined || converted === null) return [];
  if (!Array.isArray(converted)) throw new Error('response.convertedObjects: must be a list of objects');
  return converted;
}
