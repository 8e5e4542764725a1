// Batch mode's bounded buffer: while the receiver is slow, events past the buffer are dropped and reported instead
// of making requests wait, and closing sends what was kept. The throttle's waits follow a manual clock.
import { expect } from 'chai';
import { createBufferedBackend, type BatchSender } from '../../gateway/audit/buffered.js';
import { ManualClock } from '../helpers/manual-clock.js';

/** Resolves once `done` holds: the sends a test awaits run through a few promise steps, no timer. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise<void>((resolve) => setImmediate(resolve));
}

function slowSender() {
  const batches: string[][] = [];
  let release: () => void = () => {};
  let gate = new Promise<void>((resolve) => (release = resolve));
  const sender: BatchSender = {
    name: 'webhook',
    async send(lines) {
      await gate;
      batches.push(lines);
    },
    close: () => Promise.resolve(),
  };
  return {
    sender,
    batches,
    open: () => {
      release();
      gate = Promise.resolve();
    },
  };
}

describe('audit batch buffer', () => {
  it('drops what does not fit while a batch is out, and delivers the rest on close', async () => {
    const { sender, batches, open } = slowSender();
    const lost: { message: string; events: number }[] = [];
    const backend = createBufferedBackend(sender, { bufferSize: 2, maxSize: 1, maxWaitMs: 60_000 }, (e, events) =>
      lost.push({ message: e.message, events }),
    );
    // The first event leaves at once (a full batch of one) and waits at the receiver; two fit in the buffer.
    for (const line of ['a', 'b', 'c', 'd']) expect(backend.write(line, 'ResponseComplete')).to.equal(undefined);
    expect(lost).to.deep.equal([{ message: 'audit buffer queue blocked', events: 1 }]);
    open();
    await backend.close();
    expect(batches).to.deep.equal([['a'], ['b'], ['c']]);
  });

  it('sends a partial batch after max-wait and full batches at once', async () => {
    const { sender, batches, open } = slowSender();
    open();
    const backend = createBufferedBackend(sender, { bufferSize: 100, maxSize: 2, maxWaitMs: 5 }, () => {});
    void backend.write('a', 'ResponseComplete');
    void backend.write('b', 'ResponseComplete');
    void backend.write('c', 'ResponseComplete');
    // The lone third event goes out when its wait ends, before close is asked to send anything.
    await until(() => batches.length === 2);
    expect(batches).to.deep.equal([['a', 'b'], ['c']]);
    await backend.close();
  });
});

describe('audit batch throttle', () => {
  it("lets burst batches out at once, then one per 1/qps, refilling while quiet, as upstream's token bucket", async () => {
    const clock = new ManualClock();
    const { sender, batches, open } = slowSender();
    open();
    const settings = { bufferSize: 100, maxSize: 1, maxWaitMs: 0, throttle: { qps: 2, burst: 2 } };
    const backend = createBufferedBackend(sender, settings, () => {}, clock);
    for (const line of ['a', 'b', 'c', 'd']) void backend.write(line, 'ResponseComplete');
    // Two tokens: a and b go at once, c waits half a second for the next.
    let wait = await clock.timer();
    expect(batches).to.deep.equal([['a'], ['b']]);
    expect(wait.ms).to.equal(500);
    clock.advance(499);
    expect(batches).to.have.length(2);
    clock.advance(1);
    wait = await clock.timer();
    expect(batches).to.deep.equal([['a'], ['b'], ['c']]);
    expect(wait.ms).to.equal(500);
    clock.advance(500);
    await until(() => batches.length === 4);
    // A quiet spell refills the bucket up to the burst, no further: e and f at once, g waits again.
    clock.advance(60_000);
    for (const line of ['e', 'f', 'g']) void backend.write(line, 'ResponseComplete');
    wait = await clock.timer();
    expect(batches.slice(4)).to.deep.equal([['e'], ['f']]);
    expect(wait.ms).to.equal(500);
    // Closing does not wait out the throttle: g goes at once.
    await backend.close();
    expect(batches.slice(6)).to.deep.equal([['g']]);
  });

  it('splits batches at the truncation byte bound', async () => {
    const { sender, batches, open } = slowSender();
    open();
    const backend = createBufferedBackend(
      sender,
      { bufferSize: 100, maxSize: 10, maxWaitMs: 60_000, maxBatchBytes: 10 },
      () => {},
      new ManualClock(),
    );
    for (const line of ['aaaa', 'bbbb', 'cccc', 'dddddddddddd', 'e']) void backend.write(line, 'ResponseComplete');
    await backend.close();
    expect(batches).to.deep.equal([['aaaa', 'bbbb'], ['cccc'], ['dddddddddddd'], ['e']]);
  });
});
