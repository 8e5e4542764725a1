// One Limited priority level's queues and seats, after upstream's fairqueuing/queueset. A request either starts at
// once (seats free and nothing queued ahead of it), waits in the least loaded queue of its flow's hand, or is
// refused (queue full, or no queues at all: limitResponse Reject). Queues are served by fair queuing on virtual
// time: the level's virtual clock R advances, per active queue, at the rate the seats are shared among them, each
// queue's next dispatch is stamped in R, and freed seats go to the queue whose stamp is the smallest. A dispatched
// request advances its queue's stamp by its estimated work, corrected by its real duration when it finishes, so a
// flow that sends slow or wide requests waits longer behind the others.
import type { Clock } from '../server/clock.js';
import { dealHand } from './shuffle-sharding.js';
import { maxSeatsOf, type WorkEstimate } from './work-estimate.js';

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface QueuingConfig {
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

// upstream's estimated service duration of an initial phase: the unit of work a request is charged on dispatch.
const ESTIMATED_SERVICE_MS = 3;

export interface FlowRequest {
  readonly flowHash: bigint;
  readonly estimate: WorkEstimate;
  /** Called once, when the request is given its seats. */
  readonly onDispatch: () => void;
}

interface Queue<R extends FlowRequest> {
  readonly index: number;
  readonly waiting: Entry<R>[];
  executing: number;
  seatsInUse: number;
  /** Virtual time (seat-milliseconds) at which this queue's next request is due. */
  nextDispatchR: number;
}

interface Entry<R extends FlowRequest> {
  readonly request: R;
  queue: Queue<R> | undefined;
  dispatchedAt: number | undefined;
}

export interface QueueState {
  index: number;
  waiting: number;
  executing: number;
  seatsInUse: number;
  nextDispatchR: number;
}

export class QueueSet<R extends FlowRequest = FlowRequest> {
  private queues: Queue<R>[] = [];
  private config: QueuingConfig | undefined;
  private limit: number;
  private readonly entries = new Map<R, Entry<R>>();
  private currentR = 0;
  private lastSync: number;
  private robinIndex = -1;
  seatsInUse = 0;
  executing = 0;
  waiting = 0;
  waitingSeats = 0;

  constructor(
    private readonly clock: Clock,
    config: QueuingConfig | undefined,
    concurrencyLimit: number,
  ) {
    this.lastSync = clock.monotonic();
    this.limit = concurrencyLimit;
    this.setConfig(config);
  }

  get concurrencyLimit(): number {
    return this.limit;
  }

  get virtualTime(): number {
    return this.currentR;
  }

  /** A new configuration or limit; requests already waiting are dealt again into the new queues. */
  reconfigure(config: QueuingConfig | undefined, concurrencyLimit: number): void {
    this.sync();
    this.limit = concurrencyLimit;
    const sameQueues =
      config && this.config && config.queues === this.config.queues && config.handSize === this.config.handSize;
    if (!sameQueues) {
      const waiting = this.queues.flatMap((q) => q.waiting);
      this.setConfig(config);
      for (const entry of waiting) {
        entry.queue = undefined;
        this.waiting--;
        this.waitingSeats -= maxSeatsOf(entry.request.estimate);
        if (this.config) this.enqueue(entry);
        else this.dispatch(entry);
      }
    } else {
      this.config = config;
    }
    this.dispatchAsMuchAsPossible();
  }

  private setConfig(config: QueuingConfig | undefined): void {
    this.config = config;
    this.queues = Array.from({ length: config?.queues ?? 0 }, (_, index) => ({
      index,
      waiting: [],
      executing: 0,
      seatsInUse: 0,
      nextDispatchR: this.currentR,
    }));
    this.robinIndex = -1;
  }

  /** Takes the request (dispatched now or queued) or answers why it is refused. */
  submit(request: R): RejectReason | undefined {
    this.sync();
    const entry: Entry<R> = { request, queue: undefined, dispatchedAt: undefined };
    if (!this.config) {
      if (!this.canAccommodate(maxSeatsOf(request.estimate))) return 'concurrency-limit';
      this.entries.set(request, entry);
      this.dispatch(entry);
      return undefined;
    }
    const queue = this.chooseQueue(request.flowHash);
    if (queue.waiting.length >= this.config.queueLengthLimit) return 'queue-full';
    this.entries.set(request, entry);
    this.enqueue(entry, queue);
    this.dispatchAsMuchAsPossible();
    return undefined;
  }

  /** The hand's least loaded queue: seats waiting plus seats in use, the first dealt on a tie. */
  private chooseQueue(hash: bigint): Queue<R> {
    const config = this.config as QueuingConfig;
    let best: Queue<R> | undefined;
    let bestLoad = Infinity;
    for (const index of dealHand(hash, config.queues, config.handSize)) {
      const queue = this.queues[index];
      const load = queue.seatsInUse + queue.waiting.reduce((sum, e) => sum + e.request.estimate.initialSeats, 0);
      if (load < bestLoad) {
        best = queue;
        bestLoad = load;
      }
    }
    return best as Queue<R>;
  }

  private enqueue(entry: Entry<R>, queue = this.chooseQueue(entry.request.flowHash)): void {
    // A queue waking from idle starts at the present virtual time: idleness earns no credit.
    if (queue.waiting.length === 0 && queue.executing === 0) queue.nextDispatchR = this.currentR;
    queue.waiting.push(entry);
    entry.queue = queue;
    this.waiting++;
    this.waitingSeats += maxSeatsOf(entry.request.estimate);
  }

  /** Takes a waiting request out (its wait timed out or its client left); false if it was not waiting. */
  remove(request: R): boolean {
    const entry = this.entries.get(request);
    if (!entry || entry.dispatchedAt !== undefined || !entry.queue) return false;
    this.sync();
    const at = entry.queue.waiting.indexOf(entry);
    if (at >= 0) entry.queue.waiting.splice(at, 1);
    this.entries.delete(request);
    this.waiting--;
    this.waitingSeats -= maxSeatsOf(request.estimate);
    this.dispatchAsMuchAsPossible();
    return true;
  }

  /** The request's handler is done: its initial seats go back, its final ones stay (see finishFinal). */
  finishInitial(request: R): void {
    const entry = this.entries.get(request);
    if (entry?.dispatchedAt === undefined) return;
    this.sync();
    const { estimate } = request;
    const actualMs = this.clock.monotonic() - entry.dispatchedAt;
    const queue = entry.queue;
    if (queue) {
      // Charged the estimate at dispatch; now the real duration.
      queue.nextDispatchR += estimate.initialSeats * (actualMs - ESTIMATED_SERVICE_MS);
      queue.executing--;
    }
    this.executing--;
    this.release(entry, maxSeatsOf(estimate) - estimate.finalSeats);
    if (estimate.finalSeats === 0) this.entries.delete(request);
    this.dispatchAsMuchAsPossible();
  }

  /** The final phase (the watch fan-out of a write) is over. */
  finishFinal(request: R): void {
    const entry = this.entries.get(request);
    if (!entry) return;
    this.sync();
    this.entries.delete(request);
    this.release(entry, request.estimate.finalSeats);
    this.dispatchAsMuchAsPossible();
  }

  private release(entry: Entry<R>, seats: number): void {
    this.seatsInUse -= seats;
    if (entry.queue) entry.queue.seatsInUse -= seats;
  }

  private canAccommodate(seats: number): boolean {
    // A request wider than the whole limit still runs, alone, rather than never.
    return this.seatsInUse + seats <= this.limit || this.seatsInUse === 0;
  }

  private dispatch(entry: Entry<R>): void {
    const { estimate } = entry.request;
    const seats = maxSeatsOf(estimate);
    entry.dispatchedAt = this.clock.monotonic();
    this.seatsInUse += seats;
    this.executing++;
    const queue = entry.queue;
    if (queue) {
      queue.seatsInUse += seats;
      queue.executing++;
      queue.nextDispatchR +=
        estimate.initialSeats * ESTIMATED_SERVICE_MS + estimate.finalSeats * estimate.additionalLatencyMs;
    }
    entry.request.onDispatch();
  }

  private dispatchAsMuchAsPossible(): void {
    for (;;) {
      const queue = this.nextQueue();
      if (!queue) return;
      const head = queue.waiting[0];
      // The fairest queue's head waits for seats rather than being overtaken: overtaking would starve wide requests.
      if (!this.canAccommodate(maxSeatsOf(head.request.estimate))) return;
      queue.waiting.shift();
      this.waiting--;
      this.waitingSeats -= maxSeatsOf(head.request.estimate);
      this.robinIndex = queue.index;
      this.dispatch(head);
    }
  }

  /** The non-empty queue with the smallest next dispatch time; ties go round-robin from the last one served. */
  private nextQueue(): Queue<R> | undefined {
    let best: Queue<R> | undefined;
    const n = this.queues.length;
    for (let step = 1; step <= n; step++) {
      const queue = this.queues[(this.robinIndex + step + n) % n];
      if (queue.waiting.length === 0) continue;
      if (!best || queue.nextDispatchR < best.nextDispatchR) best = queue;
    }
    return best;
  }

  /** Advances the virtual clock to now: min(seats asked, limit) shared among the active queues. */
  private sync(): void {
    const now = this.clock.monotonic();
    const elapsed = now - this.lastSync;
    this.lastSync = now;
    if (elapsed <= 0) return;
    let active = 0;
    for (const queue of this.queues) if (queue.waiting.length > 0 || queue.executing > 0) active++;
    if (active === 0) return;
    this.currentR += (elapsed * Math.min(this.seatsInUse + this.waitingSeats, this.limit)) / active;
  }

  queueStates(): QueueState[] {
    return this.queues.map((q) => ({
      index: q.index,
      waiting: q.waiting.length,
      executing: q.executing,
      seatsInUse: q.seatsInUse,
      nextDispatchR: q.nextDispatchR,
    }));
  }

  /** Waiting requests with their queue and place, for the debug dump. */
  waitingRequests(): { request: R; queue: number; position: number }[] {
    return this.queues.flatMap((q) =>
      q.waiting.map((e, position) => ({ request: e.request, queue: q.index, position })),
    );
  }
}
