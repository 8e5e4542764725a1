// SelfSubjectReview: a create-only virtual resource that answers who the
// caller is. Data only: its names, the group versions it is served at and its schema. The create itself is wired in
// gateway/handlers/virtual-resources.ts.
import type { JSONSchema } from '../../schema.js';
import { kindSchema } from '../../common/object-meta.js';
import { map, obj, str, stringList } from '../../common/schema-builders.js';

export const SELF_SUBJECT_REVIEW_KIND = 'SelfSubjectReview';
export const SELF_SUBJECT_REVIEW_RESOURCE = 'selfsubjectreviews';
export const SELF_SUBJECT_REVIEW_SINGULAR = 'selfsubjectreview';

/** Where it is served and listed in discovery. */
export const SELF_SUBJECT_REVIEW_GROUP = 'authentication.platform.io';
export const SELF_SUBJECT_REVIEW_VERSION = 'v1';

/**
 * Also served at (and listed after our groups): typed clients (`kubectl auth whoami`) hard-code these paths and expect
 * the answer's apiVersion in the same group.
 */
export const SELF_SUBJECT_REVIEW_GROUP_ALIASES: readonly { group: string; version: string }[] = [
  { group: 'authentication.k8s.io', version: 'v1' },
  { group: 'authentication.k8s.io', version: 'v1beta1' },
];

/** The kind's schema, for the OpenAPI documents (`kubectl explain selfsubjectreviews`). */
export const SELF_SUBJECT_REVIEW_SCHEMA: JSONSchema = kindSchema({
  group: SELF_SUBJECT_REVIEW_GROUP,
  version: SELF_SUBJECT_REVIEW_VERSION,
  kind: SELF_SUBJECT_REVIEW_KIND,
  description:
    'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
  properties: {
    status: obj(
      {
        userInfo: obj(
          {
            username: str('The name that uniquely identifies this user among all active users.'),
            uid: str('A unique value that identifies this user across time.'),
            groups: stringList('The names of groups this user is a part of.', 'atomic'),
            extra: map(stringList(''), 'Any additional information provided by the authenticator.'),
          },
          'User attributes of the user making this request.',
        ),
      },
      'Status is filled in by the server with the user attributes.',
    ),
  },
});
