// Batch mode's bounded buffer: while the receiver is slow, events past the buffer are dropped and reported instead
// of making requests wait, and closing sends what was kept.
import { expect } from 'chai';
import { createBufferedBackend, type BatchSender } from '../../gateway/audit/buffered.js';

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
    await new Promise<void>((resolve) => {
      const check = () => (batches.length === 2 ? resolve() : setImmediate(check));
      check();
    });
    expect(batches).to.deep.equal([['a', 'b'], ['c']]);
    await backend.close();
  });
});
