// The live half of both watch hubs (backends/deferred-fan-out.ts): writes reach the watchers on the next turn of the
// event loop, each watcher once, and the published mark never runs ahead of what the watchers were handed.
import { expect } from 'chai';
import { createDeferredFanOut, type FanOutWatcher } from '../../backends/deferred-fan-out.js';
import { createWatcherQueue } from '../../backends/watcher-queue.js';

interface Row {
  revision: bigint;
  key: string;
}

const row = (revision: number, key = '/r/a'): Row => ({ revision: BigInt(revision), key });
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function watcher(position: number, key = '/r/'): FanOutWatcher<Row> & { received: bigint[] } {
  const received: bigint[] = [];
  const queue = createWatcherQueue<Row>({ key, bufferLimit: 100, onEnd: () => undefined });
  const w = { request: { key, recursive: true }, queue, position: BigInt(position), received };
  // Drain the queue as a consumer would, recording each revision it hands out.
  const events = queue.iterate((r) => ({ type: 'ADDED', key: r.key, revision: r.revision }));
  void (async () => {
    for await (const event of events) received.push(event.revision);
  })();
  return w;
}

describe('deferred fan-out', () => {
  it('hands writes over on the next turn of the event loop, and marks them published only then', async () => {
    const w = watcher(3);
    const fanOut = createDeferredFanOut<Row>([w]);
    fanOut.publish([row(4), row(5)]);
    expect(fanOut.publishedUpTo(5n)).to.equal(3n);
    for (let i = 0; i < 20; i++) await Promise.resolve();
    expect(w.received).to.deep.equal([]);
    await nextTurn();
    await nextTurn();
    expect(w.received).to.deep.equal([4n, 5n]);
    expect(fanOut.publishedUpTo(5n)).to.equal(5n);
  });

  it('skips what a watcher already has, and what its selector does not match, moving its position past both', async () => {
    const caughtUp = watcher(5);
    const behind = watcher(3);
    const elsewhere = watcher(3, '/other/');
    const fanOut = createDeferredFanOut<Row>([caughtUp, behind, elsewhere]);
    fanOut.publish([row(4), row(5), row(6)]);
    await nextTurn();
    await nextTurn();
    expect(caughtUp.received).to.deep.equal([6n]);
    expect(behind.received).to.deep.equal([4n, 5n, 6n]);
    expect(elsewhere.received).to.deep.equal([]);
    expect([caughtUp.position, behind.position, elsewhere.position]).to.deep.equal([6n, 6n, 6n]);
  });

  it('drops what is pending on clear', async () => {
    const w = watcher(1);
    const fanOut = createDeferredFanOut<Row>([w]);
    fanOut.publish([row(2)]);
    fanOut.clear();
    await nextTurn();
    await nextTurn();
    expect(w.received).to.deep.equal([]);
    expect(fanOut.publishedUpTo(2n)).to.equal(2n);
  });
});
