// The access reviews as virtual resources: each create asks the authorizer chain the
// question the spec states and answers it in `status`. Served at authorization.platform.io/v1 and at its alias, the
// authorization.k8s.io/v1 paths stock kubectl uses (answers carry the requested group's apiVersion).
// - SelfSubjectAccessReview: may the caller do this?
// - SubjectAccessReview: may spec.user/groups/uid/extra do this?
// - LocalSubjectAccessReview: the same, confined to the path's namespace (a different namespace in the body is a 400).
// - SelfSubjectRulesReview: what may the caller do in spec.namespace (the chain's rulesFor; `incomplete` when a member,
//   such as a webhook, cannot list its rules).
import { errors } from '../../api/meta/errors.js';
import { isObject } from '../../api/meta/types.js';
import type { UserInfo } from '../../api/meta/user.js';
import {
  accessReviewStatus,
  AUTHORIZATION_GROUP,
  AUTHORIZATION_GROUP_ALIASES,
  AUTHORIZATION_VERSION,
  LOCAL_SUBJECT_ACCESS_REVIEW,
  SELF_SUBJECT_ACCESS_REVIEW,
  SELF_SUBJECT_RULES_REVIEW,
  SUBJECT_ACCESS_REVIEW,
  validateAccessReviewSpec,
  validateReviewMetadata,
  type AccessReviewSpec,
  type ReviewKind,
} from '../../api/authorization/v1/access-reviews.js';
import { ACCESS_REVIEW_SCHEMAS } from '../../api/authorization/v1/review-schemas.js';
import { isRuleResolver, type Attributes, type Authorizer } from '../../policies/authorizer.js';
import type { VirtualCreateContext, VirtualResource } from './virtual-resources.js';

/** Maps an alias group (`rbac.authorization.k8s.io`) to the canonical one authorization sees. */
export type CanonicalGroup = (group: string) => string;

function attributesOf(spec: AccessReviewSpec, user: UserInfo, canonicalGroup: CanonicalGroup): Attributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: ra.verb,
      isResourceRequest: true,
      path: '',
      apiGroup: canonicalGroup(ra.group),
      apiVersion: ra.version,
      resource: ra.resource,
      subresource: ra.subresource,
      namespace: ra.namespace,
      name: ra.name,
    };
  }
  const nra = spec.nonResourceAttributes!;
  return {
    user,
    verb: nra.verb,
    isResourceRequest: false,
    path: nra.path,
    apiGroup: '',
    apiVersion: '',
    resource: '',
    subresource: '',
    namespace: '',
    name: '',
  };
}

function bodyOf(ctx: VirtualCreateContext): Record<string, unknown> {
  return isObject(ctx.body) ? ctx.body : {};
}

/** The review as answered: what was sent (spec, metadata without server fields), the apiVersion of the path, status. */
function answer(
  apiVersion: string,
  kind: ReviewKind,
  body: Record<string, unknown>,
  status: unknown,
  namespace = '',
): unknown {
  const metadata: Record<string, unknown> = { creationTimestamp: null };
  if (namespace) metadata.namespace = namespace;
  return { kind: kind.kind, apiVersion, metadata, spec: body.spec ?? {}, status };
}

function invalid(kind: ReviewKind, group: string, errs: ReturnType<typeof validateReviewMetadata>) {
  return errors.invalid(kind.kind, group, '', errs);
}

function accessReview(
  group: string,
  version: string,
  aliasOf: string | undefined,
  kind: ReviewKind,
  authorizer: Authorizer,
  canonicalGroup: CanonicalGroup,
): VirtualResource {
  const apiVersion = `${group}/${version}`;
  const subject = kind !== SELF_SUBJECT_ACCESS_REVIEW;
  return {
    group,
    version,
    aliasOf,
    namespaced: kind.namespaced,
    resource: kind.resource,
    singular: kind.singular,
    kind: kind.kind,
    schema: ACCESS_REVIEW_SCHEMAS[kind.kind],
    async create(ctx) {
      const body = bodyOf(ctx);
      const { spec, errors: specErrors } = validateAccessReviewSpec(body.spec, subject);
      const errs = [...specErrors, ...validateReviewMetadata(body.metadata, kind.namespaced)];
      if (errs.length > 0) throw invalid(kind, group, errs);
      if (kind.namespaced) {
        const metaNamespace =
          isObject(body.metadata) && typeof body.metadata.namespace === 'string' ? body.metadata.namespace : '';
        if (metaNamespace && metaNamespace !== ctx.namespace) {
          throw errors.badRequest(
            'the namespace of the provided object does not match the namespace sent on the request',
          );
        }
        // A local review is confined to its namespace: the question must be about it.
        if (spec.resourceAttributes) {
          if (spec.resourceAttributes.namespace && spec.resourceAttributes.namespace !== ctx.namespace) {
            throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${ctx.namespace}`);
          }
          spec.resourceAttributes.namespace = ctx.namespace;
        }
      }
      const who: UserInfo = subject
        ? { name: spec.user, uid: spec.uid || undefined, groups: spec.groups, extra: spec.extra }
        : ctx.user;
      const result = await authorizer.authorize(attributesOf(spec, who, canonicalGroup), ctx.callerGone);
      return answer(
        apiVersion,
        kind,
        body,
        accessReviewStatus(result.decision, result.reason, result.evaluationError),
        kind.namespaced ? ctx.namespace : '',
      );
    },
  };
}

function selfSubjectRulesReview(
  group: string,
  version: string,
  aliasOf: string | undefined,
  authorizer: Authorizer,
): VirtualResource {
  const apiVersion = `${group}/${version}`;
  const kind = SELF_SUBJECT_RULES_REVIEW;
  return {
    group,
    version,
    aliasOf,
    namespaced: false,
    resource: kind.resource,
    singular: kind.singular,
    kind: kind.kind,
    schema: ACCESS_REVIEW_SCHEMAS[kind.kind],
    async create(ctx) {
      const body = bodyOf(ctx);
      const metaErrs = validateReviewMetadata(body.metadata, false);
      if (metaErrs.length > 0) throw invalid(kind, group, metaErrs);
      const spec = isObject(body.spec) ? body.spec : {};
      if (spec.namespace !== undefined && typeof spec.namespace !== 'string') {
        throw invalid(kind, group, [
          { type: 'FieldValueTypeInvalid', field: 'spec.namespace', value: spec.namespace, detail: 'must be a string' },
        ]);
      }
      const namespace = spec.namespace ?? '';
      if (namespace === '') throw errors.badRequest('no namespace on request');
      const rules = isRuleResolver(authorizer)
        ? await authorizer.rulesFor(ctx.user, namespace)
        : { resourceRules: [], nonResourceRules: [], incomplete: true };
      const status: Record<string, unknown> = {
        resourceRules: rules.resourceRules,
        nonResourceRules: rules.nonResourceRules,
        incomplete: rules.incomplete,
      };
      if (rules.evaluationError) status.evaluationError = rules.evaluationError;
      return answer(apiVersion, kind, body, status);
    },
  };
}

/** The four reviews at every group version they are served at. */
export function accessReviewResources(
  authorizer: Authorizer,
  canonicalGroup: CanonicalGroup = (g) => g,
): VirtualResource[] {
  const at: { group: string; version: string; aliasOf?: string }[] = [
    { group: AUTHORIZATION_GROUP, version: AUTHORIZATION_VERSION },
    ...AUTHORIZATION_GROUP_ALIASES.map((a) => ({ ...a, aliasOf: AUTHORIZATION_GROUP })),
  ];
  return at.flatMap(({ group, version, aliasOf }) => [
    accessReview(group, version, aliasOf, SELF_SUBJECT_ACCESS_REVIEW, authorizer, canonicalGroup),
    accessReview(group, version, aliasOf, SUBJECT_ACCESS_REVIEW, authorizer, canonicalGroup),
    accessReview(group, version, aliasOf, LOCAL_SUBJECT_ACCESS_REVIEW, authorizer, canonicalGroup),
    selfSubjectRulesReview(group, version, aliasOf, authorizer),
  ]);
}
