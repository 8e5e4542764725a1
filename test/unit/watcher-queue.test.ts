// The one watcher queue every backend's fan-out uses (backends/watcher-queue.ts): its consumer side must behave as the
// async generator it replaced, whether items wait for the consumer or the consumer waits for items.
import { expect } from 'chai';
import { createWatcherQueue, type WatcherQueue } from '../../backends/watcher-queue.js';
import { StorageError, type StorageEvent } from '../../backends/storage.js';
import { watchOpenedOnFirstStep } from '../../backends/storage-support.js';
import { rejection } from '../helpers/assertions.js';

interface Item {
  revision: number;
  bad?: boolean;
}

function toEvent(item: Item): StorageEvent {
  if (item.bad) throw new Error(`cannot build event ${item.revision}`);
  return {
    type: 'ADDED',
    key: `/k/${item.revision}`,
    revision: BigInt(item.revision),
    object: { metadata: { name: `n${item.revision}` } },
  };
}

function setup(bufferLimit = 100): {
  queue: WatcherQueue<Item>;
  ended: () => number;
  it: AsyncIterableIterator<StorageEvent>;
} {
  let ends = 0;
  const queue = createWatcherQueue<Item>({ key: '/k/', bufferLimit, onEnd: () => ends++ });
  return { queue, ended: () => ends, it: queue.iterate(toEvent) };
}

const revisionOf = (step: IteratorResult<StorageEvent>) => (step.done ? 'done' : Number(step.value.revision));

describe('watcher queue', () => {
  it('hands items queued before the consumer asks, in order', async () => {
    const { queue, it } = setup();
    queue.push({ revision: 1 });
    queue.push({ revision: 2 });
    expect(queue.idle).to.equal(false);
    expect(revisionOf(await it.next())).to.equal(1);
    expect(revisionOf(await it.next())).to.equal(2);
    expect(queue.idle).to.equal(true);
  });

  it('hands an item straight to a consumer that is waiting', async () => {
    const { queue, it } = setup();
    const pending = it.next();
    queue.push({ revision: 7 });
    expect(queue.idle).to.equal(true);
    expect(revisionOf(await pending)).to.equal(7);
  });

  it('answers overlapping next() calls in queue order, as a generator does', async () => {
    const { queue, it } = setup();
    const first = it.next();
    const second = it.next();
    const third = it.next();
    queue.push({ revision: 1 });
    queue.push({ revision: 2 });
    queue.push({ revision: 3 });
    expect([revisionOf(await first), revisionOf(await second), revisionOf(await third)]).to.deep.equal([1, 2, 3]);
  });

  it('turns bookmarks into BOOKMARK events between the others', async () => {
    const { queue, it } = setup();
    queue.push({ revision: 1 });
    queue.push({ bookmark: 5n });
    await it.next();
    const step = await it.next();
    expect(step.done).to.equal(false);
    expect(step.value).to.include({ type: 'BOOKMARK', revision: 5n });
  });

  it('ends a waiting consumer normally: done, and onEnd runs once', async () => {
    const { queue, it, ended } = setup();
    const pending = it.next();
    queue.end();
    queue.end();
    expect((await pending).done).to.equal(true);
    expect((await it.next()).done).to.equal(true);
    expect(ended()).to.equal(1);
  });

  it('throws an end error once to the consumer, then is done; queued items are dropped', async () => {
    const { queue, it } = setup();
    queue.push({ revision: 1 });
    queue.end(new StorageError('Unavailable', 'gone', '/k/'));
    const thrown = await rejection(it.next());
    expect((thrown as StorageError).code).to.equal('Unavailable');
    expect((await it.next()).done).to.equal(true);
  });

  it('rejects a waiting consumer with the end error', async () => {
    const { queue, it } = setup();
    const pending = it.next();
    queue.end(new StorageError('Expired', 'too old', '/k/'));
    const thrown = await rejection(pending);
    expect((thrown as StorageError).code).to.equal('Expired');
  });

  it('ends with Expired once more than the bound is buffered', async () => {
    const { queue, it, ended } = setup(2);
    queue.push({ revision: 1 });
    queue.push({ revision: 2 });
    queue.push({ revision: 3 });
    expect(queue.done).to.equal(true);
    expect(ended()).to.equal(1);
    const thrown = await rejection(it.next());
    expect((thrown as StorageError).code).to.equal('Expired');
    expect((thrown as StorageError).message).to.contain('more than 2 events buffered');
  });

  it('ends when the consumer breaks out of for-await', async () => {
    const { queue, it, ended } = setup();
    queue.push({ revision: 1 });
    queue.push({ revision: 2 });
    for await (const ev of it) {
      expect(Number(ev.revision)).to.equal(1);
      break;
    }
    expect(queue.done).to.equal(true);
    expect(ended()).to.equal(1);
    queue.push({ revision: 3 });
    expect((await it.next()).done).to.equal(true);
  });

  it('ends the stream when an event cannot be built, whether queued or handed over', async () => {
    const queued = setup();
    queued.queue.push({ revision: 1, bad: true });
    const thrown = await rejection(queued.it.next());
    expect(thrown.message).to.equal('cannot build event 1');
    expect(queued.queue.done).to.equal(true);

    const waiting = setup();
    const pending = waiting.it.next();
    waiting.queue.push({ revision: 2, bad: true });
    const thrownAgain = await rejection(pending);
    expect(thrownAgain.message).to.equal('cannot build event 2');
    expect(waiting.queue.done).to.equal(true);
    expect(waiting.ended()).to.equal(1);
  });
});

describe('a watch opened on its first step', () => {
  it('opens nothing until asked, then hands every step to the opened iterator', async () => {
    let opened = 0;
    const { queue, it: inner } = setup();
    const watch = watchOpenedOnFirstStep(async () => {
      opened++;
      return inner;
    });
    expect(opened).to.equal(0);
    queue.push({ revision: 1 });
    const first = await watch.next();
    queue.push({ revision: 2 });
    expect([revisionOf(first), revisionOf(await watch.next())]).to.deep.equal([1, 2]);
    expect(opened).to.equal(1);
  });

  it('surfaces a failed opening from the first step, then is done', async () => {
    const watch = watchOpenedOnFirstStep(async () => {
      throw new StorageError('Unavailable', 'database down', '/k/');
    });
    const thrown = await rejection(watch.next());
    expect((thrown as StorageError).code).to.equal('Unavailable');
    expect((await watch.next()).done).to.equal(true);
  });

  it('is done at once when the opening finds nothing to watch', async () => {
    const watch = watchOpenedOnFirstStep(async () => undefined);
    expect((await watch.next()).done).to.equal(true);
  });

  it('ends the opened iterator when the consumer lets go, also while it was still opening', async () => {
    const opened = setup();
    const watch = watchOpenedOnFirstStep(async () => opened.it);
    opened.queue.push({ revision: 1 });
    await watch.next();
    await watch.return!();
    expect(opened.queue.done).to.equal(true);

    const late = setup();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = watchOpenedOnFirstStep(async () => {
      await gate;
      return late.it;
    });
    const pending = slow.next();
    await slow.return!();
    release();
    expect((await pending).done).to.equal(true);
    expect(late.queue.done).to.equal(true);
  });
});
