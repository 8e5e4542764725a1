// The API Priority and Fairness dispatcher: it holds the configuration (FlowSchemas sorted for classification, one
// queue set per priority level), classifies a request, admits it through its level (at once, after queuing, or not
// at all), and every adjustment period sets the levels' current limits again from their seat demand. Everything
// runs on the one event loop, so no state here needs a lock: each step below is synchronous.
import type { UserInfo } from '../../api/meta/user.js';
import type { RequestInfo } from '../request/request-info.js';
import type { Clock } from '../server/clock.js';
import { classify, flowDistinguisher, sortSchemas } from './classify.js';
import { CATCH_ALL, mandatoryConfiguration } from './mandatory-configuration.js';
import { NO_FLOWCONTROL_METRICS, type FlowcontrolMetrics, type FlowLabels } from './metrics.js';
import { QueueSet, type FlowRequest, type RejectReason } from './queue-set.js';
import { apportion, nominalLimits, SeatDemand, type LevelLimits } from './seats.js';
import { flowHash } from './shuffle-sharding.js';
import { levelSettings, type FlowSchemaObject, type LevelSettings, type PriorityLevelObject } from './types.js';
import { maxSeatsOf, type WorkEstimate } from './work-estimate.js';

/** upstream adjusts the levels' current limits every 10 s. */
export const ADJUSTMENT_PERIOD_MS = 10_000;

export interface PendingRequest extends FlowRequest {
  readonly schema: string;
  readonly distinguisher: string;
  /** Wall-clock arrival, for the dump. */
  readonly arrivedAt: number;
  readonly user: string;
  readonly verb: string;
  readonly path: string;
}

export interface Level {
  object: PriorityLevelObject;
  settings: LevelSettings;
  limits: LevelLimits;
  readonly queueSet: QueueSet<PendingRequest>;
  readonly demand: SeatDemand;
  dispatched: number;
  rejected: number;
  timedOut: number;
  cancelled: number;
}

export interface Classification {
  readonly schema: FlowSchemaObject;
  readonly level: Level;
  readonly distinguisher: string;
  readonly labels: FlowLabels;
}

/** Calls `cancel` if the request's client goes away; the returned function stops listening. */
export type WhenGone = (cancel: () => void) => () => void;

export interface Grant {
  /** The handler is done: the initial seats go back now, the final ones after the estimate's additional latency. */
  finish(): void;
}

/** A request refused by its level: the reason is upstream's metric label. */
export class FlowRejection extends Error {
  constructor(readonly reason: RejectReason) {
    super(`request rejected by API Priority and Fairness: ${reason}`);
  }
}

export class Dispatcher {
  private sorted: FlowSchemaObject[] = [];
  /** One label object per schema and level pair, so that the metrics can key what they derive from it. */
  private readonly labelSets = new Map<string, FlowLabels>();
  private readonly levels = new Map<string, Level>();
  private readonly mandatory = mandatoryConfiguration();
  private readonly metrics: FlowcontrolMetrics;
  private readonly clock: Clock;
  readonly serverConcurrencyLimit: number;
  fairFrac = 1;

  constructor(opts: { serverConcurrencyLimit: number; clock: Clock; metrics?: FlowcontrolMetrics }) {
    this.serverConcurrencyLimit = opts.serverConcurrencyLimit;
    this.clock = opts.clock;
    this.metrics = opts.metrics ?? NO_FLOWCONTROL_METRICS;
    this.configure([], []);
  }

  /**
   * A new configuration: levels kept by name keep their queues and waiting requests; the mandatory ones are added
   * when missing.
   */
  configure(schemas: readonly FlowSchemaObject[], levels: readonly PriorityLevelObject[]): void {
    this.labelSets.clear();
    const byName = new Map(levels.map((l) => [l.metadata.name, l]));
    for (const l of this.mandatory.levels) if (!byName.has(l.metadata.name)) byName.set(l.metadata.name, l);
    const schemaNames = new Set(schemas.map((s) => s.metadata.name));
    this.sorted = sortSchemas([...schemas, ...this.mandatory.schemas.filter((s) => !schemaNames.has(s.metadata.name))]);

    const settings = new Map([...byName].map(([name, object]) => [name, levelSettings(object)]));
    const limits = nominalLimits(
      this.serverConcurrencyLimit,
      [...settings].map(([name, s]) => ({ name, ...s })),
    );
    const now = this.clock.monotonic();
    for (const name of [...this.levels.keys()]) {
      if (byName.has(name)) continue;
      // Its waiting and executing requests still hold the level object and finish there.
      this.levels.delete(name);
      this.metrics.forgetLevel(name);
    }
    // Mandatory levels are always configured, so that a fallback level always exists.
    for (const [name, object] of byName) {
      const s = settings.get(name) as LevelSettings;
      const l = limits.get(name) as LevelLimits;
      const limit = s.exempt ? Infinity : l.nominalCL;
      const existing = this.levels.get(name);
      if (existing && existing.settings.exempt === s.exempt) {
        // An object rewritten without a change to its limits (a status update) keeps what borrowing gave it.
        const unchanged =
          JSON.stringify(existing.settings) === JSON.stringify(s) && existing.limits.nominalCL === l.nominalCL;
        existing.object = object;
        existing.settings = s;
        existing.limits = l;
        if (!unchanged) existing.queueSet.reconfigure(s.queuing, limit);
      } else {
        this.levels.set(name, {
          object,
          settings: s,
          limits: l,
          queueSet: new QueueSet<PendingRequest>(this.clock, s.queuing, limit),
          demand: new SeatDemand(now),
          dispatched: 0,
          rejected: 0,
          timedOut: 0,
          cancelled: 0,
        });
      }
      this.publishLimits(name);
    }
  }

  private publishLimits(name: string, target?: number): void {
    const level = this.levels.get(name);
    if (!level) return;
    const { limits, demand, queueSet } = level;
    this.metrics.limits(name, {
      nominal: limits.nominalCL,
      current: level.settings.exempt ? limits.nominalCL : queueSet.concurrencyLimit,
      lower: limits.minCL,
      upper: limits.maxCL,
      target: target ?? limits.nominalCL,
      highWatermark: demand.highWatermark,
      average: demand.average,
      stdDev: demand.stdDev,
      smoothed: demand.smoothed,
    });
  }

  classify(user: UserInfo, info: RequestInfo): Classification {
    const schema = classify(this.sorted, (name) => this.levels.has(name), user, info) ?? this.fallbackSchema();
    const level = this.levels.get(schema.spec.priorityLevelConfiguration.name) ?? this.levelNamed(CATCH_ALL);
    return {
      schema,
      level,
      distinguisher: flowDistinguisher(schema, user, info),
      labels: this.labelsOf(schema.metadata.name, level.object.metadata.name),
    };
  }

  private labelsOf(flowSchema: string, priorityLevel: string): FlowLabels {
    const key = `${flowSchema}\x00${priorityLevel}`;
    let labels = this.labelSets.get(key);
    if (!labels) this.labelSets.set(key, (labels = { flow_schema: flowSchema, priority_level: priorityLevel }));
    return labels;
  }

  /** The built-in catch-all schema: it decides only when the configured one names a level that is gone. */
  private fallbackSchema(): FlowSchemaObject {
    const schema = this.mandatory.schemas.find((s) => s.metadata.name === CATCH_ALL);
    if (!schema) throw new Error('the mandatory catch-all FlowSchema is missing');
    return schema;
  }

  private levelNamed(name: string): Level {
    const level = this.levels.get(name);
    if (!level) throw new Error(`priority level ${name} is missing from the configuration`);
    return level;
  }

  /** The most seats one request of the level may take: never more than the level's nominal limit. */
  maxSeats(level: Level): number {
    return level.settings.exempt ? Infinity : Math.max(1, level.limits.nominalCL);
  }

  /**
   * Resolves with the request's grant once it has its seats; rejects with a FlowRejection when its level refuses
   * it, when it waited `waitLimitMs`, or when its client goes away first: `whenGone` is asked to call its argument
   * then, and only for a request that has to wait, so that the common case (a seat free at once) sets up nothing.
   */
  admit(
    c: Classification,
    estimate: WorkEstimate,
    opts: { waitLimitMs: number; whenGone?: WhenGone; user: string; verb: string; path: string },
    watchers?: number,
  ): Promise<Grant> {
    const { level, labels } = c;
    const queueSet = level.queueSet;
    const seats = maxSeatsOf(estimate);
    this.metrics.estimated(labels, seats, watchers);
    const arrived = this.clock.monotonic();
    let dispatched = false;
    let dispatchedAt = arrived;
    let wake: (() => void) | undefined;
    const request: PendingRequest = {
      flowHash: flowHash(c.schema.metadata.name, c.distinguisher),
      estimate,
      schema: c.schema.metadata.name,
      distinguisher: c.distinguisher,
      arrivedAt: this.clock.now(),
      user: opts.user,
      verb: opts.verb,
      path: opts.path,
      onDispatch: () => {
        dispatched = true;
        dispatchedAt = this.clock.monotonic();
        level.dispatched++;
        this.metrics.dispatched(labels, (this.clock.monotonic() - arrived) / 1000);
        this.metrics.executing(labels, 1, seats);
        wake?.();
      },
    };
    const reason = queueSet.submit(request);
    this.noteDemand(level);
    if (reason) {
      level.rejected++;
      this.metrics.rejected(labels, reason);
      if (reason === 'concurrency-limit') this.metrics.noAccommodation(labels);
      return Promise.reject(new FlowRejection(reason));
    }
    const grant = this.grantFor(c, request, seats, () => dispatchedAt);
    if (dispatched) return Promise.resolve(grant);

    this.metrics.queued(labels, 1, seats, queueSet.waiting);
    return new Promise<Grant>((resolve, reject) => {
      const giveUp = (why: 'time-out' | 'cancelled'): void => {
        if (!queueSet.remove(request)) return;
        cleanup();
        this.noteDemand(level);
        if (why === 'time-out') level.timedOut++;
        else level.cancelled++;
        this.metrics.queued(labels, -1, seats, queueSet.waiting);
        this.metrics.gaveUp(labels, (this.clock.monotonic() - arrived) / 1000);
        this.metrics.rejected(labels, why);
        reject(new FlowRejection(why));
      };
      const cancelTimer = this.clock.setTimeout(() => giveUp('time-out'), opts.waitLimitMs);
      const forget = opts.whenGone?.(() => giveUp('cancelled'));
      const cleanup = (): void => {
        cancelTimer();
        forget?.();
      };
      wake = () => {
        cleanup();
        this.metrics.queued(labels, -1, seats, queueSet.waiting);
        resolve(grant);
      };
    });
  }

  private grantFor(c: Classification, request: PendingRequest, seats: number, dispatchedAt: () => number): Grant {
    const { level, labels } = c;
    let finished = false;
    return {
      finish: () => {
        if (finished) return;
        finished = true;
        level.queueSet.finishInitial(request);
        this.metrics.executing(labels, -1, seats);
        this.metrics.executed(labels, (this.clock.monotonic() - dispatchedAt()) / 1000);
        const { finalSeats, additionalLatencyMs } = request.estimate;
        if (finalSeats > 0)
          this.clock.setTimeout(() => {
            level.queueSet.finishFinal(request);
            this.noteDemand(level);
          }, additionalLatencyMs);
        this.noteDemand(level);
      },
    };
  }

  private noteDemand(level: Level): void {
    level.demand.set(level.queueSet.seatsInUse + level.queueSet.waitingSeats, this.clock.monotonic());
  }

  /** One adjustment: each level's demand over the period ends, and the current limits are shared out again. */
  adjust(): void {
    const now = this.clock.monotonic();
    const limits = new Map<string, LevelLimits>();
    const demand = new Map<string, number>();
    for (const [name, level] of this.levels) {
      level.demand.harvest(now);
      limits.set(name, level.limits);
      demand.set(name, level.demand.smoothed);
    }
    const result = apportion(this.serverConcurrencyLimit, limits, demand);
    this.fairFrac = result.fairFrac;
    this.metrics.fairFrac(result.fairFrac);
    for (const [name, level] of this.levels) {
      if (!level.settings.exempt) level.queueSet.reconfigure(level.settings.queuing, result.currentCL.get(name) ?? 0);
      this.publishLimits(name, result.target.get(name));
    }
  }

  /** Adjusts every period on the dispatcher's clock until the returned function is called. */
  startAdjusting(): () => void {
    let cancel = (): void => undefined;
    let stopped = false;
    const tick = (): void => {
      if (stopped) return;
      this.adjust();
      cancel = this.clock.setTimeout(tick, ADJUSTMENT_PERIOD_MS);
    };
    cancel = this.clock.setTimeout(tick, ADJUSTMENT_PERIOD_MS);
    return () => {
      stopped = true;
      cancel();
    };
  }

  /** The levels by name, in name order, for the debug dumps. */
  levelList(): [string, Level][] {
    return [...this.levels].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
