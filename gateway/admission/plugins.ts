// The admission plugins of the server, in the one order they run. Upstream's order is the model: NamespaceLifecycle
// first, so nothing else spends work on a write to a namespace that is missing or terminating; ResourceQuota last,
// because it charges the quota and no plugin may refuse the write after the charge. MutatingAdmissionWebhook comes
// after the built-in plugins (their mutating steps run first), ValidatingAdmissionPolicy and then
// ValidatingAdmissionWebhook after the built-in validating plugins and before ResourceQuota, as upstream places them.
import type { Authorizer } from '../../policies/authorizer.js';
import { createRuleResolver } from '../../policies/rbac/rule-resolver.js';
import type { RbacSource } from '../../policies/rbac/types.js';
import type { Registry } from '../registry/registry.js';
import { createRbacEscalationAdmission } from '../rbac/escalation-admission.js';
import { createNodeRestrictionAdmission } from '../rbac/node-restriction-admission.js';
import { createResourceQuotaAdmission } from '../quota/admission.js';
import { createNamespaceLifecycleAdmission } from './namespace-lifecycle.js';
import type { AdmissionPlugin } from './plugin.js';
import type { PolicyMetrics } from './policy/policy-metrics.js';
import type { PolicySource } from './policy/policy-source.js';
import { createValidatingAdmissionPolicy } from './policy/validating-policy.js';
import { webhookPlugins, type AdmissionWebhooks } from './webhook/admission-webhooks.js';

export interface AdmissionDeps {
  registry: Registry;
  /**
   * What the RBAC and Node checks ask (the `escalate` and `bind` verbs). Escalation prevention applies whatever the
   * authorization modes, as upstream's RBAC storage does; NodeRestriction while the chain in force has a Node
   * authorizer, asked at each write because --authorization-config can change the chain on reload. Without it (a
   * registry in a test) neither check is installed.
   */
  authorization?: { authorizer: Authorizer; rbac: RbacSource; modes: () => readonly string[] };
  /** Policies and bindings in force; without them (a registry in a test) no policy is evaluated. */
  policies?: { source: PolicySource; metrics?: PolicyMetrics };
  /** Webhook configurations in force and their clients; without them (a registry in a test) no webhook is called. */
  webhooks?: AdmissionWebhooks;
  /** Plugins a test adds, after the built-in ones and before MutatingAdmissionWebhook, as built-in mutating plugins. */
  extra?: readonly AdmissionPlugin[];
}

export function admissionPlugins({
  registry,
  authorization,
  policies,
  webhooks,
  extra = [],
}: AdmissionDeps): AdmissionPlugin[] {
  const authorizationChecks = authorization
    ? [
        createRbacEscalationAdmission({
          authorizer: authorization.authorizer,
          resolver: createRuleResolver(authorization.rbac),
        }),
        createNodeRestrictionAdmission(() => authorization.modes().includes('Node')),
      ]
    : [];
  const hooks = webhooks ? webhookPlugins(webhooks, registry, authorization?.authorizer) : undefined;
  return [
    createNamespaceLifecycleAdmission(registry.namespaces),
    ...authorizationChecks,
    ...extra,
    ...(hooks ? [hooks.mutating] : []),
    ...(policies
      ? [
          createValidatingAdmissionPolicy({
            registry,
            source: policies.source,
            metrics: policies.metrics,
            authorizer: authorization?.authorizer,
          }),
        ]
      : []),
    ...(hooks ? [hooks.validating] : []),
    createResourceQuotaAdmission(registry),
  ];
}
