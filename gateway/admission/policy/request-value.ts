// The `request` variable of policy expressions: upstream's admission.k8s.io/v1 AdmissionRequest, as a webhook would
// receive it, so expressions written for kube-apiserver (`request.operation`, `request.userInfo.username`...) read
// the same fields here.
import { randomUUID } from 'node:crypto';
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
  subresource: string,
  /** The kind written when it is not the resource's own (an autoscaling/v1 Scale through `scale`). */
  writtenKind?: { group: string; version: string; kind: string },
): Record<string, unknown> {
  const { def, user } = req;
  const kind = writtenKind
    ? { group: writtenKind.group, version: writtenKind.version, kind: writtenKind.kind }
    : { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  return {
    uid: randomUUID(),
    kind,
    resource,
    subResource: subresource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: subresource,
    name: req.name || (object?.metadata.name ?? oldObject?.metadata.name ?? ''),
    namespace: req.namespace,
    operation: req.operation,
    userInfo: reviewUserInfo(user),
    dryRun: req.dryRun,
  };
}
