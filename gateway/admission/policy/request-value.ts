// The `request` variable of policy expressions: upstream's admission.k8s.io/v1 AdmissionRequest, as a webhook would
// receive it, so expressions written for kube-apiserver (`request.operation`, `request.userInfo.username`...) read
// the same fields here.
import type { KObject } from '../../../api/meta/types.js';
import type { UserInfo } from '../../../api/meta/user.js';
import type { AdmissionRequest, DeleteAdmissionRequest } from '../../registry/admission-types.js';

/** authentication.k8s.io's UserInfo as an AdmissionRequest carries it; the server's own writes have no user. */
export function reviewUserInfo(user: UserInfo | undefined) {
  return { username: user?.name ?? '', uid: user?.uid ?? '', groups: user?.groups ?? [], extra: user?.extra ?? {} };
}

export function admissionRequestValue(
  req: AdmissionRequest | DeleteAdmissionRequest,
  object: KObject | undefined,
  oldObject: KObject | undefined,
): Record<string, unknown> {
  const { user } = req;
  return {
    uid: req.uid,
    kind: { ...req.kind },
    resource: { ...req.resource },
    subResource: req.requestSubResource,
    requestKind: { ...req.requestKind },
    requestResource: { ...req.requestResource },
    requestSubResource: req.requestSubResource,
    name: req.name || (object?.metadata.name ?? oldObject?.metadata.name ?? ''),
    namespace: req.namespace,
    operation: req.operation,
    userInfo: reviewUserInfo(user),
    dryRun: req.dryRun,
    options: req.options,
  };
}
