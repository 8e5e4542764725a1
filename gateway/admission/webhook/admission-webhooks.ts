// Everything the webhook admission plugins share for one server: the configurations in force, the connection pools
// and the metrics. main.ts starts it and stops it with the server; plugins.ts builds the two plugins over it.
import type { Authorizer } from '../../../policies/authorizer.js';
import type { ServiceResolver } from '../../aggregator/service-resolver.js';
import type { MetricsRegistry } from '../../metrics/registration.js';
import type { Registry } from '../../registry/registry.js';
import type { Clock } from '../../server/clock.js';
import type { AdmissionPlugin } from '../plugin.js';
import type { AdmissionReviewGroup } from './admission-review.js';
import { createMutatingWebhookAdmission, createValidatingWebhookAdmission } from './webhook-admission.js';
import { createWebhookClient, type WebhookClient } from './webhook-client.js';
import { createWebhookMetrics, type WebhookMetrics } from './webhook-metrics.js';
import { startWebhookSource, type WebhookSource } from './webhook-source.js';

export interface AdmissionWebhooks {
  source: WebhookSource;
  client: WebhookClient;
  reviewGroup: AdmissionReviewGroup;
  metrics?: WebhookMetrics;
  log: (line: string) => void;
  readonly synced: Promise<void>;
  stop(): Promise<void>;
}

export interface AdmissionWebhooksOptions {
  registry: Registry;
  /** The aggregator's resolver, once it exists: services named by webhooks are reached as APIServices' are. */
  resolver: () => ServiceResolver | undefined;
  clock: Clock;
  log: (line: string) => void;
  reviewGroup: AdmissionReviewGroup;
  metricsRegistry?: MetricsRegistry;
}

export function startAdmissionWebhooks(opts: AdmissionWebhooksOptions): AdmissionWebhooks {
  const client = createWebhookClient({ resolver: opts.resolver, clock: opts.clock });
  const source: WebhookSource = startWebhookSource(opts.registry, {
    log: opts.log,
    onChange: () =>
      client.retain(new Set([...source.webhooks('mutating'), ...source.webhooks('validating')].map((w) => w.key))),
  });
  return {
    source,
    client,
    reviewGroup: opts.reviewGroup,
    metrics: opts.metricsRegistry ? createWebhookMetrics(opts.metricsRegistry) : undefined,
    log: opts.log,
    synced: source.synced,
    async stop() {
      await source.stop();
      client.close();
    },
  };
}

/** The two plugins, each at its place in the admission list. */
export function webhookPlugins(
  webhooks: AdmissionWebhooks,
  registry: Registry,
  authorizer: Authorizer | undefined,
): { mutating: AdmissionPlugin; validating: AdmissionPlugin } {
  const deps = { ...webhooks, registry, authorizer };
  return { mutating: createMutatingWebhookAdmission(deps), validating: createValidatingWebhookAdmission(deps) };
}
