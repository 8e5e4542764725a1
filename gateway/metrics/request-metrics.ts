// kube-apiserver's request metrics (k8s.io/apiserver/pkg/endpoints/metrics), same names, labels and buckets.
// Recording is on every request's path, so label sets are resolved once per distinct (verb, resource, scope...) and
// their records kept (route-series.ts): a request then costs a Map lookup and the observations, not prom-client's
// checking and hashing of a label object per metric.
import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Context, Middleware, Next } from 'koa';
import { requestInfoOf, requestQuery, type RequestInfo } from '../request/request-info.js';
import { isLongRunning } from '../filters/max-in-flight.js';
import type { MetricsRegistry } from './registration.js';
import { cleanDryRun, cleanScope, cleanVerb } from './request-labels.js';
import type { ServedResources } from './served-resources.js';
import { answeredBy, type AnsweringComponent } from './answered-by.js';

const LATENCY_BUCKETS = [
  0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60,
];
const SIZE_BUCKETS = Array.from({ length: 8 }, (_, i) => 1000 * 10 ** i);
const FILTER_BUCKETS = [0.0001, 0.0003, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 5, 10, 15, 30];
const ROUTE_LABELS = ['verb', 'group', 'version', 'resource', 'subresource', 'scope', 'component'] as const;
const DRY_RUN_ROUTE_LABELS = [
  'verb',
  'dry_run',
  'group',
  'version',
  'resource',
  'subresource',
  'scope',
  'component',
] as const;
// The non-resource paths upstream instruments by their path; any other path is one empty label value.
const NAMED_PATHS = new Set([
  '/api',
  '/apis',
  '/healthz',
  '/livez',
  '/readyz',
  '/metrics',
  '/metrics/slis',
  '/openapi/v2',
  '/openapi/v3',
  '/version',
]);

/** Set on a request that passed authentication and authorization: upstream counts only those (and its 429s). */
const ADMITTED = Symbol('request-metrics-admitted');
/** The labels a long-running request holds in apiserver_longrunning_requests until it ends. */
const LONG_RUNNING = Symbol('request-metrics-long-running');

interface MetricsState {
  [ADMITTED]?: boolean;
  [LONG_RUNNING]?: Record<string, string>;
}

interface Route {
  verb: string;
  dryRun: string;
  group: string;
  version: string;
  resource: string;
  subresource: string;
  scope: string;
  component: AnsweringComponent;
}

interface RouteSeries {
  route: Route;
  duration: (seconds: number) => void;
  sli: (seconds: number) => void;
  size: (bytes: number) => void;
  codes: Map<number, () => void>;
}

const isStream = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe === 'function';

type Writable = ServerResponse | Http2ServerResponse;

/**
 * Counts the bytes of the body still to be written (Koa pipes a stream body after the filters have returned) and
 * observes their sum once the response is done or cut short: a running count, nothing of the body held.
 */
function observeWritten(res: Writable, observe: (bytes: number) => void): void {
  let bytes = 0;
  const count = (chunk: unknown, encoding: unknown): void => {
    if (typeof chunk === 'string')
      bytes += Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) bytes += chunk.byteLength;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Writable;
  res.write = ((...args: unknown[]) => {
    count(args[0], args[1]);
    return write(...args);
  }) as Writable['write'];
  res.end = ((...args: unknown[]) => {
    if (typeof args[0] !== 'function') count(args[0], args[1]);
    return end(...args);
  }) as Writable['end'];
  let observed = false;
  const done = (): void => {
    if (observed) return;
    observed = true;
    observe(bytes);
  };
  res.once('finish', done);
  res.once('close', done);
}

export interface RequestMetrics {
  /** Outermost after request info: times the request and records it once its status is final. */
  readonly filter: Middleware;
  /** Placed after authorization: what passes it is counted. */
  readonly admitted: Middleware;
  /** Wraps a filter to record the time it takes before handing the request on. */
  timed(name: string, filter: Middleware): Middleware;
  /** The timeout filter answered the request itself (504): a termination. */
  readonly terminated: (ctx: Context, code: number) => void;
  /** The in-flight limiter's counts changed (the gauge reports the highest since the last scrape, as upstream). */
  readonly inFlight: (readOnly: number, mutating: number) => void;
}

function routeOf(ctx: Context, info: RequestInfo, served: ServedResources): Route {
  const scope = cleanScope(info);
  const verb = cleanVerb(info, ctx.method, ctx.get('content-type'));
  const dryRun = ctx.querystring.includes('dryRun') ? cleanDryRun(requestQuery(ctx)) : '';
  if (!info.isResourceRequest) {
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path;
    return {
      verb,
      dryRun,
      group: '',
      version: '',
      resource: '',
      subresource: NAMED_PATHS.has(path) ? path : '',
      scope,
      component: answeredBy(ctx),
    };
  }
  const { apiGroup: group, apiVersion: version, resource, subresource } = info;
  if (!served.has(group, version, resource, '')) {
    return { verb, dryRun, group: '', version: '', resource: '', subresource: '', scope, component: answeredBy(ctx) };
  }
  const knownSubresource = served.has(group, version, resource, subresource) ? subresource : '';
  return { verb, dryRun, group, version, resource, subresource: knownSubresource, scope, component: answeredBy(ctx) };
}

export function createRequestMetrics(metrics: MetricsRegistry, served: ServedResources): RequestMetrics {
  const total = metrics.routeCounter({
    name: 'apiserver_request_total',
    help: 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.',
    stability: 'STABLE',
    labelNames: [...DRY_RUN_ROUTE_LABELS, 'code'],
  });
  const duration = metrics.routeHistogram({
    name: 'apiserver_request_duration_seconds',
    help: 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.',
    stability: 'STABLE',
    labelNames: DRY_RUN_ROUTE_LABELS,
    buckets: LATENCY_BUCKETS,
  });
  const sli = metrics.routeHistogram({
    name: 'apiserver_request_sli_duration_seconds',
    help: 'Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.',
    stability: 'ALPHA',
    labelNames: ROUTE_LABELS,
    buckets: LATENCY_BUCKETS,
  });
  const sizes = metrics.routeHistogram({
    name: 'apiserver_response_sizes',
    help: 'Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.',
    stability: 'STABLE',
    labelNames: ROUTE_LABELS,
    buckets: SIZE_BUCKETS,
  });
  const longRunning = metrics.gauge({
    name: 'apiserver_longrunning_requests',
    help: 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
    stability: 'STABLE',
    labelNames: ROUTE_LABELS,
  });
  const terminations = metrics.counter({
    name: 'apiserver_request_terminations_total',
    help: 'Number of requests which apiserver terminated in self-defense.',
    stability: 'ALPHA',
    labelNames: [...ROUTE_LABELS, 'code'],
  });
  const filterDuration = metrics.routeHistogram({
    name: 'apiserver_request_filter_duration_seconds',
    help: 'Request filter latency distribution in seconds, for each filter type',
    stability: 'ALPHA',
    labelNames: ['filter'],
    buckets: FILTER_BUCKETS,
  });
  let highest = { readOnly: 0, mutating: 0 };
  let current = { readOnly: 0, mutating: 0 };
  metrics.gauge(
    {
      name: 'apiserver_current_inflight_requests',
      help: 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.',
      stability: 'STABLE',
      labelNames: ['request_kind'],
    },
    function collect() {
      this.set({ request_kind: 'readOnly' }, highest.readOnly);
      this.set({ request_kind: 'mutating' }, highest.mutating);
      highest = { ...current };
    },
  );

  const routeLabels = (route: Route) => ({
    verb: route.verb,
    group: route.group,
    version: route.version,
    resource: route.resource,
    subresource: route.subresource,
    scope: route.scope,
    component: route.component,
  });
  // In upstream's order, dry_run second, as the exposition then reads.
  const dryRunRouteLabels = (route: Route) => {
    const { verb, ...rest } = routeLabels(route);
    return { verb, dry_run: route.dryRun, ...rest };
  };
  const series = new Map<string, RouteSeries>();
  const seriesOf = (route: Route): RouteSeries => {
    const key = `${route.verb}\0${route.dryRun}\0${route.group}\0${route.version}\0${route.resource}\0${route.subresource}\0${route.scope}\0${route.component}`;
    let found = series.get(key);
    if (!found) {
      const labels = routeLabels(route);
      found = {
        route,
        duration: duration.child(dryRunRouteLabels(route)),
        sli: sli.child(labels),
        size: sizes.child(labels),
        codes: new Map(),
      };
      series.set(key, found);
    }
    return found;
  };
  const count = (route: RouteSeries, code: number): void => {
    let counter = route.codes.get(code);
    if (!counter) {
      counter = total.child({ ...dryRunRouteLabels(route.route), code: String(code) });
      route.codes.set(code, counter);
    }
    counter();
  };

  async function requestMetricsFilter(ctx: Context, next: Next): Promise<void> {
    const started = performance.now();
    const info = requestInfoOf(ctx);
    try {
      await next();
    } finally {
      const state = ctx.state as MetricsState;
      // The in-flight limiter's 429 is the only answer before authorization that upstream counts: a termination too.
      const limited = !state[ADMITTED] && ctx.status === 429;
      if (state[ADMITTED] || limited) {
        const longRunningRequest = isLongRunning(info);
        const route = seriesOf(routeOf(ctx, info, served));
        if (limited) terminations.inc({ ...routeLabels(route.route), code: '429' });
        // The aggregator's own answer ends the request early, as upstream's proxy handler records it.
        if (route.route.component === 'aggregator')
          terminations.inc({ ...routeLabels(route.route), code: String(ctx.status) });
        const finish = (): void => {
          const seconds = (performance.now() - started) / 1000;
          count(route, ctx.status);
          route.duration(seconds);
          if (!longRunningRequest) route.sli(seconds);
          if (route.route.verb === 'GET' || route.route.verb === 'LIST') {
            // Koa knows the length of a buffered body; a streamed one (a large list, a compressed answer) is
            // counted as it is written, as upstream counts the bytes through its response writer.
            const size: number | undefined = ctx.response.length;
            if (size !== undefined) route.size(size);
            else if (isStream(ctx.body)) observeWritten(ctx.res, route.size);
            else route.size(0);
          }
          const held = state[LONG_RUNNING];
          if (held) longRunning.dec(held);
        };
        // A watch answers on its own (respond = false) and streams on after the handlers return: upstream times it
        // to its end.
        if (longRunningRequest && ctx.respond === false && !ctx.res.writableEnded) ctx.res.once('close', finish);
        else finish();
      }
    }
  }

  return {
    filter: requestMetricsFilter,
    admitted: (ctx, next) => {
      const state = ctx.state as MetricsState;
      state[ADMITTED] = true;
      const info = requestInfoOf(ctx);
      if (isLongRunning(info)) {
        state[LONG_RUNNING] = routeLabels(routeOf(ctx, info, served));
        longRunning.inc(state[LONG_RUNNING]);
      }
      return next();
    },
    timed(name, filter) {
      const observe = filterDuration.child({ filter: name });
      return function timedFilter(ctx, next) {
        const started = performance.now();
        return filter(ctx, () => {
          observe((performance.now() - started) / 1000);
          return next();
        });
      };
    },
    terminated: (ctx, code) => {
      const route = routeOf(ctx, requestInfoOf(ctx), served);
      terminations.inc({ ...routeLabels(route), code: String(code) });
    },
    inFlight: (readOnly, mutating) => {
      current = { readOnly, mutating };
      if (readOnly > highest.readOnly) highest.readOnly = readOnly;
      if (mutating > highest.mutating) highest.mutating = mutating;
    },
  };
}
