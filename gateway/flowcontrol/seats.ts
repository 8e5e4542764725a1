// The server's seats and how they are shared among priority levels, after upstream's apf_controller.go. Each level
// gets a nominal share of the server's concurrency limit; it may lend part of it (lendablePercent) and borrow up to
// borrowingLimitPercent more. Every adjustment period the current limits are set again from each level's recent
// seat demand, by one fair fraction that makes them add up to the server's limit.

export interface LevelShares {
  name: string;
  exempt: boolean;
  nominalConcurrencyShares: number;
  lendablePercent: number;
  /** undefined: borrowing is bounded only by the server's limit. */
  borrowingLimitPercent: number | undefined;
}

export interface LevelLimits {
  nominalCL: number;
  lendableCL: number;
  /** The least the level keeps: nominal minus lendable. */
  minCL: number;
  /** The most it may reach by borrowing. */
  maxCL: number;
}

/** upstream: NominalCL = ceil(ServerCL * shares / sum of every level's shares, the exempt ones' included). */
export function nominalLimits(serverCL: number, levels: readonly LevelShares[]): Map<string, LevelLimits> {
  const sum = levels.reduce((total, level) => total + level.nominalConcurrencyShares, 0);
  const limits = new Map<string, LevelLimits>();
  for (const level of levels) {
    const nominalCL = sum === 0 ? 0 : Math.ceil((serverCL * level.nominalConcurrencyShares) / sum);
    const lendableCL = Math.round((nominalCL * level.lendablePercent) / 100);
    const borrowingCL = level.exempt
      ? 0
      : level.borrowingLimitPercent === undefined
        ? serverCL
        : Math.round((nominalCL * level.borrowingLimitPercent) / 100);
    limits.set(level.name, { nominalCL, lendableCL, minCL: nominalCL - lendableCL, maxCL: nominalCL + borrowingCL });
  }
  return limits;
}

export interface Apportioned {
  /** The fair fraction found (apiserver_flowcontrol_seat_fair_frac). */
  fairFrac: number;
  /** name → the level's current limit. */
  currentCL: Map<string, number>;
  /** name → the target that went into the allocation. */
  target: Map<string, number>;
}

const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

/**
 * Each level's target is its smoothed seat demand, between what it keeps (minCL) and its nominal limit; the current
 * limits are clamp(fairFrac * target, minCL, maxCL) with the one fairFrac that makes them sum to the server's limit
 * (found by bisection, as upstream's computeConcurrencyAllocation does in closed form). When even every level at its
 * maximum cannot use the server's seats, each simply gets its maximum.
 */
export function apportion(
  serverCL: number,
  limits: ReadonlyMap<string, LevelLimits>,
  smoothedDemand: ReadonlyMap<string, number>,
): Apportioned {
  const target = new Map<string, number>();
  for (const [name, l] of limits)
    target.set(name, Math.max(l.minCL, Math.min(l.nominalCL, smoothedDemand.get(name) ?? 0)));
  const allocate = (frac: number): number => {
    let sum = 0;
    for (const [name, l] of limits) sum += clamp(frac * (target.get(name) ?? 0), l.minCL, l.maxCL);
    return sum;
  };
  let low = 0;
  let high = 1;
  // Grown until it reaches the server's limit, or stops growing (every level at its maximum).
  while (allocate(high) < serverCL && high < 1e9) high *= 2;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (allocate(mid) < serverCL) low = mid;
    else high = mid;
  }
  const currentCL = new Map<string, number>();
  for (const [name, l] of limits)
    currentCL.set(name, Math.round(clamp(high * (target.get(name) ?? 0), l.minCL, l.maxCL)));
  return { fairFrac: high, currentCL, target };
}

// upstream's smoothing of the demand envelope: it rises at once and decays by this factor each period.
const SMOOTHING_COEFFICIENT = 0.977;

/**
 * A level's seat demand (seats of its waiting and executing requests) over one adjustment period: the time-weighted
 * average and standard deviation and the high watermark, harvested into upstream's smoothed envelope.
 */
export class SeatDemand {
  private value = 0;
  private since: number;
  private periodStart: number;
  private weighted = 0;
  private weightedSquares = 0;
  highWatermark = 0;
  smoothed = 0;
  average = 0;
  stdDev = 0;

  constructor(now: number) {
    this.since = now;
    this.periodStart = now;
  }

  set(value: number, now: number): void {
    this.accumulate(now);
    this.value = value;
    this.highWatermark = Math.max(this.highWatermark, value);
  }

  private accumulate(now: number): void {
    const elapsed = now - this.since;
    this.weighted += this.value * elapsed;
    this.weightedSquares += this.value * this.value * elapsed;
    this.since = now;
  }

  /** Ends the period: average, deviation and the smoothed envelope (average + deviation) are updated. */
  harvest(now: number): number {
    this.accumulate(now);
    const span = now - this.periodStart;
    this.average = span > 0 ? this.weighted / span : this.value;
    this.stdDev = span > 0 ? Math.sqrt(Math.max(0, this.weightedSquares / span - this.average ** 2)) : 0;
    const envelope = this.average + this.stdDev;
    this.smoothed = Math.max(envelope, SMOOTHING_COEFFICIENT * this.smoothed + (1 - SMOOTHING_COEFFICIENT) * envelope);
    this.periodStart = now;
    this.weighted = 0;
    this.weightedSquares = 0;
    const high = this.highWatermark;
    this.highWatermark = this.value;
    return high;
  }
}
