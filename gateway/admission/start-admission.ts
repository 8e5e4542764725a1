// The server's admission, started as one piece: the sources that follow policies and webhook configurations, the
// ordered plugin list over them with --enable/--disable-admission-plugins applied, and the step and controller
// latencies around each plugin. main.ts hands it the registry and waits for it once, as for the other informers.
import type { Authorizer } from '../../policies/authorizer.js';
import type { RbacSource } from '../../policies/rbac/types.js';
import type { ServiceResolver } from '../aggregator/service-resolver.js';
import type { MetricsRegistry } from '../metrics/registration.js';
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../server/clock.js';
import { selectAdmissionPlugins, type AdmissionOptions } from './admission-flags.js';
import { createAdmissionMetrics, observeAdmission } from './admission-metrics.js';
import type { AdmissionPlugin } from './plugin.js';
import { admissionPlugins } from './plugins.js';
import { createPolicyMetrics } from './policy/policy-metrics.js';
import { startPolicySource } from './policy/policy-source.js';
import type { AdmissionReviewGroup } from './webhook/admission-review.js';
import { startAdmissionWebhooks } from './webhook/admission-webhooks.js';

export interface AdmissionSetup {
  registry: Registry;
  authorization: { authorizer: Authorizer; rbac: RbacSource; modes: () => readonly string[] };
  /** The aggregator's resolver, once it exists: services named by webhooks are reached as APIServices' are. */
  resolver: () => ServiceResolver | undefined;
  flags: AdmissionOptions;
  reviewGroup: AdmissionReviewGroup;
  metrics: MetricsRegistry;
  clock: Clock;
  log: (line: string) => void;
  /** A test's own plugins, where upstream's mutating webhooks go. */
  extra?: readonly AdmissionPlugin[];
}

export interface RunningAdmission {
  /** Policies, bindings and webhook configurations listed: admission decides as configured. */
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export function startAdmission(setup: AdmissionSetup): RunningAdmission {
  const { registry, log } = setup;
  const policies = startPolicySource(registry, { log });
  const webhooks = startAdmissionWebhooks({
    registry,
    resolver: setup.resolver,
    clock: setup.clock,
    log,
    reviewGroup: setup.reviewGroup,
    metricsRegistry: setup.metrics,
  });
  const selected = selectAdmissionPlugins(
    admissionPlugins({
      registry,
      authorization: setup.authorization,
      policies: { source: policies, metrics: createPolicyMetrics(setup.metrics) },
      webhooks,
      extra: setup.extra,
    }),
    setup.flags,
  );
  for (const warning of selected.warnings) log(`warning: ${warning}`);
  registry.setAdmission(observeAdmission(selected.plugins, createAdmissionMetrics(setup.metrics)));
  return {
    synced: Promise.all([policies.synced, webhooks.synced]).then(() => undefined),
    async stop() {
      await policies.stop();
      await webhooks.stop();
    },
  };
}
