// The authorization flags' names, defaults and help, in a module of their own that imports nothing at run time:
// options.ts spreads them into its table while authorization-options.ts (which imports options.ts) parses them.
import type { FlagSpec } from './flag-primitives.js';

export const AUTHORIZATION_FLAGS: Record<string, FlagSpec> = {
  'authorization-config': {
    kind: 'string',
    usage:
      'AuthorizationConfiguration file (apiserver.config.platform.io/v1, YAML or JSON), reloaded on change; excludes --authorization-mode and --authorization-webhook-*.',
  },
  'authorization-webhook-config-file': {
    kind: 'string',
    usage:
      'Client configuration file (kubeconfig format) of the authorization webhook, for --authorization-mode=Webhook.',
  },
  'authorization-webhook-version': {
    reference:
      "SubjectAccessReview version sent to the webhook (`authorization.platform.io/<version>`, or `authorization.k8s.io/<version>` when the webhook's URL is at `/apis/authorization.k8s.io/`, as another Gatehouse's or kube-apiserver's review endpoint; answers in `authorization.k8s.io` are read too)",
    kind: 'string',
    default: 'v1beta1',
    usage: 'SubjectAccessReview version sent to and expected from the webhook: v1 or v1beta1.',
  },
  'authorization-webhook-cache-authorized-ttl': {
    reference: 'webhook decision cache, keyed by the whole review; 0 turns it off',
    kind: 'duration',
    default: '5m0s',
    usage: "How long to cache 'authorized' answers of the webhook.",
  },
  'authorization-webhook-cache-unauthorized-ttl': {
    kind: 'duration',
    default: '30s',
    usage: "How long to cache 'unauthorized' answers of the webhook.",
  },
  'authorization-policy-file': {
    kind: 'string',
    usage: 'ABAC policy file, one JSON Policy per line, for --authorization-mode=ABAC.',
  },
};
