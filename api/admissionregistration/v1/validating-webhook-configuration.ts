// ValidatingWebhookConfiguration: webhooks the server calls to accept or refuse a write, after mutation, without
// changing it. admissionregistration.k8s.io/v1's fields, defaults, rules and columns (see webhook-common.ts).
import { webhookConfigurationKind } from './webhook-common.js';

export const validatingWebhookConfiguration = webhookConfigurationKind({
  kind: 'ValidatingWebhookConfiguration',
  resource: 'validatingwebhookconfigurations',
  description:
    'ValidatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and object without changing it.',
  webhookDescription:
    'ValidatingWebhook describes an admission webhook and the resources and operations it applies to.',
});
