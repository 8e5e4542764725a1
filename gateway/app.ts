// Composes the gateway: the filter chain in its one fixed order, then the routes. main.ts builds the dependencies
// (storage, authn, authz, health) and hands them here; nothing in this file does I/O of its own.
import Koa from 'koa';
import type { Storage } from '../backends/storage.js';
import type { KindDefinition } from '../api/scheme.js';
import type { Authenticator } from './authn/authenticator.js';
import type { Authorizer } from '../policies/authorizer.js';
import type { FeatureGates } from './server/feature-gates.js';
import { createHealthHandler, type HealthChecks } from './handlers/health.js';
import { requestInfoFilter, requestInfoOf, requestQuery } from './request/request-info.js';
import { createStatusFilter } from './filters/status.js';
import { canonicalGroupResolver, createGroupAliasFilter } from './request/group-alias.js';
import { createAuthenticationFilter } from './filters/authentication.js';
import { createAuthorizationFilter } from './filters/authorization.js';
import { createImpersonationFilter } from './filters/impersonation.js';
import {
  auditIdFilter,
  createAuditFilter,
  createFailedAuthenticationAuditFilter,
  type AuditSink,
} from './audit/filter.js';
import { createCompression } from './filters/compression.js';
import { createTimeoutFilter } from './filters/timeout.js';
import { createMaxInFlightFilter } from './filters/max-in-flight.js';
import { createPriorityAndFairnessFilter, type PriorityAndFairness } from './filters/priority-and-fairness.js';
import { debugDump } from './flowcontrol/debug-dump.js';
import { createSummaryLog } from './server/summary-log.js';
import { createLogger, lineLog, type Logger } from './server/logger.js';
import { createHttpLogFilter } from './filters/http-log.js';
import { isClientEnding } from './server/connection.js';
import { defaultSerializers, isPrettyPrint } from './negotiation/negotiate.js';
import { createRegistry, type Registry } from './registry/registry.js';
import { serverKindValidator } from './admission/policy/expression-check.js';
import { createDiscovery, servedGroupVersions } from './handlers/discovery.js';
import { createOpenAPIHandler } from './handlers/openapi.js';
import { createVersionHandler } from './handlers/version.js';
import { createResourceRouter } from './handlers/resource-router.js';
import {
  builtinVirtualResources,
  createVirtualResources,
  documentedVirtualResources,
} from './handlers/virtual-resources.js';
import { createSubresourceRegistry, type CreateSubresourceHandler } from './handlers/create-subresource.js';
import { errors } from '../api/meta/errors.js';
import type { ServerMetrics } from './metrics/server-metrics.js';
import { createRequestMetrics } from './metrics/request-metrics.js';
import { servedResources, withRemoteResources } from './metrics/served-resources.js';
import { instrumentAuthenticator } from './metrics/authentication-metrics.js';
import { createHealthMetrics } from './metrics/health-metrics.js';
import { createDeprecationMetrics } from './metrics/deprecation-metrics.js';
import { createDeprecationNotices, type DeprecationNotices } from './handlers/deprecated-versions.js';
import { createWatchMetrics } from './metrics/watch-metrics.js';
import { realClock, type Clock } from './server/clock.js';
import type { RemoteAPIs } from './aggregator/remote-discovery.js';
import type { AggregatorProxy } from './aggregator/proxy.js';

export interface AppDeps {
  storage: Storage;
  /** The served kinds, unless `registry` (already built over them) is given. */
  kinds?: KindDefinition[];
  registry?: Registry;
  authenticator: Authenticator;
  authorizer: Authorizer;
  health: HealthChecks;
  features: FeatureGates;
  /** Request bodies above this get 413. */
  maxRequestBodyBytes: number;
  /** Aborted when the server shuts down: open watches end cleanly. */
  shutdownSignal: AbortSignal;
  /** For /version. */
  version: VersionInfo;
  /** Non-watch requests answer 504 after this long (--request-timeout); 0 disables. */
  requestTimeoutMs?: number;
  /** Watches without timeoutSeconds end after a random time in [this, 2x this) (--min-request-timeout). */
  minRequestTimeoutSeconds?: number;
  /** Times watches and requests out (default: the real clock). */
  clock?: Clock;
  /** Non-mutating requests served at once, past which they get 429 (--max-requests-inflight); 0: no limit. */
  maxRequestsInflight?: number;
  /** Mutating requests served at once (--max-mutating-requests-inflight); 0: no limit. */
  maxMutatingRequestsInflight?: number;
  /** API Priority and Fairness (gateway/flowcontrol/), in place of the two in-flight limits above when given. */
  priorityAndFairness?: PriorityAndFairness;
  /** A request body not received whole this long after a handler starts reading it answers 504; 0: no limit. */
  readBodyTimeoutMs?: number;
  /** Failure details withheld from clients go here (default: a logger of its own, on stderr at -v 0). */
  logger?: Logger;
  /** Behaviour of the kinds' create-only subresources (the ServiceAccount token issuer). */
  createSubresources?: CreateSubresourceHandler[];
  /** Served at GET /metrics and /metrics/slis (Prometheus text format) when given; requests are recorded into it. */
  metrics?: ServerMetrics;
  /** Where audit events go (--audit-policy-file with a backend); without it requests only get their Audit-Id. */
  audit?: AuditSink;
  /** The remote APIServices' group-versions, merged into discovery and OpenAPI v3; without it only local ones. */
  remoteApis?: RemoteAPIs;
  /** Proxies the group-versions of remote APIServices (gateway/aggregator/proxy.ts); without it, none is remote. */
  aggregator?: AggregatorProxy;
  /** The request-rate limits (--rate-limit-config, gateway/filters/rate-limit.ts); without it, none. */
  rateLimit?: Koa.Middleware;
  /** Whether --runtime-config leaves a review resource (SubjectAccessReview, ...) served; without it, all are. */
  virtualResourceEnabled?: (r: { group: string; version: string; resource: string }) => boolean;
}

export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

export interface Gateway {
  app: Koa;
  registry: Registry;
  /** The group-versions this server answers itself, in discovery order (the autoregistration controller's input). */
  groupVersions: { group: string; version: string }[];
}

/** `build` over the kinds the registry serves now, built again only after they changed. */
function followingServedKinds<T>(registry: Registry, build: (kinds: KindDefinition[]) => T): () => T {
  let generation = registry.generation();
  let built = build(registry.stores.map((store) => store.def));
  return () => {
    if (registry.generation() !== generation) {
      generation = registry.generation();
      built = build(registry.stores.map((store) => store.def));
    }
    return built;
  };
}

export function createGateway(deps: AppDeps): Gateway {
  const logger = deps.logger ?? createLogger();
  const serializers = defaultSerializers({ cbor: deps.features.enabled('CBORServingAndStorage') });
  const registry = deps.registry ?? createRegistry(deps.kinds ?? [], deps.storage, serverKindValidator);
  const kinds = registry.stores.map((store) => store.def);
  const virtual = createVirtualResources(
    builtinVirtualResources({ authorizer: deps.authorizer, canonicalGroup: canonicalGroupResolver(kinds) }).filter(
      (r) => deps.virtualResourceEnabled?.(r) ?? true,
    ),
  );
  // Built again, on the first request after it, whenever CustomResourceDefinitions change the served kinds.
  const discovery = followingServedKinds(registry, (served) =>
    createDiscovery(served, virtual.listed(), deps.remoteApis),
  );
  const openapi = followingServedKinds(registry, (served) =>
    createOpenAPIHandler(
      served,
      deps.version.gitVersion,
      documentedVirtualResources(virtual.listed()),
      deps.remoteApis,
    ),
  );
  const version = createVersionHandler(deps.version);
  const handlerDeps = {
    serializers,
    maxRequestBodyBytes: deps.maxRequestBodyBytes,
    shutdownSignal: deps.shutdownSignal,
    features: deps.features,
    minRequestTimeoutSeconds: deps.minRequestTimeoutSeconds ?? 1800,
    clock: deps.clock ?? realClock,
    readBodyTimeoutMs: deps.readBodyTimeoutMs ?? 32_000,
    logger,
    watchMetrics: deps.metrics && createWatchMetrics(deps.metrics, kinds, deps.storage),
  };
  const resources = createResourceRouter(
    registry,
    handlerDeps,
    virtual,
    createSubresourceRegistry(deps.createSubresources ?? []),
  );
  const metrics = deps.metrics;
  // Both follow the served kinds: custom resources are named in request metrics and announced when deprecated.
  const servedNow = followingServedKinds(registry, (served) => servedResources(served, virtual.listed()));
  const requestMetrics =
    metrics?.recordRequests === true
      ? createRequestMetrics(
          metrics.main,
          withRemoteResources({ has: (...resource) => servedNow().has(...resource) }, deps.remoteApis),
        )
      : undefined;
  const deprecationMetric = metrics && createDeprecationMetrics(metrics.main);
  const deprecationsNow = followingServedKinds(registry, (served) =>
    createDeprecationNotices(served, deps.version, deprecationMetric),
  );
  const deprecations: DeprecationNotices = (ctx, info) => deprecationsNow()(ctx, info);
  const health = createHealthHandler(deps.health, {
    log: lineLog(logger),
    onCheck: metrics ? createHealthMetrics(metrics.slis) : undefined,
  });
  const authenticator =
    metrics && requestMetrics ? instrumentAuthenticator(deps.authenticator, metrics.main) : deps.authenticator;
  // Without request metrics each wrapper is the filter itself: a build that records nothing pays nothing.
  const timed = (name: string, filter: Koa.Middleware): Koa.Middleware => requestMetrics?.timed(name, filter) ?? filter;

  const app = new Koa();
  // Clients that go away before their answer (a reset stream, a closed connection) are routine: each is a debug
  // line, and at info they are summed up at most once a minute, since one client resetting streams by the thousand
  // would otherwise fill the log.
  const clientEndings = createSummaryLog(
    (line) => logger.info(line),
    (count, first) =>
      first
        ? 'a client reset its stream or closed its connection before its answer was sent (such endings are counted and summed up once a minute)'
        : `${count} requests were ended by their clients (stream reset or refused, connection closed) before their answers were sent in the last minute`,
  );
  const clientEnded = (err: unknown): void => {
    const { code, message } = err as NodeJS.ErrnoException;
    logger.debug({ code, reason: message }, 'the client ended its request before the answer was sent');
    clientEndings.note();
  };
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (isClientEnding(err)) {
      clientEnded(err);
      return;
    }
    logger.error({ err }, 'response error');
  });
  // Installed only when its lines are written: at -v 0 a request does not pay for it.
  if (logger.isLevelEnabled('debug')) app.use(createHttpLogFilter(logger));
  // The order is the contract: identify the request, make every failure a Status, authenticate, limit what is in
  // flight, authorize, bound the time, and only then compress and route.
  // First, as upstream's WithAuditInit: every answer, refusals included, carries the Audit-Id.
  app.use(auditIdFilter);
  app.use(requestInfoFilter);
  // Outside the status filter, so that it records the status a failure became.
  if (requestMetrics) app.use(requestMetrics.filter);
  app.use(createStatusFilter(serializers, logger, clientEnded));
  // Hidden `*.k8s.io` aliases of stored kinds become the canonical group before anything authorizes or routes.
  app.use(createGroupAliasFilter(kinds));
  // Refused credentials are audited from just outside authentication, as upstream's WithFailedAuthenticationAudit.
  if (deps.audit) app.use(createFailedAuthenticationAuditFilter(deps.audit));
  // Why a credential was refused goes to the log (never the credential itself: authenticators' messages omit it).
  app.use(
    timed(
      'authentication',
      createAuthenticationFilter(authenticator, {
        onFailure: (reason) => logger.error({ err: reason }, 'Unable to authenticate the request'),
      }),
    ),
  );
  // Where upstream's WithAudit sits: the policy sees the authenticated user, and the event still records the
  // impersonated one and the refusals of every filter after it.
  if (deps.audit) app.use(timed('audit', createAuditFilter(deps.audit)));
  // Impersonation sits between authentication and authorization: the real user's right to impersonate is checked,
  // then the impersonated identity is what authorization and every handler see.
  app.use(timed('impersonation', createImpersonationFilter(deps.authorizer)));
  // Once the identity the request acts as is known, before it takes a seat or costs an authorizer call.
  if (deps.rateLimit) app.use(timed('rate-limit', deps.rateLimit));
  // Where upstream limits requests in flight: after impersonation (system:masters, as impersonated, is exempt) and
  // before authorization, so that a flood is refused before it costs authorizer calls.
  const apf = deps.priorityAndFairness;
  app.use(
    apf
      ? createPriorityAndFairnessFilter(apf, requestMetrics?.inFlight)
      : createMaxInFlightFilter({
          readOnly: deps.maxRequestsInflight ?? 400,
          mutating: deps.maxMutatingRequestsInflight ?? 200,
          onChange: requestMetrics?.inFlight,
        }),
  );
  app.use(timed('authorization', createAuthorizationFilter(deps.authorizer)));
  if (requestMetrics) app.use(requestMetrics.admitted);
  app.use(createTimeoutFilter(deps.requestTimeoutMs ?? 60_000, deps.clock, requestMetrics?.terminated));
  app.use(createCompression(deps.features));
  app.use(health);
  app.use(async function routes(ctx) {
    const info = requestInfoOf(ctx);
    // Here, after authorization and inside the timeout: RBAC rules on a remote resource work on the same request
    // attributes as on ours, and a hanging upstream is cut like a hanging handler.
    const remote = deps.aggregator?.owner(info);
    if (remote) return deps.aggregator?.serve(ctx, remote);
    if (info.isResourceRequest) {
      deprecations(ctx, info);
      return resources(ctx);
    }
    if (ctx.method === 'GET' || ctx.method === 'HEAD') {
      if (ctx.path === '/version' || ctx.path === '/version/') return version(ctx);
      if (discovery().handle(ctx, isPrettyPrint(requestQuery(ctx), ctx.get('user-agent')))) return;
      if (await openapi().handle(ctx)) return;
      // Non-resource paths: the authorization filter has already checked `get` on them.
      const served = ctx.path === '/metrics' ? metrics?.main : ctx.path === '/metrics/slis' ? metrics?.slis : undefined;
      if (served) {
        ctx.type = served.registry.contentType;
        ctx.body = await served.registry.metrics();
        return;
      }
      const dump = apf && debugDump(apf.dispatcher, ctx.path, requestQuery(ctx));
      if (dump !== undefined) {
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = dump;
        return;
      }
    }
    throw errors.pathNotFound();
  });
  return { app, registry, groupVersions: servedGroupVersions(kinds, virtual.listed()) };
}
