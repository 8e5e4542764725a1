// The admission plugins of the server, in the one order they run. Upstream's order is the model: NamespaceLifecycle
// first, so nothing else spends work on a write to a namespace that is missing or terminating; ResourceQuota last,
// because it charges the quota and no plugin may refuse the write after the charge. ValidatingAdmissionPolicy runs
// after the built-in validating plugins and before ResourceQuota, as upstream places it (webhooks will join it there).
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
  /** Plugins a test adds, after the built-in ones and before ValidatingAdmissionPolicy (MutatingAdmissionWebhook's place). */
  extra?: readonly AdmissionPlugin[];
}

export function admissionPlugins({ registry, authorization, policies, extra = [] }: AdmissionDeps): AdmissionPlugin[] {
  const authorizationChecks = authorization
    ? [
        createRbacEscalationAdmission({
          authorizer: authorization.authorizer,
          resolver: createRuleResolver(authorization.rbac),
        }),
        createNodeRestrictionAdmission(() => authorization.modes().includes('Node')),
      ]
    : [];
  return [
    createNamespaceLifecycleAdmission(registry.namespaces),
    ...authorizationChecks,
    ...extra,
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
    createResourceQuotaAdmission(registry),
  ];
}
