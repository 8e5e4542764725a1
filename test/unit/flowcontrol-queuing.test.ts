import { expect } from 'chai';
import { dealHand, flowHash } from '../../gateway/flowcontrol/shuffle-sharding.js';
import { QueueSet, type FlowRequest } from '../../gateway/flowcontrol/queue-set.js';
import { apportion, nominalLimits, SeatDemand } from '../../gateway/flowcontrol/seats.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { Dispatcher } from '../../gateway/flowcontrol/dispatcher.js';
import type { PriorityLevelObject } from '../../gateway/flowcontrol/types.js';

const ONE = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

describe('priority and fairness: shuffle sharding', () => {
  it('hashes flows as upstream does and deals the same hand for the same flow', () => {
    expect(flowHash('s', 'alice')).to.equal(flowHash('s', 'alice'));
    expect(flowHash('s', 'alice')).to.not.equal(flowHash('s', 'bob'));
    // The separator byte keeps ("ab", "c") and ("a", "bc") apart.
    expect(flowHash('ab', 'c')).to.not.equal(flowHash('a', 'bc'));
    expect(dealHand(flowHash('s', 'alice'), 64, 8)).to.deep.equal(dealHand(flowHash('s', 'alice'), 64, 8));
  });

  it('deals distinct cards from the whole deck, as digits of the hash in a falling radix', () => {
    // 7 = 3 + 4 * 1: the first digit (radix 4) is card 3, the second (radix 3) is 1, below 3 so not shifted.
    expect(dealHand(7n, 4, 2)).to.deep.equal([3, 1]);
    // 1 = 1 + 4 * 0: card 1, then digit 0 is card 0; 5 = 1 + 4 * 1: card 1, then digit 1 skips over card 1 to 2.
    expect(dealHand(1n, 4, 2)).to.deep.equal([1, 0]);
    expect(dealHand(5n, 4, 2)).to.deep.equal([1, 2]);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const hand = dealHand(flowHash('schema', `user-${i}`), 16, 6);
      expect(new Set(hand).size, `hand ${hand.join(',')}`).to.equal(6);
      for (const card of hand) {
        expect(card).to.be.within(0, 15);
        seen.add(card);
      }
    }
    expect(seen.size).to.equal(16);
    expect(dealHand(5n, 3, 8)).to.have.length(3);
  });
});

/** A request that records the order it was dispatched in. */
function recorder(order: string[]) {
  return (name: string, hash: bigint, estimate = ONE): FlowRequest => ({
    flowHash: hash,
    estimate,
    onDispatch: () => order.push(name),
  });
}

describe('priority and fairness: fair queuing', () => {
  it('dispatches at once while seats are free, then queues; Reject levels refuse instead', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    const make = recorder(order);
    const qs = new QueueSet(clock, { queues: 4, handSize: 2, queueLengthLimit: 2 }, 2);
    const a = make('a', 1n);
    const b = make('b', 1n);
    expect(qs.submit(a)).to.equal(undefined);
    expect(qs.submit(b)).to.equal(undefined);
    expect(order).to.deep.equal(['a', 'b']);
    expect(qs.submit(make('c', 1n))).to.equal(undefined);
    expect(qs.submit(make('d', 1n))).to.equal(undefined);
    expect(qs.waiting).to.equal(2);
    // The flow's hand is two queues; with both holding one waiting request... each queue holds at most 2.
    const extra = [make('e', 1n), make('f', 1n), make('g', 1n)].map((r) => qs.submit(r));
    expect(extra).to.deep.equal([undefined, undefined, 'queue-full']);
    qs.finishInitial(a);
    expect(order).to.deep.equal(['a', 'b', 'c']);

    const reject = new QueueSet(clock, undefined, 1);
    expect(reject.submit(make('r1', 1n))).to.equal(undefined);
    expect(reject.submit(make('r2', 1n))).to.equal('concurrency-limit');
  });

  it('serves two flows alternately whatever their arrival order, the one with less work done first', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    const byName = new Map<string, FlowRequest>();
    const make = (name: string, queue: number): FlowRequest => {
      // With a hand of one from two queues, the hash is the queue.
      const request = recorder(order)(name, BigInt(queue));
      byName.set(name, request);
      return request;
    };
    // One seat: every release lets exactly one request go.
    const qs = new QueueSet(clock, { queues: 2, handSize: 1, queueLengthLimit: 100 }, 1);
    qs.submit(make('blocker', 0));
    for (let i = 0; i < 6; i++) qs.submit(make(`flood-${i}`, 0));
    for (let i = 0; i < 3; i++) qs.submit(make(`polite-${i}`, 1));
    // Each request runs 10 ms, then the one executing finishes.
    for (let i = 0; i < 8; i++) {
      clock.advance(10);
      qs.finishInitial(byName.get(order[order.length - 1]) as FlowRequest);
    }
    expect(order).to.deep.equal([
      'blocker',
      'polite-0',
      'flood-0',
      'polite-1',
      'flood-1',
      'polite-2',
      'flood-2',
      'flood-3',
      'flood-4',
    ]);
  });

  it('charges a flow for wide and long requests: a queue that ran longer waits longer', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    const make = recorder(order);
    const qs = new QueueSet(clock, { queues: 2, handSize: 1, queueLengthLimit: 100 }, 2);
    const slow = make('slow', 0n);
    const quick = make('quick', 1n);
    qs.submit(slow);
    qs.submit(quick);
    for (let i = 0; i < 2; i++) qs.submit(make(`slow-next-${i}`, 0n));
    for (let i = 0; i < 2; i++) qs.submit(make(`quick-next-${i}`, 1n));
    clock.advance(1);
    qs.finishInitial(quick);
    clock.advance(99);
    qs.finishInitial(slow);
    // The quick flow's next went first, when its seat freed; then the slow flow, ahead by 99 ms of work, waits.
    expect(order.slice(0, 4)).to.deep.equal(['slow', 'quick', 'quick-next-0', 'quick-next-1']);
  });

  it('takes out a waiting request that gives up, and a wide request waits for enough seats', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    const make = recorder(order);
    const qs = new QueueSet(clock, { queues: 1, handSize: 1, queueLengthLimit: 10 }, 3);
    const a = make('a', 0n);
    qs.submit(a);
    const wide = make('wide', 0n, { initialSeats: 3, finalSeats: 0, additionalLatencyMs: 0 });
    qs.submit(wide);
    const after = make('after', 0n);
    qs.submit(after);
    // Two seats are free, but the head of the queue needs three: nothing overtakes it.
    expect(order).to.deep.equal(['a']);
    expect(qs.remove(after)).to.equal(true);
    expect(qs.remove(after)).to.equal(false);
    qs.finishInitial(a);
    expect(order).to.deep.equal(['a', 'wide']);
    expect(qs.seatsInUse).to.equal(3);
    expect(qs.remove(wide)).to.equal(false);
  });

  it('holds final seats after the handler until the final phase ends', () => {
    const clock = new ManualClock(0);
    const order: string[] = [];
    const make = recorder(order);
    const qs = new QueueSet(clock, undefined, 4);
    const write = make('write', 0n, { initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
    qs.submit(write);
    expect(qs.seatsInUse).to.equal(3);
    qs.finishInitial(write);
    expect(qs.seatsInUse).to.equal(3);
    expect(qs.submit(make('refused', 0n, { initialSeats: 2, finalSeats: 0, additionalLatencyMs: 0 }))).to.equal(
      'concurrency-limit',
    );
    qs.finishFinal(write);
    expect(qs.seatsInUse).to.equal(0);
  });
});

describe('priority and fairness: seats', () => {
  const level = (name: string, shares: number, more: object = {}) => ({
    name,
    exempt: false,
    nominalConcurrencyShares: shares,
    lendablePercent: 0,
    borrowingLimitPercent: undefined as number | undefined,
    ...more,
  });

  it('gives each level ceil(ServerCL * shares / sum of shares), exempt shares counted', () => {
    const limits = nominalLimits(600, [
      level('exempt', 0, { exempt: true }),
      level('catch-all', 5),
      level('global-default', 20),
      level('workload-low', 100, { lendablePercent: 90 }),
      level('tiny', 1, { borrowingLimitPercent: 100 }),
    ]);
    expect(limits.get('catch-all')?.nominalCL).to.equal(Math.ceil((600 * 5) / 126));
    expect(limits.get('workload-low')).to.deep.equal({ nominalCL: 477, lendableCL: 429, minCL: 48, maxCL: 477 + 600 });
    expect(limits.get('tiny')).to.deep.equal({ nominalCL: 5, lendableCL: 0, minCL: 5, maxCL: 10 });
    expect(limits.get('exempt')).to.deep.equal({ nominalCL: 0, lendableCL: 0, minCL: 0, maxCL: 0 });
    expect(nominalLimits(600, [level('zero', 0)]).get('zero')?.nominalCL).to.equal(0);
  });

  it('lends the idle seats of a level to a busy one, within the bounds, summing to the server limit', () => {
    const limits = nominalLimits(100, [
      level('busy', 50, { borrowingLimitPercent: 60 }),
      level('idle', 50, { lendablePercent: 80 }),
    ]);
    const { currentCL } = apportion(
      100,
      limits,
      new Map([
        ['busy', 500],
        ['idle', 0],
      ]),
    );
    // busy reaches its bound, 80 (50 + 60%); what is left goes to idle, which is above its 10 (50 - 80%) since
    // the seats add up to the server's limit whatever the demand.
    expect(currentCL.get('busy')).to.equal(80);
    expect(currentCL.get('idle')).to.equal(20);
    const even = apportion(
      100,
      limits,
      new Map([
        ['busy', 50],
        ['idle', 50],
      ]),
    );
    expect(even.currentCL.get('busy')).to.equal(50);
    expect(even.currentCL.get('idle')).to.equal(50);
  });

  it("smooths a level's seat demand: it rises to the envelope at once and decays slowly", () => {
    const demand = new SeatDemand(0);
    demand.set(10, 0);
    expect(demand.harvest(1000)).to.equal(10);
    expect(demand.average).to.equal(10);
    expect(demand.stdDev).to.equal(0);
    expect(demand.smoothed).to.equal(10);
    demand.set(0, 1000);
    demand.harvest(2000);
    expect(demand.average).to.equal(0);
    expect(demand.smoothed).to.be.closeTo(9.77, 1e-9);
    demand.set(4, 2000);
    demand.set(0, 2500);
    demand.harvest(3000);
    expect(demand.average).to.equal(2);
    expect(demand.stdDev).to.equal(2);
  });

  it('borrows every adjustment period, and keeps what it borrowed across a rewrite of the same objects', () => {
    const clock = new ManualClock(0);
    const dispatcher = new Dispatcher({ serverConcurrencyLimit: 105, clock });
    const limited = (name: string, lendablePercent: number): PriorityLevelObject => ({
      metadata: { name },
      spec: {
        type: 'Limited',
        limited: { nominalConcurrencyShares: 50, lendablePercent, limitResponse: { type: 'Reject' } },
      },
    });
    const levels = [limited('keeps', 0), limited('lends', 100)];
    dispatcher.configure([], levels);
    const limitOf = (name: string) => dispatcher.levelList().find(([n]) => n === name)?.[1].queueSet.concurrencyLimit;
    // 105 seats over 50 + 50 + catch-all's 5 shares: 50 nominal each.
    expect(limitOf('keeps')).to.equal(50);
    const stop = dispatcher.startAdjusting();
    clock.advance(10_000);
    // Nobody asks for seats: the lender keeps none, and what it lends goes to the others, up to the server's 105.
    expect(limitOf('lends')).to.equal(0);
    const borrowed = limitOf('keeps') ?? 0;
    expect(borrowed).to.be.above(50);
    dispatcher.configure(
      [],
      levels.map((l) => structuredClone(l)),
    );
    expect(limitOf('keeps')).to.equal(borrowed);
    stop();
    expect(clock.pending()).to.have.length(0);
  });
});
