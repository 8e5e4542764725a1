// SelfSubjectReview: a create-only virtual resource that answers who the
// caller is. Data only: its names and the group versions it is served at. The create itself is wired in
// gateway/handlers/virtual-resources.ts.

export const SELF_SUBJECT_REVIEW_KIND = 'SelfSubjectReview';
export const SELF_SUBJECT_REVIEW_RESOURCE = 'selfsubjectreviews';
export const SELF_SUBJECT_REVIEW_SINGULAR = 'selfsubjectreview';

/** Where it is served and listed in discovery. */
export const SELF_SUBJECT_REVIEW_GROUP = 'authentication.platform.io';
export const SELF_SUBJECT_REVIEW_VERSION = 'v1';

/**
 * Served but not listed: typed clients (`kubectl auth whoami`) hard-code these paths and expect the answer's
 * apiVersion in the same group. Listing them would duplicate the resource in `kubectl api-resources`.
 */
export const SELF_SUBJECT_REVIEW_HIDDEN_ALIASES: readonly { group: string; version: string }[] = [
  { group: 'authentication.k8s.io', version: 'v1' },
  { group: 'authentication.k8s.io', version: 'v1beta1' },
];
