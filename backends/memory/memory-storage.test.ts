import { expect } from 'chai';
import { decodeContinue, encodeContinue } from '../continue-token.js';
import { isStorageError, StorageError, type StorageEvent } from '../storage.js';
import { describeStorageConformance } from '../testing/conformance.js';
import { createMemoryStorage } from './memory-storage.js';
import { resourcePrefixOf } from '../watch-cache-stats.js';

describeStorageConformance('memory', async (opts) => createMemoryStorage(opts));

function cm(name: string): { metadata: { name: string; namespace: string }; data: Record<string, string> } {
  return { metadata: { name, namespace: 'ns1' }, data: {} };
}

describe('memory storage', () => {
  it('ends a watcher that falls too far behind with Expired, without blocking writers', async () => {
    const s = createMemoryStorage({ watchBufferLimit: 5 });
    const controller = new AbortController();
    const iterator = s
      .watch('/r/', { revision: await s.currentRevision(), recursive: true }, controller.signal)
      [Symbol.asyncIterator]();
    for (let i = 0; i < 10; i++) await s.create(`/r/${i}`, cm(String(i)));
    // The fan-out runs after the writes were answered.
    await new Promise((resolve) => setImmediate(resolve));
    let caught: unknown;
    await iterator.next().catch((e: unknown) => (caught = e));
    expect(isStorageError(caught, 'Expired')).to.equal(true);
    expect(await s.count('/r/')).to.equal(10);
    await s.close();
  });

  it('ends a watch whose replay alone exceeds the buffer with Expired', async () => {
    const s = createMemoryStorage({ watchBufferLimit: 3 });
    const start = await s.currentRevision();
    for (let i = 0; i < 5; i++) await s.create(`/r/${i}`, cm(String(i)));
    let caught: unknown;
    await s
      .watch('/r/', { revision: start, recursive: true }, new AbortController().signal)
      [Symbol.asyncIterator]()
      .next()
      .catch((e: unknown) => (caught = e));
    expect(isStorageError(caught, 'Expired')).to.equal(true);
    await s.close();
  });

  it('drops the history of deleted keys once their deletion leaves the window', async () => {
    let now = 0;
    const s = createMemoryStorage({ historyWindowMs: 10, now: () => now });
    await s.create('/r/a', cm('a'));
    await s.delete('/r/a');
    now = 100;
    const compacted = await s.compactedRevision();
    expect(compacted).to.equal(await s.currentRevision());
    expect((await s.getList('/r/', { read: { match: 'exact', revision: compacted } })).items).to.deep.equal([]);
    const events: StorageEvent[] = [];
    const controller = new AbortController();
    const watch = (async () => {
      for await (const e of s.watch('/r/', { revision: compacted, recursive: true }, controller.signal)) {
        events.push(e);
        controller.abort();
      }
    })();
    const recreated = await s.create('/r/a', cm('a'));
    await watch;
    expect(events.map((e) => [e.type, e.revision])).to.deep.equal([
      ['ADDED', BigInt(recreated.metadata.resourceVersion!)],
    ]);
    await s.close();
  });

  it('fails a read waiting for a future revision with Unavailable when closed', async () => {
    const s = createMemoryStorage({ notOlderThanWaitMs: 10_000 });
    const pending = s.get('/r/a', { read: { match: 'notOlderThan', revision: 1000n } });
    await s.close();
    let caught: unknown;
    await pending.catch((e: unknown) => (caught = e));
    expect(isStorageError(caught, 'Unavailable')).to.equal(true);
  });
});

describe('memory storage watch-cache statistics', () => {
  it('files keys under their first three segments, the level of one resource, and shorter keys under their parent', () => {
    expect(resourcePrefixOf('/registry/core/configmaps/ns1/a')).to.equal('/registry/core/configmaps/');
    expect(resourcePrefixOf('/registry/core/nodes/n1')).to.equal('/registry/core/nodes/');
    expect(resourcePrefixOf('/registry/apps/replicasets/')).to.equal('/registry/apps/replicasets/');
    expect(resourcePrefixOf('/registry/configmaps/a')).to.equal('/registry/configmaps/');
    expect(resourcePrefixOf('/r/0')).to.equal('/r/');
  });

  it('follows the revision, counts each write received and each watcher the buffer bound ended, per resource', async () => {
    const s = createMemoryStorage({ watchBufferLimit: 2 });
    expect(s.watchCacheStats()).to.deep.equal({
      revision: await s.currentRevision(),
      initializations: 1,
      eventsReceived: new Map(),
      terminatedWatchers: new Map(),
    });
    const aborted = s
      .watch('/registry/core/pods/ns1/', { revision: await s.currentRevision(), recursive: true }, AbortSignal.abort())
      [Symbol.asyncIterator]();
    const slow = s
      .watch(
        '/registry/core/pods/',
        { revision: await s.currentRevision(), recursive: true },
        new AbortController().signal,
      )
      [Symbol.asyncIterator]();
    for (let i = 0; i < 3; i++) await s.create(`/registry/core/pods/ns1/p${i}`, cm(`p${i}`));
    const last = await s.create('/registry/apps/replicasets/ns1/r', cm('r'));
    await new Promise((resolve) => setImmediate(resolve));
    const stats = s.watchCacheStats();
    expect(stats.revision).to.equal(BigInt(last.metadata.resourceVersion!));
    expect(stats.eventsReceived).to.deep.equal(
      new Map([
        ['/registry/core/pods/', 3],
        ['/registry/apps/replicasets/', 1],
      ]),
    );
    // The aborted watch ended of its own accord: only the one that fell behind counts.
    expect(stats.terminatedWatchers).to.deep.equal(new Map([['/registry/core/pods/', 1]]));
    expect(isStorageError(await slow.next().catch((e: unknown) => e), 'Expired')).to.equal(true);
    await aborted.return?.();
    await s.close();
  });
});

describe('memory storage sharing', () => {
  it('hands out the stored objects themselves, deep-frozen, and one event object to every watcher', async () => {
    const s = createMemoryStorage();
    const start = await s.currentRevision();
    const controllers = [new AbortController(), new AbortController()];
    const iterators = controllers.map((c) =>
      s.watch('/r/', { revision: start, recursive: true }, c.signal)[Symbol.asyncIterator](),
    );
    const created = await s.create('/r/a', { ...cm('a'), data: { k: 'v' } });
    expect(Object.isFrozen(created) && Object.isFrozen(created.metadata) && Object.isFrozen(created.data)).to.equal(
      true,
    );
    expect(await s.get('/r/a')).to.equal(created);
    expect((await s.getList('/r/')).items[0]).to.equal(created);
    expect((await s.getList('/r/', { limit: 1 })).items[0]).to.equal(created);
    const [first, second] = await Promise.all(iterators.map(async (it) => (await it.next()).value as StorageEvent));
    expect(first).to.equal(second);
    expect(first.object).to.equal(created);
    expect(Object.isFrozen(first)).to.equal(true);
    for (const c of controllers) c.abort();
    await s.close();
  });

  it('pages a list from one snapshot per revision: later writes change neither items nor remainingItemCount', async () => {
    const s = createMemoryStorage();
    for (let i = 0; i < 5; i++) await s.create(`/r/${i}`, cm(String(i)));
    const first = await s.getList('/r/', { limit: 2 });
    await s.delete('/r/3');
    await s.create('/r/9', cm('9'));
    const second = await s.getList('/r/', { limit: 2, continue: first.continue });
    const third = await s.getList('/r/', { limit: 2, continue: second.continue });
    expect([first, second, third].map((p) => p.items.map((o) => o.metadata.name))).to.deep.equal([
      ['0', '1'],
      ['2', '3'],
      ['4'],
    ]);
    expect([first, second, third].map((p) => p.remainingItemCount)).to.deep.equal([3, 1, undefined]);
    expect(third.continue).to.equal(undefined);
    expect((await s.getList('/r/', { limit: 10 })).items.map((o) => o.metadata.name)).to.deep.equal([
      '0',
      '1',
      '2',
      '4',
      '9',
    ]);
    await s.close();
  });
});

describe('continue tokens', () => {
  it('round-trip the next key relative to the prefix and the revision, as unpadded base64url JSON', () => {
    const token = encodeContinue('/registry/pods/ns1/b\u0000', '/registry/pods/', 9007199254740993n);
    expect(token).to.match(/^[A-Za-z0-9_-]+$/);
    expect(Buffer.from(token, 'base64url').toString()).to.equal(
      '{"v":"meta.k8s.io/v1","rv":9007199254740993,"start":"ns1/b\\u0000"}',
    );
    const small = encodeContinue('/registry/pods/ns1/b\u0000', '/registry/pods/', 42n);
    expect(decodeContinue(small, '/registry/pods/')).to.deep.equal({
      start: '/registry/pods/ns1/b\u0000',
      revision: 42n,
    });
  });

  it('stay within the prefix they are decoded for', () => {
    const token = encodeContinue('/registry/pods/ns1/b', '/registry/pods/ns1/', 5n);
    expect(decodeContinue(token, '/registry/secrets/ns1/').start).to.equal('/registry/secrets/ns1/b');
  });

  it('are Expired below the oldest readable revision and invalid when malformed', () => {
    const token = encodeContinue('/p/a', '/p/', 5n);
    expect(decodeContinue(token, '/p/', 5n).revision).to.equal(5n);
    expect(() => decodeContinue(token, '/p/', 6n))
      .to.throw(StorageError)
      .with.property('code', 'Expired');
    expect(() => decodeContinue('e30', '/p/'))
      .to.throw(StorageError)
      .with.property('code', 'InvalidContinue');
    expect(() => encodeContinue('/q/a', '/p/', 5n))
      .to.throw(StorageError)
      .with.property('code', 'Internal');
  });
});
