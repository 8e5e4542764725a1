// MutatingWebhookConfiguration: webhooks the server calls to change, accept or refuse a write before validation.
// admissionregistration.k8s.io/v1's fields, defaults, rules and columns (see webhook-common.ts), plus the
// reinvocationPolicy only mutating webhooks have.
import { fieldErrors } from '../../meta/field-errors.js';
import { enumStr } from '../../common/schema-builders.js';
import { webhookConfigurationKind } from './webhook-common.js';

/** Sorted, as upstream's Unsupported value message lists them. */
export const REINVOCATION_POLICIES = ['IfNeeded', 'Never'];

export const mutatingWebhookConfiguration = webhookConfigurationKind({
  kind: 'MutatingWebhookConfiguration',
  resource: 'mutatingwebhookconfigurations',
  description:
    'MutatingWebhookConfiguration describes the configuration of and admission webhook that accept or reject and may change the object.',
  webhookDescription: 'MutatingWebhook describes an admission webhook and the resources and operations it applies to.',
  extra: {
    properties: {
      reinvocationPolicy: enumStr(
        REINVOCATION_POLICIES,
        'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation. Allowed values are "Never" and "IfNeeded".\n\nNever: the webhook will not be called more than once in a single admission evaluation.\n\nIfNeeded: the webhook will be called at least one additional time as part of the admission evaluation if the object being admitted is modified by other admission plugins after the initial webhook call. Webhooks that specify this option *must* be idempotent, able to process objects they previously admitted.\n\nDefaults to "Never".',
      ),
    },
    defaults: (hook) => {
      hook.reinvocationPolicy ??= 'Never';
    },
    validate: (hook, at) => {
      const policy = hook.reinvocationPolicy;
      return policy === undefined || REINVOCATION_POLICIES.includes(policy as string)
        ? []
        : [fieldErrors.notSupported(at.child('reinvocationPolicy'), policy, REINVOCATION_POLICIES)];
    },
  },
});
