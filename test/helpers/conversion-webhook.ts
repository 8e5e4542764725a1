// A conversion webhook's answers for the tests: Gizmos keep their host in `spec.host` in v1 and in `spec.hostname` in
// v2, and the webhook moves it between the two as a real one would; `edit` spoils the answer for a test of its checks.
// `gizmoDefinition` is the definition (v1 stored, v2 served) whose conversion calls that webhook.
import type { TestWebhook, WebhookBehaviour } from './webhook-server.js';

export const GIZMO_GROUP = 'conv.example.com';

export function convertGizmos(
  review: any,
  edit: (converted: any[], response: any) => void = () => {},
): WebhookBehaviour {
  const desired = review.request.desiredAPIVersion as string;
  const converted = review.request.objects.map((obj: any) => {
    const { host, hostname, ...rest } = obj.spec ?? {};
    const spec = desired.endsWith('/v2') ? { ...rest, hostname: host } : { ...rest, host: hostname };
    return { ...obj, apiVersion: desired, spec };
  });
  const response = { uid: review.request.uid, convertedObjects: converted, result: { status: 'Success' } };
  edit(converted, response);
  return { answer: { apiVersion: review.apiVersion, kind: 'ConversionReview', response } };
}

const hostSchema = (field: string) => ({
  openAPIV3Schema: {
    type: 'object',
    properties: { spec: { type: 'object', properties: { [field]: { type: 'string' }, size: { type: 'integer' } } } },
  },
});

export function gizmoDefinition(hook: Pick<TestWebhook, 'url' | 'caBundle'>, reviewVersions = ['v1']) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gizmos.${GIZMO_GROUP}` },
    spec: {
      group: GIZMO_GROUP,
      names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
      scope: 'Namespaced',
      versions: [
        { name: 'v1', served: true, storage: true, schema: hostSchema('host') },
        { name: 'v2', served: true, storage: false, schema: hostSchema('hostname') },
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: hook.url, caBundle: hook.caBundle },
          conversionReviewVersions: reviewVersions,
        },
      },
    },
  };
}
