// The in-process controllers, started once the registry exists and stopped at shutdown. Each controller the spec
// names gets one entry here (and its name in known-controllers.ts); `--controllers` selects among them.
import type { GatehouseOptions } from '../server/options.js';
import type { Registry } from '../registry/registry.js';
import { ensureSystemNamespaces, startNamespaceController, type Controller } from './namespace-lifecycle.js';
import {
  BOOTSTRAP_SIGNER_CONTROLLER,
  CLUSTERROLE_AGGREGATION_CONTROLLER,
  NAMESPACE_CONTROLLER,
  TOKEN_CLEANER_CONTROLLER,
} from './known-controllers.js';
import { startTokenCleaner } from './token-cleaner.js';
import { startBootstrapSigner } from './bootstrap-signer.js';
import { ensureBootstrapPolicy } from './rbac-bootstrap.js';
import { startRoleAggregationController } from './role-aggregation.js';
import { startResourceQuotaController } from './resource-quota.js';
import {
  RESOURCE_QUOTA_CONTROLLER,
  ROOT_CA_PUBLISHER_CONTROLLER,
  SERVICE_ACCOUNT_CONTROLLER,
} from './known-controllers.js';
import { startServiceAccountController } from './service-account.js';
import { startRootCaPublisher } from './root-ca-publisher.js';
import { startEventTtlController } from './event-ttl.js';
import { startAuthenticationInfoController } from './authentication-info.js';
import {
  APISERVICE_AUTOREGISTRATION_CONTROLLER,
  APISERVICE_AVAILABILITY_CONTROLLER,
  CRD_STATUS_CONTROLLER,
  POLICY_STATUS_CONTROLLER,
} from './known-controllers.js';
import { startPolicyStatusController } from './policy-status.js';
import { APF_BOOTSTRAP_CONTROLLER, FLOWSCHEMA_STATUS_CONTROLLER } from './known-controllers.js';
import { ensureApfConfiguration, startApfBootstrapController } from './apf-bootstrap.js';
import { startFlowSchemaStatusController } from './flowschema-status.js';
import { startCrdStatusController } from './crd-status.js';
import { startCustomKinds } from './custom-kinds.js';
import { startAutoregisterController } from './apiservice-autoregister.js';
import { startAvailabilityController } from './apiservice-availability.js';
import type { GroupVersionRef } from '../aggregator/priorities.js';
import { clusterDnsResolver, type ServiceResolver } from '../aggregator/service-resolver.js';
import { createAggregatorMetrics, type AggregatorMetrics } from '../metrics/aggregator-metrics.js';
import { realClock, type Clock } from '../server/clock.js';
import type { ClientCertificateSource } from '../aggregator/upstream-tls.js';
import { createConversionMetrics } from '../apiextensions/conversion-metrics.js';
import type { MetricsRegistry } from '../metrics/registration.js';

export type { Controller };

export interface ControllerDeps {
  registry: Registry;
  options: GatehouseOptions;
  log: (line: string) => void;
  /** PEM of the CA clients should trust (published in cluster-info). */
  caPem?: string;
  /** The URL clients reach the server at; resolves once it listens. */
  serverUrl?: Promise<string>;
  /** The group-versions served here, which autoregistration keeps Local APIServices of. */
  servedGroupVersions?: GroupVersionRef[];
  /** Where remote APIServices' Services are reached (default: their cluster DNS names). */
  serviceResolver?: ServiceResolver;
  aggregatorMetrics?: AggregatorMetrics;
  /** --proxy-client-cert-file's pair, presented by the availability checks. */
  proxyClientCert?: ClientCertificateSource;
  /** Paces the availability checks (default: the real clock). */
  clock?: Clock;
  /** Where controllers register their metrics (the conversion webhooks'); none recorded without it. */
  metricsRegistry?: MetricsRegistry;
}

/** Canonical controller name → how to start it. */
const CONTROLLERS: Record<string, (deps: ControllerDeps) => Controller> = {
  [NAMESPACE_CONTROLLER]: ({ registry, log }) => startNamespaceController(registry, { log }),
  [CLUSTERROLE_AGGREGATION_CONTROLLER]: ({ registry, log }) => startRoleAggregationController(registry, { log }),
  [TOKEN_CLEANER_CONTROLLER]: ({ registry, log }) => startTokenCleaner(registry, { log }),
  [BOOTSTRAP_SIGNER_CONTROLLER]: ({ registry, log, caPem, serverUrl }) =>
    startBootstrapSigner(registry, { log, caPem, serverUrl }),
  [RESOURCE_QUOTA_CONTROLLER]: ({ registry, log }) => startResourceQuotaController(registry, { log }),
  [SERVICE_ACCOUNT_CONTROLLER]: ({ registry, log }) => startServiceAccountController(registry, { log }),
  [ROOT_CA_PUBLISHER_CONTROLLER]: ({ registry, log, caPem }) => startRootCaPublisher(registry, { log, caPem }),
  [POLICY_STATUS_CONTROLLER]: ({ registry, log }) => startPolicyStatusController(registry, { log }),
  [APF_BOOTSTRAP_CONTROLLER]: ({ registry, log }) => startApfBootstrapController(registry, { log }),
  [FLOWSCHEMA_STATUS_CONTROLLER]: ({ registry, log, clock }) =>
    startFlowSchemaStatusController(registry, { log, clock }),
  [CRD_STATUS_CONTROLLER]: ({ registry, log, clock }) =>
    startCrdStatusController(registry, { log, clock }) ?? { async stop() {} },
  [APISERVICE_AVAILABILITY_CONTROLLER]: (deps) =>
    startAvailabilityController(deps.registry, {
      log: deps.log,
      resolver: deps.serviceResolver ?? clusterDnsResolver(),
      metrics: deps.aggregatorMetrics ?? createAggregatorMetrics(),
      clientCert: deps.proxyClientCert,
      clock: deps.clock ?? realClock,
    }),
};

/** Seeds what must exist before the first request, then starts every enabled controller. */
export async function startControllers(deps: ControllerDeps): Promise<Controller> {
  await ensureSystemNamespaces(deps.registry);
  // The default roles and bindings exist before the first request, as kube-apiserver's RBAC post-start hook ensures.
  await ensureBootstrapPolicy(deps.registry);
  // So is the priority and fairness configuration, as upstream's config-producer post-start hook ensures.
  await ensureApfConfiguration(deps.registry, deps.log);
  // Event expiry is the API server's own (--event-ttl), not a selectable controller.
  const running: Controller[] = [
    startEventTtlController(deps.registry, { ttlMs: deps.options.eventTtlMs, log: deps.log }),
  ];
  // The trust an aggregated server needs is the API server's own to publish, as upstream's post-start hook does.
  const authenticationInfo = startAuthenticationInfoController(deps.registry, { options: deps.options, log: deps.log });
  running.push(authenticationInfo);
  await authenticationInfo.synced;
  // The objects of established definitions are served as the server's own, whichever controllers are selected.
  // Services named by conversion webhooks are reached as those of admission webhooks and APIServices.
  const resolver = deps.serviceResolver ?? clusterDnsResolver();
  const customKinds = startCustomKinds(deps.registry, {
    log: deps.log,
    conversion: {
      resolver: () => resolver,
      clock: deps.clock ?? realClock,
      reviewGroup: deps.options.admissionReviewApiGroup,
      metrics: deps.metricsRegistry && createConversionMetrics(deps.metricsRegistry),
    },
  });
  if (customKinds) {
    running.push(customKinds);
    await customKinds.firstPass;
  }
  if (deps.options.controllers.enabled(APISERVICE_AUTOREGISTRATION_CONTROLLER)) {
    const autoregister = startAutoregisterController(deps.registry, {
      served: deps.servedGroupVersions ?? [],
      log: deps.log,
    });
    running.push(autoregister);
    // The server's own APIServices exist before the first request, as its other defaults do.
    await autoregister.synced;
  }
  for (const [name, start] of Object.entries(CONTROLLERS)) {
    if (deps.options.controllers.enabled(name)) running.push(start(deps));
  }
  return {
    async stop() {
      await Promise.all(running.map((c) => c.stop()));
    },
  };
}
