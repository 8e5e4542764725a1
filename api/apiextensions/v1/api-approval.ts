// The API approval policy of protected groups (upstream's apihelpers.GetAPIApprovalState and validateAPIApproval):
// a definition in a community group must link the review that approved it, in an annotation, or say why it is
// unapproved. Gatehouse's own `*.platform.io` groups are protected as `*.k8s.io` and `*.kubernetes.io` are, and take
// either annotation.
import type { KObject } from '../../meta/types.js';
import { fieldErrors, type FieldError } from '../../meta/field-errors.js';
import { asStr, root } from '../../common/validation-helpers.js';
import { crdSpecOf } from './crd-types.js';

export const API_APPROVED_ANNOTATION = 'api-approved.platform.io';
export const UPSTREAM_API_APPROVED_ANNOTATION = 'api-approved.kubernetes.io';
const APPROVAL_LINK = 'see https://github.com/kubernetes/enhancements/pull/1111';

export type ApprovalState = 'Approved' | 'Bypassed' | 'Missing' | 'Invalid';

export function isProtectedGroup(group: string): boolean {
  return ['platform.io', 'k8s.io', 'kubernetes.io'].some((d) => group === d || group.endsWith(`.${d}`));
}

/** The annotation a definition carries its approval in (ours first), and its value. */
function approvalAnnotation(crd: KObject): { key: string; value: string } {
  const annotations = crd.metadata.annotations ?? {};
  for (const key of [API_APPROVED_ANNOTATION, UPSTREAM_API_APPROVED_ANNOTATION]) {
    const value = asStr(annotations[key]);
    if (value) return { key, value };
  }
  return { key: API_APPROVED_ANNOTATION, value: '' };
}

/** A request URI as Go's url.ParseRequestURI accepts it: absolute, or an absolute path. */
function isRequestUri(value: string): boolean {
  if (value.startsWith('/')) return true;
  try {
    return new URL(value).protocol !== '';
  } catch {
    return false;
  }
}

export function approvalState(crd: KObject): { state: ApprovalState; reason: string } {
  const { value } = approvalAnnotation(crd);
  const names = `"${API_APPROVED_ANNOTATION}" or "${UPSTREAM_API_APPROVED_ANNOTATION}"`;
  if (value === '')
    return { state: 'Missing', reason: `protected groups must have approval annotation ${names}, ${APPROVAL_LINK}` };
  if (value.startsWith('unapproved')) return { state: 'Bypassed', reason: `not approved: ${JSON.stringify(value)}` };
  if (!isRequestUri(value))
    return {
      state: 'Invalid',
      reason: `protected groups must have approval annotation ${names} with either a URL or a reason starting with "unapproved", ${APPROVAL_LINK}`,
    };
  return { state: 'Approved', reason: `approved in ${value}` };
}

/** Refuses a missing or invalid approval in a protected group, unless the state is what the stored object had. */
export function approvalAnnotationProblem(crd: KObject, old?: KObject): FieldError[] {
  if (!isProtectedGroup(asStr(crdSpecOf(crd).group) ?? '')) return [];
  const { state, reason } = approvalState(crd);
  // A client that only updates the spec must not be refused for an approval it never touched.
  if (old && approvalState(old).state === state) return [];
  const { key, value } = approvalAnnotation(crd);
  const at = root('metadata').child('annotations').key(key);
  if (state === 'Missing') return [fieldErrors.required(at, reason)];
  if (state === 'Invalid') return [fieldErrors.invalid(at, value, reason)];
  return [];
}
