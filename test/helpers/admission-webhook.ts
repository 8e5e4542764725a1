// What the admission webhook tests share: answers a test webhook gives to an AdmissionReview (allow, deny, patch), a
// webhook entry of a configuration pointing at a test webhook, and the configurations themselves.
import type { TestWebhook, WebhookBehaviour } from './webhook-server.js';

/** An answer to `review` in its own apiVersion, carrying its uid; `response` adds to or overrides the fields. */
export function answer(review: any, response: Record<string, unknown> = {}): WebhookBehaviour {
  return {
    answer: {
      apiVersion: review?.apiVersion,
      kind: 'AdmissionReview',
      response: { uid: review?.request?.uid, allowed: true, ...response },
    },
  };
}

export const deny = (review: any, status: Record<string, unknown>) => answer(review, { allowed: false, status });

/** A JSONPatch answer's two fields. */
export const jsonPatch = (operations: unknown[]) => ({
  patchType: 'JSONPatch',
  patch: Buffer.from(JSON.stringify(operations)).toString('base64'),
});

export const configMapRules = (operations = ['CREATE', 'UPDATE']) => [
  { operations, apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
];

/** One webhook of a configuration, called at the test webhook's URL and trusting its CA. */
export function webhookEntry(name: string, hook: TestWebhook, extra: Record<string, unknown> = {}) {
  return {
    name,
    clientConfig: { url: hook.url, caBundle: hook.caBundle },
    rules: configMapRules(),
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 5,
    ...extra,
  };
}

export function webhookConfiguration(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  webhooks: unknown[],
) {
  return { apiVersion: 'admissionregistration.platform.io/v1', kind, metadata: { name }, webhooks };
}

/** Resolves with the next review the webhook receives (wrapping its behaviour, which still answers). */
export function nextReview(hook: TestWebhook): Promise<any> {
  const behave = hook.behave;
  return new Promise((resolve) => {
    hook.behave = (review) => {
      hook.behave = behave;
      resolve(review);
      return behave(review);
    };
  });
}
