// Counters and histograms whose label sets are resolved once and then recorded into directly. prom-client checks and
// hashes the labels on every observation, even through a child from labels(): about 2 µs for the request metrics'
// eight labels, several times per request. These keep one plain record per label set instead, and hand the registry
// the same values prom-client's own metrics would (the registry only calls get(), name, help and type).
import type { Metric } from 'prom-client';

type Labels = Record<string, string>;

interface Value {
  labels: Labels;
  value: number;
  metricName?: string;
}

abstract class RouteSeries<Entry extends { labels: Labels }> {
  readonly aggregator = 'sum';
  protected readonly entries = new Map<string, Entry>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    /** The label allow-lists (--allow-metric-labels), applied once per label set. */
    private readonly clean: ((labels: Labels) => Labels) | undefined,
  ) {}

  /** The record of one label set, created at zero on first use. */
  protected entry(given: Labels, create: (labels: Labels) => Entry): Entry {
    const labels = this.clean ? this.clean(given) : given;
    const key = this.labelNames.map((name) => labels[name]).join('\0');
    let found = this.entries.get(key);
    if (!found) {
      found = create(labels);
      this.entries.set(key, found);
    }
    return found;
  }

  /** Zeroes every record in place: the children handed out keep recording into them. */
  reset(): void {
    for (const entry of this.entries.values()) this.zero(entry);
  }

  protected abstract zero(entry: Entry): void;

  abstract get(): { name: string; help: string; type: string; values: Value[]; aggregator: string };

  /** As a prom-client Metric, for Registry.registerMetric. */
  asMetric(): Metric {
    return this as unknown as Metric;
  }
}

export class RouteCounter extends RouteSeries<{ labels: Labels; value: number }> {
  /** The increment of one label set (exported from its first increment on). */
  child(labels: Labels): () => void {
    let entry: { value: number } | undefined;
    return () => {
      entry ??= this.entry(labels, (cleaned) => ({ labels: cleaned, value: 0 }));
      entry.value++;
    };
  }

  /** One increment (terminations and other rare series: no child kept by the caller). */
  inc(labels: Labels): void {
    this.entry(labels, (cleaned) => ({ labels: cleaned, value: 0 })).value++;
  }

  protected zero(entry: { value: number }): void {
    entry.value = 0;
  }

  get() {
    const values = [...this.entries.values()].map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: 'counter', values, aggregator: this.aggregator };
  }
}

interface HistogramEntry {
  labels: Labels;
  /** Per bucket, not cumulative: the exposition sums them. */
  counts: number[];
  sum: number;
  count: number;
}

export class RouteHistogram extends RouteSeries<HistogramEntry> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
    clean: ((labels: Labels) => Labels) | undefined,
  ) {
    super(name, help, labelNames, clean);
  }

  /** The observation of one label set (exported from its first observation on). */
  child(labels: Labels): (value: number) => void {
    const bounds = this.upperBounds;
    let entry: HistogramEntry | undefined;
    return (value) => {
      entry ??= this.entry(labels, (cleaned) => ({ labels: cleaned, counts: bounds.map(() => 0), sum: 0, count: 0 }));
      entry.sum += value;
      entry.count++;
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]) {
          entry.counts[i]++;
          break;
        }
      }
    };
  }

  protected zero(entry: HistogramEntry): void {
    entry.counts.fill(0);
    entry.sum = 0;
    entry.count = 0;
  }

  get() {
    const values: Value[] = [];
    for (const { labels, counts, sum, count } of this.entries.values()) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, i) => {
        cumulative += counts[i];
        values.push({ labels: { le: String(bound), ...labels }, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: `${this.name}_bucket` });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: 'histogram', values, aggregator: this.aggregator };
  }
}
