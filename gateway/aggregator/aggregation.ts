// The aggregation layer's running parts, started and stopped together: the service resolver (--aggregator-endpoints-
// file), the informer-fed table of remote APIServices, the proxy over both, and the remote group-versions' discovery
// and OpenAPI merged into ours. main.ts hands the proxy and the merged view to the gateway, and the resolver and
// client certificate to the availability controller.
import type { Registry } from '../registry/registry.js';
import type { AggregatorMetrics } from '../metrics/aggregator-metrics.js';
import type { RequestHeaderConfig } from '../authn/request-header.js';
import type { Clock } from '../server/clock.js';
import type { Logger } from '../server/logger.js';
import { createAggregatorProxy, type AggregatorProxy } from './proxy.js';
import { startRemoteAPIServices } from './remote-apiservices.js';
import { startRemoteDiscovery, type RemoteAPIs } from './remote-discovery.js';
import { startServiceResolver, type ServiceResolver } from './service-resolver.js';
import { startProxyClientCertificate, type ReloadingClientCertificate } from './proxy-client-cert.js';
import { loadClientCertificate } from './upstream-tls.js';

export interface Aggregation {
  resolver: ServiceResolver;
  proxy: AggregatorProxy;
  /** The remote group-versions' discovery and OpenAPI, as merged into ours. */
  remoteApis: RemoteAPIs;
  /** --proxy-client-cert-file's pair, reloaded as its files change, which the availability checks present too. */
  clientCert?: ReloadingClientCertificate;
  /** Resolves once the APIServices have been listed: requests are then routed on the full table. */
  synced: Promise<void>;
  stop(): Promise<void>;
}

export function startAggregation(deps: {
  registry: Registry;
  /** --aggregator-endpoints-file, and its content as start-up read and checked it. */
  endpointsFile?: string;
  endpoints?: Parameters<typeof startServiceResolver>[1]['initial'];
  /** --proxy-client-cert-file and --proxy-client-key-file (options parsing checked that the pair loads). */
  proxyClient: { proxyClientCertFile?: string; proxyClientKeyFile?: string };
  requestHeader?: Omit<RequestHeaderConfig, 'allowedNames'>;
  metrics: AggregatorMetrics;
  clock: Clock;
  logger: Logger;
  log: (line: string) => void;
}): Aggregation {
  const { proxyClientCertFile: certFile, proxyClientKeyFile: keyFile } = deps.proxyClient;
  const clientCert =
    certFile !== undefined && keyFile !== undefined
      ? startProxyClientCertificate(certFile, keyFile, {
          initial: loadClientCertificate(certFile, keyFile),
          log: deps.log,
        })
      : undefined;
  const resolver = startServiceResolver(deps.endpointsFile, { log: deps.log, initial: deps.endpoints });
  // Every replica follows the APIServices itself: a new one routes requests here as soon as its write is seen.
  const remotes = startRemoteAPIServices(deps.registry, { log: deps.log });
  const proxy = createAggregatorProxy({
    remotes,
    resolver,
    clientCert,
    requestHeader: deps.requestHeader,
    metrics: deps.metrics,
    clock: deps.clock,
    logger: deps.logger,
  });
  const remoteApis = startRemoteDiscovery(deps.registry, { resolver, clock: deps.clock, log: deps.log, clientCert });
  return {
    resolver,
    proxy,
    remoteApis,
    clientCert,
    synced: remotes.synced,
    async stop() {
      await remoteApis.stop();
      resolver.close();
      clientCert?.close();
      await remotes.stop();
      proxy.close();
    },
  };
}
