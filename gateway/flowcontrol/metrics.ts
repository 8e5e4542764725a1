// kube-apiserver 1.32's apiserver_flowcontrol_* metrics (apiserver/pkg/util/flowcontrol/metrics), same names, labels
// and buckets, for the ones that apply here. The dispatcher records into this interface; without a metrics registry
// it records into nothing.
import type { MetricsRegistry } from '../metrics/registration.js';
import type { RejectReason } from './queue-set.js';

export interface FlowLabels {
  flow_schema: string;
  priority_level: string;
}

export interface FlowcontrolMetrics {
  rejected(labels: FlowLabels, reason: RejectReason): void;
  dispatched(labels: FlowLabels, waitSeconds: number): void;
  /** A request gave up waiting (timed out, cancelled) after this long. */
  gaveUp(labels: FlowLabels, waitSeconds: number): void;
  queued(labels: FlowLabels, delta: number, seats: number, queueLength: number): void;
  executing(labels: FlowLabels, delta: number, seats: number): void;
  /** The initial seats went back; how long the handler ran. */
  executed(labels: FlowLabels, seconds: number): void;
  estimated(labels: FlowLabels, seats: number, watchers: number | undefined): void;
  noAccommodation(labels: FlowLabels): void;
  limits(level: string, figures: LevelFigures): void;
  fairFrac(value: number): void;
  /** A level removed from the configuration: its per-level gauges go. */
  forgetLevel(level: string): void;
}

export interface LevelFigures {
  nominal: number;
  current: number;
  lower: number;
  upper: number;
  target: number;
  highWatermark: number;
  average: number;
  stdDev: number;
  smoothed: number;
}

const DURATION_BUCKETS = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
const FLOW = ['flow_schema', 'priority_level'] as const;
const LEVEL = ['priority_level'] as const;

export const NO_FLOWCONTROL_METRICS: FlowcontrolMetrics = {
  rejected: () => undefined,
  dispatched: () => undefined,
  gaveUp: () => undefined,
  queued: () => undefined,
  executing: () => undefined,
  executed: () => undefined,
  estimated: () => undefined,
  noAccommodation: () => undefined,
  limits: () => undefined,
  fairFrac: () => undefined,
  forgetLevel: () => undefined,
};

export function createFlowcontrolMetrics(registry: MetricsRegistry): FlowcontrolMetrics {
  const rejected = registry.counter({
    name: 'apiserver_flowcontrol_rejected_requests_total',
    help: 'Number of requests rejected by API Priority and Fairness subsystem',
    stability: 'BETA',
    labelNames: [...FLOW, 'reason'],
  });
  const dispatched = registry.counter({
    name: 'apiserver_flowcontrol_dispatched_requests_total',
    help: 'Number of requests executed by API Priority and Fairness subsystem',
    stability: 'BETA',
    labelNames: FLOW,
  });
  const inqueue = registry.gauge({
    name: 'apiserver_flowcontrol_current_inqueue_requests',
    help: 'Number of requests currently pending in queues of the API Priority and Fairness subsystem',
    stability: 'BETA',
    labelNames: FLOW,
  });
  const inqueueSeats = registry.gauge({
    name: 'apiserver_flowcontrol_current_inqueue_seats',
    help: 'Number of seats currently pending in queues of the API Priority and Fairness subsystem',
    stability: 'ALPHA',
    labelNames: FLOW,
  });
  const executingRequests = registry.gauge({
    name: 'apiserver_flowcontrol_current_executing_requests',
    help: 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem',
    stability: 'BETA',
    labelNames: FLOW,
  });
  const executingSeats = registry.gauge({
    name: 'apiserver_flowcontrol_current_executing_seats',
    help: 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem',
    stability: 'BETA',
    labelNames: FLOW,
  });
  const waitDuration = registry.histogram({
    name: 'apiserver_flowcontrol_request_wait_duration_seconds',
    help: 'Length of time a request spent waiting in its queue',
    stability: 'BETA',
    labelNames: [...FLOW, 'execute'],
    buckets: DURATION_BUCKETS,
  });
  const executionSeconds = registry.histogram({
    name: 'apiserver_flowcontrol_request_execution_seconds',
    help: 'Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem',
    stability: 'ALPHA',
    labelNames: FLOW,
    buckets: DURATION_BUCKETS,
  });
  const queueLength = registry.histogram({
    name: 'apiserver_flowcontrol_request_queue_length_after_enqueue',
    help: 'Length of queue in the API Priority and Fairness subsystem, as seen by each request after it is enqueued',
    stability: 'ALPHA',
    labelNames: FLOW,
    buckets: [0, 10, 25, 50, 100, 250, 500, 1000],
  });
  const estimatedSeats = registry.histogram({
    name: 'apiserver_flowcontrol_work_estimated_seats',
    help: 'Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness',
    stability: 'ALPHA',
    labelNames: FLOW,
    buckets: [1, 2, 4, 10],
  });
  const watchCount = registry.histogram({
    name: 'apiserver_flowcontrol_watch_count_samples',
    help: 'count of watchers for mutating requests in API Priority and Fairness',
    stability: 'ALPHA',
    labelNames: FLOW,
    buckets: [0, 1, 10, 100, 1000, 10000],
  });
  const noAccommodation = registry.counter({
    name: 'apiserver_flowcontrol_request_dispatch_no_accommodation_total',
    help: 'Number of times a dispatch attempt resulted in a non accommodation due to lack of available seats',
    stability: 'ALPHA',
    labelNames: FLOW,
  });
  const levelGauge = (name: string, help: string, stability: 'ALPHA' | 'BETA' = 'ALPHA', deprecatedVersion?: string) =>
    registry.gauge({ name, help, stability, deprecatedVersion, labelNames: LEVEL });
  const nominal = levelGauge(
    'apiserver_flowcontrol_nominal_limit_seats',
    'Nominal number of execution seats configured for each priority level',
    'BETA',
  );
  const concurrencyLimit = levelGauge(
    'apiserver_flowcontrol_request_concurrency_limit',
    'Nominal number of execution seats configured for each priority level',
    'BETA',
    '1.30',
  );
  const current = levelGauge(
    'apiserver_flowcontrol_current_limit_seats',
    'current derived number of execution seats available to each priority level',
  );
  const lower = levelGauge(
    'apiserver_flowcontrol_lower_limit_seats',
    'Configured lower bound on number of execution seats available to each priority level',
  );
  const upper = levelGauge(
    'apiserver_flowcontrol_upper_limit_seats',
    'Configured upper bound on number of execution seats available to each priority level',
  );
  const target = levelGauge('apiserver_flowcontrol_target_seats', 'Seat allocation targets');
  const highWatermark = levelGauge(
    'apiserver_flowcontrol_demand_seats_high_watermark',
    'High watermark, over last adjustment period, of demand_seats',
  );
  const average = levelGauge(
    'apiserver_flowcontrol_demand_seats_average',
    'Time-weighted average, over last adjustment period, of demand_seats',
  );
  const stdDev = levelGauge(
    'apiserver_flowcontrol_demand_seats_stdev',
    'Time-weighted standard deviation, over last adjustment period, of demand_seats',
  );
  const smoothed = levelGauge('apiserver_flowcontrol_demand_seats_smoothed', 'Smoothed seat demands');
  const fairFrac = registry.gauge({
    name: 'apiserver_flowcontrol_seat_fair_frac',
    help: "Fair fraction of server's concurrency to allocate to each priority level that can use it",
    stability: 'ALPHA',
  });
  const levelGauges = [
    nominal,
    concurrencyLimit,
    current,
    lower,
    upper,
    target,
    highWatermark,
    average,
    stdDev,
    smoothed,
  ];

  // The dispatcher hands the same label object for every request of a schema and level: the wait histogram's label
  // set with `execute` is built once per such object rather than per dispatched request.
  const executedLabels = new WeakMap<FlowLabels, FlowLabels & { execute: 'true' }>();
  return {
    rejected: (labels, reason) => rejected.inc({ ...labels, reason }),
    dispatched(labels, waitSeconds) {
      dispatched.inc(labels);
      let withExecute = executedLabels.get(labels);
      if (!withExecute) executedLabels.set(labels, (withExecute = { ...labels, execute: 'true' }));
      waitDuration.observe(withExecute, waitSeconds);
    },
    gaveUp: (labels, waitSeconds) => waitDuration.observe({ ...labels, execute: 'false' }, waitSeconds),
    queued(labels, delta, seats, length) {
      inqueue.inc(labels, delta);
      inqueueSeats.inc(labels, delta * seats);
      if (delta > 0) queueLength.observe(labels, length);
    },
    executing(labels, delta, seats) {
      executingRequests.inc(labels, delta);
      executingSeats.inc(labels, delta * seats);
    },
    executed: (labels, seconds) => executionSeconds.observe(labels, seconds),
    estimated(labels, seats, watchers) {
      estimatedSeats.observe(labels, seats);
      if (watchers !== undefined) watchCount.observe(labels, watchers);
    },
    noAccommodation: (labels) => noAccommodation.inc(labels),
    limits(level, figures) {
      const labels = { priority_level: level };
      nominal.set(labels, figures.nominal);
      concurrencyLimit.set(labels, figures.nominal);
      current.set(labels, figures.current);
      lower.set(labels, figures.lower);
      upper.set(labels, figures.upper);
      target.set(labels, figures.target);
      highWatermark.set(labels, figures.highWatermark);
      average.set(labels, figures.average);
      stdDev.set(labels, figures.stdDev);
      smoothed.set(labels, figures.smoothed);
    },
    fairFrac: (value) => fairFrac.set(value),
    forgetLevel(level) {
      for (const gauge of levelGauges) gauge.remove({ priority_level: level });
    },
  };
}
