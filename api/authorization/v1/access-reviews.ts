// The access reviews: SelfSubjectAccessReview, SubjectAccessReview,
// LocalSubjectAccessReview and SelfSubjectRulesReview, create-only virtual resources in authorization.platform.io/v1.
// Data and validation only (no I/O): names, where they are served, the spec checks kube-apiserver makes (all field
// errors at once, worded as upstream), and the wire form of their status. The creates are wired in
// gateway/handlers/access-reviews.ts.
import { fieldErrors, FieldPath, type FieldError } from '../../meta/field-errors.js';

export const AUTHORIZATION_GROUP = 'authorization.platform.io';
export const AUTHORIZATION_VERSION = 'v1';

/** Also served at (and listed after our groups): `kubectl auth can-i` hard-codes these paths and reads the answer in the same group. */
export const AUTHORIZATION_GROUP_ALIASES: readonly { group: string; version: string }[] = [
  { group: 'authorization.k8s.io', version: 'v1' },
];

export interface ReviewKind {
  kind: string;
  resource: string;
  singular: string;
  namespaced: boolean;
}

export const SELF_SUBJECT_ACCESS_REVIEW: ReviewKind = {
  kind: 'SelfSubjectAccessReview',
  resource: 'selfsubjectaccessreviews',
  singular: 'selfsubjectaccessreview',
  namespaced: false,
};
export const SUBJECT_ACCESS_REVIEW: ReviewKind = {
  kind: 'SubjectAccessReview',
  resource: 'subjectaccessreviews',
  singular: 'subjectaccessreview',
  namespaced: false,
};
export const LOCAL_SUBJECT_ACCESS_REVIEW: ReviewKind = {
  kind: 'LocalSubjectAccessReview',
  resource: 'localsubjectaccessreviews',
  singular: 'localsubjectaccessreview',
  namespaced: true,
};
export const SELF_SUBJECT_RULES_REVIEW: ReviewKind = {
  kind: 'SelfSubjectRulesReview',
  resource: 'selfsubjectrulesreviews',
  singular: 'selfsubjectrulesreview',
  namespaced: false,
};

export interface ResourceAttributes {
  namespace: string;
  verb: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  name: string;
}

export interface NonResourceAttributes {
  path: string;
  verb: string;
}

/** A checked review spec: exactly one of the attribute kinds, and (for SubjectAccessReview) the subject. */
export interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user: string;
  groups: string[];
  uid: string;
  extra: Record<string, string[]>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function strings(obj: Obj, keys: readonly string[], at: FieldPath, errs: FieldError[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined || v === null) out[key] = '';
    else if (typeof v !== 'string') {
      errs.push(fieldErrors.typeInvalid(at.child(key), v, 'must be a string'));
      out[key] = '';
    } else out[key] = v;
  }
  return out;
}

function stringList(v: unknown, at: FieldPath, errs: FieldError[]): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((g) => typeof g !== 'string')) {
    errs.push(fieldErrors.typeInvalid(at, v, 'must be a list of strings'));
    return [];
  }
  return v as string[];
}

function extraMap(v: unknown, at: FieldPath, errs: FieldError[]): Record<string, string[]> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) {
    errs.push(fieldErrors.typeInvalid(at, v, 'must be a map of string lists'));
    return {};
  }
  const out: Record<string, string[]> = {};
  for (const [k, values] of Object.entries(v)) out[k] = stringList(values, at.key(k), errs);
  return out;
}

/**
 * Checks a review's spec. `subject`: SubjectAccessReview and LocalSubjectAccessReview carry user/groups/uid/extra
 * and need a user or a group; the self review takes the caller's identity and ignores none of it (it has no such
 * fields upstream, so they are refused as unknown there; here they are simply not read).
 */
export function validateAccessReviewSpec(
  rawSpec: unknown,
  subject: boolean,
): { spec: AccessReviewSpec; errors: FieldError[] } {
  const errs: FieldError[] = [];
  const at = FieldPath.root('spec');
  const raw = isObj(rawSpec) ? rawSpec : {};
  if (rawSpec !== undefined && rawSpec !== null && !isObj(rawSpec))
    errs.push(fieldErrors.typeInvalid(at, rawSpec, 'must be an object'));

  const spec: AccessReviewSpec = { user: '', groups: [], uid: '', extra: {} };
  const ra = raw.resourceAttributes;
  const nra = raw.nonResourceAttributes;
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(ra) && !isObj(ra))
    errs.push(fieldErrors.typeInvalid(at.child('resourceAttributes'), ra, 'must be an object'));
  if (given(nra) && !isObj(nra))
    errs.push(fieldErrors.typeInvalid(at.child('nonResourceAttributes'), nra, 'must be an object'));
  if (isObj(ra)) {
    spec.resourceAttributes = strings(
      ra,
      ['namespace', 'verb', 'group', 'version', 'resource', 'subresource', 'name'],
      at.child('resourceAttributes'),
      errs,
    ) as unknown as ResourceAttributes;
  }
  if (isObj(nra))
    spec.nonResourceAttributes = strings(
      nra,
      ['path', 'verb'],
      at.child('nonResourceAttributes'),
      errs,
    ) as unknown as NonResourceAttributes;
  if (given(ra) && given(nra)) {
    errs.push(
      fieldErrors.invalid(
        at.child('nonResourceAttributes'),
        nra,
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  }
  if (!given(ra) && !given(nra)) {
    errs.push(
      fieldErrors.invalid(
        at.child('resourceAttributes'),
        undefined,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  }
  if (subject) {
    Object.assign(spec, strings(raw, ['user', 'uid'], at, errs));
    spec.groups = stringList(raw.groups, at.child('groups'), errs);
    spec.extra = extraMap(raw.extra, at.child('extra'), errs);
    if (spec.user === '' && spec.groups.length === 0)
      errs.push(fieldErrors.invalid(at.child('user'), spec.user, 'at least one of user or group must be specified'));
  }
  return { spec, errors: errs };
}

/** Reviews are never stored: metadata must be empty (a LocalSubjectAccessReview may name its namespace). */
export function validateReviewMetadata(metadata: unknown, allowNamespace: boolean): FieldError[] {
  if (metadata === undefined || metadata === null) return [];
  if (!isObj(metadata)) return [fieldErrors.typeInvalid('metadata', metadata, 'must be an object')];
  const rest = Object.entries(metadata).filter(
    ([k, v]) =>
      !(allowNamespace && k === 'namespace') &&
      k !== 'managedFields' &&
      !(k === 'creationTimestamp' && v === null) &&
      v !== '' &&
      v !== null,
  );
  return rest.length === 0
    ? []
    : [
        fieldErrors.invalid(
          'metadata',
          metadata,
          allowNamespace ? 'must be empty except for namespace' : 'must be empty',
        ),
      ];
}

export interface AccessReviewStatus {
  allowed: boolean;
  denied?: boolean;
  reason?: string;
  evaluationError?: string;
}

/** The status as v1 serializes it: `allowed` always, the others only when set. */
export function accessReviewStatus(
  decision: 'Allow' | 'Deny' | 'NoOpinion',
  reason: string,
  evaluationError?: string,
): AccessReviewStatus {
  const status: AccessReviewStatus = { allowed: decision === 'Allow' };
  if (decision === 'Deny') status.denied = true;
  if (reason) status.reason = reason;
  if (evaluationError) status.evaluationError = evaluationError;
  return status;
}
