// The `gatehouse` entry point. It only composes: options → certificates and admin credential → storage →
// authenticator and authorizer chains → health checks → createGateway (plus the start-up controllers it needs) →
// HTTPS server → signals. Everything with
// behaviour lives in the modules it wires together.
import { pathToFileURL } from 'node:url';
import { createGateway } from './app.js';
import { createRegistry } from './registry/registry.js';
import { serverKindValidator } from './admission/policy/expression-check.js';
import { startControllers, type Controller } from './controllers/start.js';
import { builtinKinds } from '../api/register.js';
import type { KindDefinition } from '../api/scheme.js';
import { parseOptions, usage, OptionsError, type GatehouseOptions } from './server/options.js';
import { loadOrCreateCertificates } from './server/certs.js';
import { clientUrl, writeAdminKubeconfig } from './server/kubeconfig.js';
import { createShutdown, installSignalHandlers } from './server/shutdown.js';
import { createSecureServer } from './server/secure-server.js';
import { listen } from './server/listen.js';
import { defaultMaxConnections } from './server/connection-guards.js';
import { createLogger, lineLog } from './server/logger.js';
import { loadOrCreateAdminToken } from './authn/admin-token.js';
import { buildAuthenticator } from './authn/build-authenticator.js';
import { loadServiceAccountKeys } from './authn/service-account-keys.js';
import { serviceAccountTokenSubresources } from './handlers/token-request.js';
import { clientAuthTlsOptions } from './authn/tls-client-auth.js';
import { startAuthorization } from '../policies/build-authorizer.js';
import { createAuthorizationMetrics } from './metrics/authorization-metrics.js';
import { createServerMetrics, tlsHandshakeErrorCounter, unknownDisabledMetrics } from './metrics/server-metrics.js';
import { instrumentStorage } from './metrics/storage-metrics.js';
import { startStorageStateMetrics } from './metrics/storage-state-metrics.js';
import { storageTypes } from './metrics/storage-types.js';
import type { AuthorizationChain } from '../policies/config/authorization-chain.js';
import { startRbacIndexFeed, type RbacIndexFeed } from './rbac/index-feed.js';
import { startAdmission, type RunningAdmission } from './admission/start-admission.js';
import type { AdmissionPlugin } from './admission/plugin.js';
import { createHealthChecks } from './handlers/health.js';
import { createStorage, registerHealthChecks } from './server/open-storage.js';
import { versionInfo } from './server/version-info.js';
import { makeDirectory } from '../backends/make-directory.js';
import { realClock, type Clock } from './server/clock.js';
import { loadConfiguredPolicy, startAudit, type Audit } from './audit/audit.js';
import { createAggregatorMetrics } from './metrics/aggregator-metrics.js';
import { loadEndpointsFile } from './aggregator/service-resolver.js';
import { startAggregation, type Aggregation } from './aggregator/aggregation.js';
import { startFlowControl, type RunningFlowControl } from './flowcontrol/start-flowcontrol.js';
import { startSharedState } from './shared-state/start.js';

export interface RunningGatehouse {
  url: string;
  port: number;
  dataDir: string;
  adminKubeconfigPath: string;
  adminToken: string;
  /** PEM of the CA clients should trust. */
  caPem: string;
  options: GatehouseOptions;
  /** Runs the graceful shutdown (honouring --shutdown-delay-duration) and resolves when everything is closed. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where each log entry goes, formatted by --logging-format, without its newline (default: stderr). */
  log?: (entry: string) => void;
  /** The start banner (default: stdout): the CLI's output for whoever started it, not a log entry. */
  out?: (line: string) => void;
  /** Resolve relative paths against this directory (default: process.cwd()). */
  cwd?: string;
  /** Served kinds (default: every built-in kind). */
  kinds?: KindDefinition[];
  /** Handle SIGTERM/SIGINT and exit the process when shut down (the CLI does; in-process tests do not). */
  handleSignals?: boolean;
  /** Time for the history window and watch timeouts (default: the real clock); tests move theirs by hand. */
  clock?: Clock;
  /** Admission plugins of a test, in the list where upstream's mutating webhooks go (AdmissionDeps.extra). */
  admissionPlugins?: readonly AdmissionPlugin[];
}

/** --runtime-config switches group/versions and single resources off (or on); the namespace kind always stays. */
function servedKinds(kinds: KindDefinition[], options: GatehouseOptions): KindDefinition[] {
  return kinds.filter(
    (def) =>
      (def.group === '' && def.resource === 'namespaces') ||
      options.runtimeConfig.enabled(def.group, def.version, def.resource, true),
  );
}

export async function startGatehouse(argv: string[], opts: StartOptions = {}): Promise<RunningGatehouse> {
  const out = opts.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const options = parseOptions(argv, opts.cwd);
  // Per server, never process-wide: tests run several servers in one process, each with its own level and sink.
  const logger = createLogger({ verbosity: options.verbosity, format: options.loggingFormat, sink: opts.log });
  const log = lineLog(logger);
  for (const warning of [...options.warnings, ...options.featureGates.warnings]) log(`warning: ${warning}`);
  // Read before anything opens: a bad policy stops the start with nothing to undo.
  const auditPolicy = loadConfiguredPolicy(options.audit);
  const endpoints =
    options.aggregatorEndpointsFile === undefined ? undefined : loadEndpointsFile(options.aggregatorEndpointsFile);

  await makeDirectory(options.dataDir, 0o700).catch((e: Error) => {
    throw new Error(`cannot create the --data-dir ${options.dataDir}: ${e.message}`);
  });
  const certs = await loadOrCreateCertificates({
    certDir: options.certDir,
    bindAddress: options.bindAddress,
    tlsCertFile: options.tlsCertFile,
    tlsPrivateKeyFile: options.tlsPrivateKeyFile,
  });
  if (certs.action !== 'reused' && certs.action !== 'provided')
    log(`serving certificate ${certs.action} in ${options.certDir}`);
  const adminToken = await loadOrCreateAdminToken(options.dataDir);
  const serviceAccountKeys = await loadServiceAccountKeys(options.serviceAccounts, {
    tlsPrivateKeyFile: options.tlsPrivateKeyFile,
    certDir: options.certDir,
    log,
  });

  const clock = opts.clock ?? realClock;
  const serverMetrics = createServerMetrics(options.metrics, {
    recordRequests: process.env.GATEHOUSE_REQUEST_METRICS !== 'off',
  });
  const kinds = servedKinds(opts.kinds ?? builtinKinds, options);
  const types = storageTypes(kinds);
  const opened = await createStorage(options, log, () => clock.now());
  // Without request metrics (the bench measuring what recording costs) the storage is the backend itself.
  const storage = serverMetrics.recordRequests ? instrumentStorage(opened, serverMetrics.main, types) : opened;
  const storageState = startStorageStateMetrics({
    storage,
    backend: options.storageBackend,
    types,
    metrics: serverMetrics.main,
    clock,
    log,
  });
  const closeStorage = async (): Promise<void> => {
    storageState.stop();
    await storage.close();
  };
  const health = createHealthChecks({ livezGracePeriodMs: options.livezGracePeriodMs });
  registerHealthChecks(health, storage);
  const informers = health.postStartHook('generic-apiserver-start-informers');
  const autoregister = health.bootSequence('autoregister-completion');
  const namespacesHook = health.postStartHook('start-system-namespaces-controller');
  const rbacHook = health.postStartHook('rbac/bootstrap-roles');
  const shared = await startSharedState(options.sharedState, { health, metrics: serverMetrics.main, clock, log });

  const controller = new AbortController();
  // Controllers that publish the server's URL (the bootstrap signer's cluster-info) start before the server listens.
  let setServerUrl: (url: string) => void = () => {};
  const serverUrl = new Promise<string>((resolve) => {
    setServerUrl = resolve;
  });
  let gateway;
  let controllers: Controller;
  let rbac: RbacIndexFeed | undefined;
  let admission: RunningAdmission | undefined;
  const metrics = createAuthorizationMetrics(serverMetrics.main);
  let authorization: AuthorizationChain | undefined;
  let audit: Audit | undefined;
  const aggregatorMetrics = createAggregatorMetrics(serverMetrics.main);
  let aggregation: Aggregation | undefined;
  let flowControl: RunningFlowControl | undefined;
  try {
    audit = startAudit(options.audit, auditPolicy, { metricsRegistry: metrics.registry, log, clock });
    // The registry exists before the chains: bootstrap and service-account tokens, RBAC and the controllers read
    // their objects through it.
    const registry = createRegistry(kinds, storage, serverKindValidator);
    const objectCount = (type: string) => storageState.objectCount(type);
    flowControl = startFlowControl({ options, registry, clock, metrics: serverMetrics.main, objectCount, log });
    const authenticator = await buildAuthenticator({
      options,
      adminToken,
      registry,
      log,
      serviceAccountKeys,
      signal: controller.signal,
    });
    // RBAC decisions come from an index the feed keeps current by watching the four RBAC kinds.
    rbac = startRbacIndexFeed(registry, { log });
    authorization = startAuthorization(options.authorization, {
      log,
      metrics,
      rbac: rbac.index,
      sharedDecisions: shared.sharedDecisions,
    });
    const { authorizer } = authorization;
    admission = startAdmission({
      registry,
      authorization: { authorizer, rbac: rbac.index, modes: () => authorization?.types() ?? [] },
      // Services named by webhooks are reached as those of APIServices; the aggregation layer starts just below.
      resolver: () => aggregation?.resolver,
      flags: options.admission,
      reviewGroup: options.admissionReviewApiGroup,
      metrics: serverMetrics.main,
      clock,
      log,
      extra: opts.admissionPlugins,
    });
    aggregation = startAggregation({
      registry,
      endpointsFile: options.aggregatorEndpointsFile,
      endpoints,
      proxyClient: options,
      requestHeader: options.requestHeader,
      metrics: aggregatorMetrics,
      clock,
      logger,
      log,
    });
    gateway = createGateway({
      remoteApis: aggregation.remoteApis,
      virtualResourceEnabled: (r) => options.runtimeConfig.enabled(r.group, r.version, r.resource, true),
      storage,
      registry,
      authenticator,
      authorizer,
      health,
      features: options.featureGates,
      maxRequestBodyBytes: options.maxRequestBodyBytes,
      shutdownSignal: controller.signal,
      version: versionInfo(),
      requestTimeoutMs: options.requestTimeoutMs,
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
      clock,
      maxRequestsInflight: options.maxRequestsInflight,
      maxMutatingRequestsInflight: options.maxMutatingRequestsInflight,
      priorityAndFairness: flowControl.apf,
      readBodyTimeoutMs: options.readBodyTimeoutMs,
      logger,
      createSubresources: serviceAccountTokenSubresources(serviceAccountKeys, options.serviceAccounts),
      metrics: serverMetrics,
      audit,
      aggregator: aggregation.proxy,
      rateLimit: shared.rateLimit,
    });
    // Discovery is assembled synchronously inside createGateway, so once it returns every group is registered.
    autoregister.complete();
    // The built-in namespaces (and whatever else controllers seed) exist before the first request is served.
    controllers = await startControllers({
      registry: gateway.registry,
      options,
      log,
      caPem: certs.caPem,
      serverUrl,
      servedGroupVersions: gateway.groupVersions,
      serviceResolver: aggregation.resolver,
      aggregatorMetrics,
      proxyClientCert: aggregation.clientCert,
      clock,
      metricsRegistry: serverMetrics.main,
    });
    await aggregation.synced;
    namespacesHook.complete();
    await rbac.bootstrapIndexed();
    await admission.synced;
    await flowControl.synced;
    rbacHook.complete();
  } catch (e) {
    // Background work tied to the shutdown signal (the authentication configuration watcher) stops too.
    controller.abort();
    authorization?.close();
    await aggregation?.stop();
    await flowControl?.stop();
    await rbac?.stop();
    await admission?.stop();
    await shared.close();
    await closeStorage();
    await audit?.close();
    throw e;
  }
  const { app } = gateway;

  // With --client-ca-file or --requestheader-client-ca-file the TLS layer asks for and verifies client certificates;
  // the x509 and request-header authenticators each check which CA signed them.
  const clientAuth = clientAuthTlsOptions(options);
  // Koa's handler answers its own failures (ctx.onerror), so the promise it returns is not the server's to await.
  const handle = app.callback();
  const secure = createSecureServer(
    {
      tls: { cert: certs.certPem, key: certs.keyPem, minVersion: 'TLSv1.2', ...clientAuth },
      maxStreamsPerConnection: options.http2MaxStreamsPerConnection,
      goawayChance: options.goawayChance,
      headerTimeoutMs: options.readHeaderTimeoutMs,
      onTlsHandshakeError: tlsHandshakeErrorCounter(serverMetrics),
      maxConnections: options.maxConnections ?? defaultMaxConnections(),
      logger,
      clock,
    },
    (req, res) => void handle(req, res),
  );
  // Every metric exists by now: a --disabled-metrics name still unknown names none.
  for (const name of unknownDisabledMetrics(serverMetrics))
    log(`warning: --disabled-metrics: metric ${name} is not registered, nothing to disable`);
  let port: number;
  try {
    port = await listen(secure.server, options.securePort, options.bindAddress);
  } catch (e) {
    controller.abort();
    authorization?.close();
    await controllers.stop();
    await aggregation.stop();
    await flowControl.stop();
    await rbac.stop();
    await admission.stop();
    await shared.close();
    await closeStorage();
    await audit?.close();
    throw new Error(`failed to listen on ${options.bindAddress}:${options.securePort}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  informers.complete();

  const url = clientUrl(options.bindAddress, port);
  setServerUrl(url);

  const shutdown = createShutdown({
    server: secure,
    health,
    controller,
    delayMs: options.shutdownDelayMs,
    drainMs: options.shutdownWatchTerminationGracePeriodMs + 5_000,
    closers: [
      () => controllers.stop(),
      () => aggregation.stop(),
      () => flowControl.stop(),
      async () => authorization?.close(),
      () => rbac.stop(),
      () => admission.stop(),
      () => shared.close(),
      closeStorage,
      async () => audit?.close(),
    ],
    log,
  });
  let adminKubeconfigPath: string;
  try {
    adminKubeconfigPath = await writeAdminKubeconfig({
      dataDir: options.dataDir,
      server: url,
      caPem: certs.caPem,
      token: adminToken,
    });
  } catch (e) {
    // The server listens by now: a start that fails here must not leave it, the controllers and storage running.
    await shutdown.run('start-up failed');
    throw e;
  }
  const removeSignalHandlers = opts.handleSignals ? installSignalHandlers(shutdown, log) : () => {};

  out(`Gatehouse is serving on ${url}`);
  out(`kubectl --kubeconfig ${adminKubeconfigPath} get ns`);

  return {
    url,
    port,
    dataDir: options.dataDir,
    adminKubeconfigPath,
    adminToken,
    caPem: certs.caPem,
    options,
    async close() {
      removeSignalHandlers();
      await shutdown.run('close');
    },
  };
}

/** CLI: `--help` prints usage; a bad flag or a failed start prints `Error: ...` and exits 1. */
export async function main(argv: string[] = process.argv.slice(2)): Promise<void> {
  // `gatehouse credential ...` is the client-side credential plugin, not the server (gateway/cli/credential.ts).
  if (argv[0] === 'credential') {
    const { runCredential } = await import('./cli/credential.js');
    process.exitCode = await runCredential(argv.slice(1), {
      env: process.env,
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
    });
    return;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(usage());
    return;
  }
  try {
    await startGatehouse(argv, { handleSignals: true });
  } catch (e) {
    process.stderr.write(`Error: ${(e as Error).message}\n`);
    if (e instanceof OptionsError) process.stderr.write(`Run 'gatehouse --help' for usage.\n`);
    process.exit(1);
  }
}

// No top-level await: test runners load this module through a CommonJS transform.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void main();
}
