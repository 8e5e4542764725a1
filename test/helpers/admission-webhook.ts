// What the admission webhook tests share: answers a test webhook gives to an AdmissionReview (allow, deny, patch), a
// webhook entry of a configuration pointing at a test webhook, the configurations themselves, and, through a running
// server, writing one and waiting until it is in force.
import { expect } from 'chai';
import type { TestGatehouse } from './gatehouse.js';
import { eventually } from './api.js';
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

const CONFIGURATIONS = {
  mutating: { kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations' },
  validating: { kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations' },
} as const;

/** Writes a configuration through the API; answers its path, for the DELETE that removes it. */
export async function postWebhookConfiguration(
  gh: Pick<TestGatehouse, 'request'>,
  type: keyof typeof CONFIGURATIONS,
  name: string,
  webhooks: unknown[],
): Promise<string> {
  const { kind, resource } = CONFIGURATIONS[type];
  const collection = `/apis/admissionregistration.platform.io/v1/${resource}`;
  const res = await gh.request('POST', collection, { body: webhookConfiguration(kind, name, webhooks) });
  expect(res.status, res.body).to.equal(201);
  return `${collection}/${name}`;
}

/** The name of the object a probe writes: the webhook answers it allowed, whatever its behaviour. */
export const PROBE = 'probe';

/**
 * Sends `probe` (a write of an object named `probe`, usually a dry run) until `hook` receives its review: the
 * informers deliver a configuration shortly after its write, and nothing in the server can be awaited instead. What
 * the hook received meanwhile is forgotten.
 */
export async function untilCalled(hook: TestWebhook, what: string, probe: () => Promise<unknown>): Promise<void> {
  const behave = hook.behave;
  let seen = false;
  hook.behave = (r) => {
    if (r?.request?.name !== PROBE) return behave(r);
    seen = true;
    return answer(r);
  };
  try {
    await eventually(what, async () => {
      await probe();
      return seen;
    });
  } finally {
    hook.behave = behave;
    hook.received.length = 0;
  }
}
