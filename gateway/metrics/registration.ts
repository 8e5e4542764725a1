// The registration layer every Gatehouse metric goes through, as component-base's is for kube-apiserver's: each
// metric declares its stability level and, once deprecated, the release that deprecated it. Registration then
// applies the operator's choices (--disabled-metrics, --show-hidden-metrics-for-version, --allow-metric-labels) in
// one place, so that no metric module has to know about them. One registry per server instance, never prom-client's
// global one: tests run several gateways in one process.
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';
import { RouteCounter, RouteHistogram } from './route-series.js';

export type StabilityLevel = 'ALPHA' | 'BETA' | 'STABLE';

/** The release whose metric deprecation rules apply (metrics deprecated at minor-3 or before are hidden). */
export const CURRENT_RELEASE = { major: 1, minor: 32 };

export interface MetricOptions {
  /** metric → label → the values recorded as themselves; any other value is recorded as "unexpected". */
  allowListLabels: Map<string, Map<string, Set<string>>>;
  disabledMetrics: Set<string>;
  /** The previous minor (`1.31`) or undefined: hidden metrics deprecated in that release are registered again. */
  showHiddenMetricsForVersion?: string;
}

export const defaultMetricOptions = (): MetricOptions => ({ allowListLabels: new Map(), disabledMetrics: new Set() });

export interface MetricDescriptor<L extends string> {
  name: string;
  help: string;
  stability: StabilityLevel;
  /** `major.minor` of the release that deprecated the metric. */
  deprecatedVersion?: string;
  labelNames?: readonly L[];
}

export const UNEXPECTED_LABEL_VALUE = 'unexpected';

function minorOf(version: string): number {
  const match = /^(\d+)\.(\d+)/.exec(version);
  if (!match || Number(match[1]) !== CURRENT_RELEASE.major) return -1;
  return Number(match[2]);
}

export class MetricsRegistry {
  readonly registry = new Registry();
  private readonly known = new Set<string>();

  constructor(private readonly options: MetricOptions = defaultMetricOptions()) {}

  /** `collect`, when given, fills the counter at each scrape: for totals kept elsewhere (a backend's counters). */
  counter<L extends string>(
    descriptor: MetricDescriptor<L>,
    collect?: (this: Counter<L>) => void | Promise<void>,
  ): Counter<L> {
    return this.register(descriptor, (config) => new Counter<L>({ ...config, collect }));
  }

  gauge<L extends string>(
    descriptor: MetricDescriptor<L>,
    collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L> {
    return this.register(descriptor, (config) => new Gauge<L>({ ...config, collect }));
  }

  histogram<L extends string>(descriptor: MetricDescriptor<L> & { buckets: number[] }): Histogram<L> {
    return this.register(descriptor, (config) => new Histogram<L>({ ...config, buckets: descriptor.buckets }));
  }

  /** A counter of pre-resolved label sets, for the per-request path (route-series.ts). */
  routeCounter(descriptor: MetricDescriptor<string>): RouteCounter {
    return this.registerRoute(
      descriptor,
      (help, clean) => new RouteCounter(descriptor.name, help, descriptor.labelNames ?? [], clean),
    );
  }

  routeHistogram(descriptor: MetricDescriptor<string> & { buckets: number[] }): RouteHistogram {
    return this.registerRoute(
      descriptor,
      (help, clean) =>
        new RouteHistogram(descriptor.name, help, descriptor.labelNames ?? [], descriptor.buckets, clean),
    );
  }

  /** Registers metric objects made elsewhere (prom-client's process metrics), except the disabled ones. */
  adopt(metrics: readonly Metric[]): void {
    for (const metric of metrics) {
      const { name } = metric as unknown as { name: string };
      this.known.add(name);
      if (!this.options.disabledMetrics.has(name)) this.registry.registerMetric(metric);
    }
  }

  /** Whether the metric is registered (served); a hidden or disabled one still records, into nothing served. */
  isServed(name: string): boolean {
    return this.registry.getSingleMetric(name) !== undefined;
  }

  /** --disabled-metrics entries that named no metric: upstream ignores them with a warning. */
  unknownDisabledMetrics(): string[] {
    return [...this.options.disabledMetrics].filter((name) => !this.known.has(name));
  }

  private hidden(descriptor: MetricDescriptor<string>): boolean {
    if (descriptor.deprecatedVersion === undefined) return false;
    const deprecated = minorOf(descriptor.deprecatedVersion);
    const shown = this.options.showHiddenMetricsForVersion;
    // Showing the previous release's hidden metrics is judging them as that release would have.
    const current = shown === undefined ? CURRENT_RELEASE.minor : minorOf(shown);
    return deprecated <= current - 3;
  }

  private annotatedHelp(descriptor: MetricDescriptor<string>): string {
    const deprecation = descriptor.deprecatedVersion ? `(Deprecated from ${descriptor.deprecatedVersion}) ` : '';
    return `${deprecation}[${descriptor.stability}] ${descriptor.help}`;
  }

  private served(descriptor: MetricDescriptor<string>): boolean {
    this.known.add(descriptor.name);
    return !this.options.disabledMetrics.has(descriptor.name) && !this.hidden(descriptor);
  }

  private registerRoute<M extends RouteCounter | RouteHistogram>(
    descriptor: MetricDescriptor<string>,
    create: (help: string, clean: ((labels: LabelValues) => LabelValues) | undefined) => M,
  ): M {
    const allowList = this.options.allowListLabels.get(descriptor.name);
    const metric = create(this.annotatedHelp(descriptor), allowList && allowListCleaner(allowList));
    if (this.served(descriptor)) this.registry.registerMetric(metric.asMetric());
    return metric;
  }

  private register<L extends string, M extends Counter<L> | Gauge<L> | Histogram<L>>(
    descriptor: MetricDescriptor<L>,
    create: (config: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) => M,
  ): M {
    const metric = create({
      name: descriptor.name,
      help: this.annotatedHelp(descriptor),
      labelNames: descriptor.labelNames ?? [],
      registers: this.served(descriptor) ? [this.registry] : [],
    });
    const allowList = this.options.allowListLabels.get(descriptor.name);
    if (allowList) constrainLabels(metric, descriptor.labelNames ?? [], allowList);
    return metric;
  }
}

export type LabelValues = Record<string, string>;

function allowListCleaner(allowList: Map<string, Set<string>>): (labels: LabelValues) => LabelValues {
  return (labels) => {
    let copy: LabelValues | undefined;
    for (const [label, allowed] of allowList) {
      const value = labels[label];
      if (value === undefined || allowed.has(value)) continue;
      copy ??= { ...labels };
      copy[label] = UNEXPECTED_LABEL_VALUE;
    }
    return copy ?? labels;
  };
}

/**
 * Wraps the label-taking methods of one metric so that a value outside its label's allow-list is recorded as
 * "unexpected". Only metrics named in an allow-list pay for it.
 */
function constrainLabels(metric: object, labelNames: readonly string[], allowList: Map<string, Set<string>>): void {
  const cleanStrings = allowListCleaner(allowList);
  const clean = (labels: Record<string, string | number>): LabelValues =>
    cleanStrings(Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)])));
  const target = metric as Record<string, (...args: unknown[]) => unknown>;
  for (const method of ['inc', 'dec', 'set', 'observe', 'startTimer']) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (typeof args[0] === 'object' && args[0] !== null) args[0] = clean(args[0] as LabelValues);
      return original.apply(this, args);
    };
  }
  for (const method of ['labels', 'remove']) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (typeof args[0] === 'object' && args[0] !== null) return original.call(this, clean(args[0] as LabelValues));
      const labels = clean(Object.fromEntries(labelNames.map((name, i) => [name, String(args[i])])));
      return original.apply(
        this,
        labelNames.map((name) => labels[name]),
      );
    };
  }
}
