// The registration layer every Gatehouse metric goes through, as component-base's is for kube-apiserver's: each
// metric declares its stability level and, once deprecated, the release that deprecated it. Registration then
// applies the operator's choices (--disabled-metrics, --show-hidden-metrics-for-version, --allow-metric-labels) in
// one place, so that no metric module has to know about them. One registry per server instance, never prom-client's
// global one: tests run several gateways in one process.
import { Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

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

  counter<L extends string>(descriptor: MetricDescriptor<L>): Counter<L> {
    return this.register(descriptor, (config) => new Counter<L>(config));
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

  private register<L extends string, M extends Counter<L> | Gauge<L> | Histogram<L>>(
    descriptor: MetricDescriptor<L>,
    create: (config: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) => M,
  ): M {
    this.known.add(descriptor.name);
    const served = !this.options.disabledMetrics.has(descriptor.name) && !this.hidden(descriptor);
    const deprecation = descriptor.deprecatedVersion ? `(Deprecated from ${descriptor.deprecatedVersion}) ` : '';
    const metric = create({
      name: descriptor.name,
      help: `${deprecation}[${descriptor.stability}] ${descriptor.help}`,
      labelNames: descriptor.labelNames ?? [],
      registers: served ? [this.registry] : [],
    });
    const allowList = this.options.allowListLabels.get(descriptor.name);
    if (allowList) constrainLabels(metric, descriptor.labelNames ?? [], allowList);
    return metric;
  }
}

type LabelValues = Record<string, string | number>;

/**
 * Wraps the label-taking methods of one metric so that a value outside its label's allow-list is recorded as
 * "unexpected". Only metrics named in an allow-list pay for it.
 */
function constrainLabels(metric: object, labelNames: readonly string[], allowList: Map<string, Set<string>>): void {
  const clean = (labels: LabelValues): LabelValues => {
    let copy: LabelValues | undefined;
    for (const [label, allowed] of allowList) {
      const value = labels[label];
      if (value === undefined || allowed.has(String(value))) continue;
      copy ??= { ...labels };
      copy[label] = UNEXPECTED_LABEL_VALUE;
    }
    return copy ?? labels;
  };
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
