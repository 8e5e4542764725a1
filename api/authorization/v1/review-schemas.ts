// Schemas of the access reviews, for the OpenAPI documents only (requests are checked by access-reviews.ts):
// `kubectl explain` reads them from v3, and kubectl's client-side validation of a review file from v2.
import type { JSONSchema } from '../../schema.js';
import { kindSchema } from '../../common/object-meta.js';
import { arr, bool, map, named, obj, preserved, str, stringList } from '../../common/schema-builders.js';
import {
  AUTHORIZATION_GROUP,
  AUTHORIZATION_VERSION,
  LOCAL_SUBJECT_ACCESS_REVIEW,
  SELF_SUBJECT_ACCESS_REVIEW,
  SELF_SUBJECT_RULES_REVIEW,
  SUBJECT_ACCESS_REVIEW,
  type ReviewKind,
} from './access-reviews.js';

const PKG = 'io.platform.api.authorization.v1';

const resourceAttributes = named(
  `${PKG}.ResourceAttributes`,
  obj(
    {
      namespace: str('The namespace of the action; "" means all namespaces for namespaced resources.'),
      verb: str('A kubernetes resource API verb, like get, list, watch, create, update, delete, proxy; "*" means all.'),
      group: str('The API group of the resource; "*" means all.'),
      version: str('The API version of the resource; "*" means all.'),
      resource: str('One of the existing resource types; "*" means all.'),
      subresource: str('One of the existing resource types; "" means none.'),
      name: str('The name of the resource being requested for a "get" or deleted for a "delete"; "" means all.'),
      fieldSelector: preserved('A field selector limiting the request (accepted, not evaluated here).'),
      labelSelector: preserved('A label selector limiting the request (accepted, not evaluated here).'),
    },
    'ResourceAttributes includes the authorization attributes available for resource requests to the Authorizer interface.',
  ),
);

const nonResourceAttributes = named(
  `${PKG}.NonResourceAttributes`,
  obj(
    {
      path: str('The URL path of the request.'),
      verb: str('The standard HTTP verb.'),
    },
    'NonResourceAttributes includes the authorization attributes available for non-resource requests to the Authorizer interface.',
  ),
);

const attributes = {
  resourceAttributes: { ...resourceAttributes, description: 'Information for a resource access request.' },
  nonResourceAttributes: { ...nonResourceAttributes, description: 'Information for a non-resource access request.' },
};

const subjectSpec = named(
  `${PKG}.SubjectAccessReviewSpec`,
  obj(
    {
      ...attributes,
      user: str('The user you are testing for; with no groups given, the user is checked as not in any group.'),
      groups: stringList('The groups you are testing for.', 'atomic'),
      extra: map(stringList(''), 'Extra information about the user, as the authenticator provides it.'),
      uid: str('Information about the requesting user.'),
    },
    'SubjectAccessReviewSpec is a description of the access request. Exactly one of ResourceAttributes and NonResourceAttributes must be set.',
  ),
);

const selfSpec = named(
  `${PKG}.SelfSubjectAccessReviewSpec`,
  obj(
    attributes,
    'SelfSubjectAccessReviewSpec is a description of the access request. Exactly one of ResourceAttributes and NonResourceAttributes must be set.',
  ),
);

const accessStatus = named(
  `${PKG}.SubjectAccessReviewStatus`,
  obj(
    {
      allowed: bool('Whether the action is allowed.'),
      denied: bool('Whether the action is denied; both allowed and denied false means the authorizer has no opinion.'),
      reason: str('Why the request was allowed or denied.'),
      evaluationError: str('An indication that some error occurred during the authorization check.'),
    },
    'SubjectAccessReviewStatus',
    ['allowed'],
  ),
);

const rulesSpec = named(
  `${PKG}.SelfSubjectRulesReviewSpec`,
  obj(
    {
      namespace: str('The namespace to evaluate rules for. Required.'),
    },
    'SelfSubjectRulesReviewSpec defines the specification for SelfSubjectRulesReview.',
  ),
);

const rulesStatus = named(
  `${PKG}.SubjectRulesReviewStatus`,
  obj(
    {
      resourceRules: arr(
        named(
          `${PKG}.ResourceRule`,
          obj(
            {
              verbs: stringList('Verbs the rule allows; "*" means all.', 'atomic'),
              apiGroups: stringList('API groups of the resources; "*" means all.', 'atomic'),
              resources: stringList('Resources the rule applies to; "*" means all.', 'atomic'),
              resourceNames: stringList('An optional allow-list of names; "*" means all.', 'atomic'),
            },
            'ResourceRule is the list of actions the subject is allowed to perform on resources.',
            ['verbs'],
          ),
        ),
        'The actions the subject may perform on resources; the list ordering is not significant.',
        'atomic',
      ),
      nonResourceRules: arr(
        named(
          `${PKG}.NonResourceRule`,
          obj(
            {
              verbs: stringList('Verbs the rule allows; "*" means all.', 'atomic'),
              nonResourceURLs: stringList('Partial URLs a user may access; a trailing * is a wildcard.', 'atomic'),
            },
            'NonResourceRule holds information that describes a rule for the non-resource',
            ['verbs'],
          ),
        ),
        'The actions the subject may perform on non-resources; the list ordering is not significant.',
        'atomic',
      ),
      incomplete: bool('Whether the rules are incomplete, as when an authorizer cannot list its rules.'),
      evaluationError: str('Why the rules could not be fully evaluated.'),
    },
    'SubjectRulesReviewStatus contains the result of a rules check.',
    ['resourceRules', 'nonResourceRules', 'incomplete'],
  ),
);

function reviewSchema(kind: ReviewKind, description: string, spec: JSONSchema, status: JSONSchema): JSONSchema {
  return kindSchema({
    group: AUTHORIZATION_GROUP,
    version: AUTHORIZATION_VERSION,
    kind: kind.kind,
    description,
    required: ['spec'],
    properties: {
      spec: { ...spec, description: 'Spec holds information about the request being evaluated.' },
      status: {
        ...status,
        description: 'Status is filled in by the server and indicates whether the request is allowed or not.',
      },
    },
  });
}

/** Each review kind's complete schema, by kind. */
export const ACCESS_REVIEW_SCHEMAS: Record<string, JSONSchema> = {
  [SELF_SUBJECT_ACCESS_REVIEW.kind]: reviewSchema(
    SELF_SUBJECT_ACCESS_REVIEW,
    'SelfSubjectAccessReview checks whether the current user can perform an action.',
    selfSpec,
    accessStatus,
  ),
  [SUBJECT_ACCESS_REVIEW.kind]: reviewSchema(
    SUBJECT_ACCESS_REVIEW,
    'SubjectAccessReview checks whether a user or group can perform an action.',
    subjectSpec,
    accessStatus,
  ),
  [LOCAL_SUBJECT_ACCESS_REVIEW.kind]: reviewSchema(
    LOCAL_SUBJECT_ACCESS_REVIEW,
    'LocalSubjectAccessReview checks whether a user or group can perform an action in a given namespace.',
    subjectSpec,
    accessStatus,
  ),
  [SELF_SUBJECT_RULES_REVIEW.kind]: reviewSchema(
    SELF_SUBJECT_RULES_REVIEW,
    'SelfSubjectRulesReview enumerates the set of actions the current user can perform within a namespace.',
    rulesSpec,
    rulesStatus,
  ),
};
