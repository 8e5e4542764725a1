import { expect } from 'chai';
import { watchDurationMs } from '../../gateway/handlers/watch-timeout.js';
import { setLongTimeout } from '../../gateway/server/long-timeout.js';

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

  it('fires a delay beyond what a Node timer holds at its time, not at once, and can be cancelled', async () => {
    let fired = false;
    const cancel = setLongTimeout(() => { fired = true; }, 2_147_484_000);
    // Node fires an overlong timer after 1 ms: wait well past that.
    await new Promise<void>((resolve) => setTimeout(resolve, 50));
    cancel();
    expect(fired).to.equal(false);

    await new Promise<void>((resolve) => setLongTimeout(resolve, 10));
    let cancelledFired = false;
    setLongTimeout(() => { cancelledFired = true; }, 5)();
    await new Promise<void>((resolve) => setTimeout(resolve, 30));
    expect(cancelledFired).to.equal(false);
  });
});
