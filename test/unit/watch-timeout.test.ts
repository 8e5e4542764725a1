import { expect } from 'chai';
import { watchDurationMs } from '../../gateway/handlers/watch-timeout.js';
import { MAX_TIMER_MS, setLongTimeout, type TimerHost } from '../../gateway/server/long-timeout.js';

describe('watch timeout', () => {
  it('is the requested timeoutSeconds, uncapped', () => {
    expect(watchDurationMs(5, 1800)).to.equal(5000);
    expect(watchDurationMs(2147484, 1800)).to.equal(2_147_484_000);
    expect(watchDurationMs(9_000_000_000, 1800)).to.equal(9e12);
  });

  it('unset or 0 is a random time in [min, 2·min) of --min-request-timeout, and never when that is 0 too', () => {
    for (const timeoutSeconds of [undefined, 0]) {
      expect(watchDurationMs(timeoutSeconds, 1800, () => 0)).to.equal(1_800_000);
      expect(watchDurationMs(timeoutSeconds, 1800, () => 0.5)).to.equal(2_700_000);
      expect(watchDurationMs(timeoutSeconds, 1, () => 0.999)).to.be.within(1000, 2000);
      expect(watchDurationMs(timeoutSeconds, 0)).to.equal(Infinity);
    }
  });

  /** Timers the test fires by hand, recording every delay asked of them. */
  function fakeTimers() {
    let time = 0;
    const armed = new Map<object, { fire: () => void; due: number }>();
    const asked: number[] = [];
    const host: TimerHost = {
      setTimeout(fire, ms) {
        asked.push(ms);
        const handle = { unref: () => handle };
        armed.set(handle, { fire, due: time + ms });
        return handle;
      },
      clearTimeout(handle) {
        if (handle) armed.delete(handle);
      },
      now: () => time,
    };
    /** Moves time to `to`, firing what falls due on the way as Node would. */
    const runUntil = (to: number): void => {
      for (;;) {
        const next = [...armed].filter(([, t]) => t.due <= to).sort(([, a], [, b]) => a.due - b.due)[0];
        if (!next) break;
        armed.delete(next[0]);
        time = next[1].due;
        next[1].fire();
      }
      time = to;
    };
    return { host, asked, runUntil, pending: () => armed.size };
  }

  it('fires a delay beyond what a Node timer holds at its time, asking Node for no timer longer than it keeps', () => {
    const timers = fakeTimers();
    let firedAt: number | undefined;
    const delay = 2 * MAX_TIMER_MS + 5;
    setLongTimeout(
      () => {
        firedAt = timers.host.now();
      },
      delay,
      timers.host,
    );
    // Node fires a timer longer than MAX_TIMER_MS after 1 ms: every link of the chain must stay within it.
    expect(timers.asked).to.deep.equal([MAX_TIMER_MS]);
    timers.runUntil(delay - 1);
    expect(firedAt).to.equal(undefined);
    timers.runUntil(delay);
    expect(firedAt).to.equal(delay);
    expect(timers.asked).to.deep.equal([MAX_TIMER_MS, MAX_TIMER_MS, 5]);
    expect(Math.max(...timers.asked)).to.be.at.most(MAX_TIMER_MS);
  });

  it('can be cancelled before it fires, at any link of its chain, and never arms for Infinity', () => {
    const timers = fakeTimers();
    let fired = false;
    const cancel = setLongTimeout(
      () => {
        fired = true;
      },
      3 * MAX_TIMER_MS,
      timers.host,
    );
    timers.runUntil(MAX_TIMER_MS + 1);
    expect(timers.pending()).to.equal(1);
    cancel();
    expect(timers.pending()).to.equal(0);
    timers.runUntil(4 * MAX_TIMER_MS);
    expect(fired).to.equal(false);

    setLongTimeout(
      () => {
        fired = true;
      },
      Infinity,
      timers.host,
    );
    expect(timers.pending()).to.equal(0);
  });

  it('runs on the real timers by default, and a cancelled one stays silent', async () => {
    let cancelledFired = false;
    setLongTimeout(() => {
      cancelledFired = true;
    }, 0)();
    // A timer of 0 armed after the cancelled one fires after it would have.
    await new Promise<void>((resolve) => setLongTimeout(resolve, 0));
    expect(cancelledFired).to.equal(false);
  });
});
