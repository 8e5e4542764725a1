// How a webhook's refusal or failure reaches the client, in upstream's words (the webhook errors package and the
// dispatchers): a refusal keeps the code the webhook gave (403 without one); a call that failed under failurePolicy
// Fail is a 500 naming the webhook.
import { StatusError, qualifiedResource, type GroupResource, type StatusReason } from '../../../api/meta/errors.js';
import type { ReviewStatus } from './admission-review.js';

/** Upstream's ToStatusErr: the webhook's Status, its message prefixed with who refused and what. */
export function webhookDenial(
  gr: GroupResource,
  objectName: string,
  webhookName: string,
  status: ReviewStatus | undefined,
): StatusError {
  const name = objectName || 'Unknown';
  const code = status?.code && status.code !== 0 ? status.code : 403;
  const deniedBy = `admission webhook ${JSON.stringify(webhookName)} denied the request`;
  const because = status?.message || status?.reason;
  const message = because ? `${deniedBy}: ${because}` : `${deniedBy} without explanation`;
  const internal = code === 500;
  const details =
    status?.details ??
    (internal ? { causes: [{ message }] } : { ...(gr.group ? { group: gr.group } : {}), kind: gr.resource, name });
  const prefix = internal ? 'Internal error occurred' : `${qualifiedResource(gr)} ${JSON.stringify(name)} is forbidden`;
  const reason = (status?.reason || (internal ? 'InternalError' : 'Forbidden')) as StatusReason;
  return new StatusError(code, reason, `${prefix}: ${message}`, details);
}

/** apierrors.NewInternalError of an error: the message prefixed, the error as the one cause. */
export function internalError(why: string): StatusError {
  return new StatusError(500, 'InternalError', `Internal error occurred: ${why}`, { causes: [{ message: why }] });
}

/** A call that failed under failurePolicy Fail. */
export function callingFailure(webhookName: string, why: string): StatusError {
  return internalError(`failed calling webhook ${JSON.stringify(webhookName)}: ${why}`);
}

export function dryRunUnsupported(webhookName: string): StatusError {
  return new StatusError(
    400,
    'BadRequest',
    `admission webhook ${JSON.stringify(webhookName)} does not support dry run`,
  );
}
