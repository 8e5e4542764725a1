// Conformance: watch (replay from a revision, key vs prefix, ordering under concurrency, abort, bookmarks) and the
// store's lifecycle (close ends watches, then everything answers Unavailable).
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { StorageError, type Storage, type StorageEvent } from '../storage.js';
import {
  configMap,
  dataOf,
  DEADLINE_MS,
  expectCode,
  key,
  PREFIX,
  rv,
  tryMutate,
  within,
  type Harness,
} from './conformance-harness.js';

const summary = (e: StorageEvent): string => `${e.type} ${e.key}`;

export function describeWatchConformance(h: Harness): void {
  let s: Storage;
  beforeEach(async () => {
    s = await h.storage();
  });

  describe('watch', () => {
    it('from a revision delivers exactly the later events, in order, with prevObject', async () => {
      const a1 = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const a2 = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
      const b = await s.create(key('ns1', 'b'), configMap('b'));
      const gone = await s.delete(key('ns1', 'a'));
      const w = h.watch(s, `${PREFIX}ns1/`, { revision: rv(a1), recursive: true });
      const [modified, added, deleted] = await w.take(3);

      expect(modified).to.deep.include({ type: 'MODIFIED', key: key('ns1', 'a'), revision: rv(a2) });
      expect(modified.object).to.deep.equal(a2);
      expect(modified.prevObject).to.deep.equal(a1);
      expect(added).to.deep.include({ type: 'ADDED', key: key('ns1', 'b'), revision: rv(b) });
      expect(added.object).to.deep.equal(b);
      expect(deleted).to.deep.include({ type: 'DELETED', key: key('ns1', 'a'), revision: rv(gone) });
      expect(deleted.object).to.deep.equal(gone);
      expect(rv(deleted.object)).to.equal(deleted.revision);
      expect(deleted.prevObject).to.deep.equal(a2);

      const c = await s.create(key('ns1', 'c'), configMap('c'));
      const live = await w.next();
      expect(summary(live)).to.equal(`ADDED ${key('ns1', 'c')}`);
      expect(live.revision).to.equal(rv(c));
    });

    it('watches one key (recursive=false) or an exact prefix', async () => {
      const start = await s.currentRevision();
      const one = h.watch(s, key('ns1', 'a'), { revision: start, recursive: false });
      const prefix = h.watch(s, `${PREFIX}ns1/`, { revision: start, recursive: true });
      await s.create(key('ns1', 'ab'), configMap('ab'));
      await s.create(key('ns10', 'a'), configMap('a', {}, {}, 'ns10'));
      await s.create(key('ns1', 'a'), configMap('a'));
      await s.create(key('ns2', 'a'), configMap('a', {}, {}, 'ns2'));
      await s.delete(key('ns1', 'a'));
      await s.create(key('ns1', 'a'), configMap('a', { again: 'yes' }));
      expect((await one.take(3)).map(summary)).to.deep.equal([
        `ADDED ${key('ns1', 'a')}`,
        `DELETED ${key('ns1', 'a')}`,
        `ADDED ${key('ns1', 'a')}`,
      ]);
      expect((await prefix.take(4)).map(summary)).to.deep.equal([
        `ADDED ${key('ns1', 'ab')}`,
        `ADDED ${key('ns1', 'a')}`,
        `DELETED ${key('ns1', 'a')}`,
        `ADDED ${key('ns1', 'a')}`,
      ]);
    });

    it('many concurrent writers, several watchers: every revision exactly once, strictly increasing', async () => {
      const start = await s.currentRevision();
      const early = h.watch(s, PREFIX, { revision: start, recursive: true });
      const written: bigint[] = [];
      const late: { from: bigint; watch: ReturnType<Harness['watch']> }[] = [];
      async function writer(ns: string): Promise<void> {
        for (let i = 0; i < 5; i++) {
          const k = key(ns, `o${i}`);
          written.push(rv(await s.create(k, configMap(`o${i}`, { n: '0' }, {}, ns))));
          for (let n = 1; n <= 3; n++)
            written.push(rv(await s.guaranteedUpdate(k, (cur) => ({ ...cur, data: { n: String(n) } }))));
          if (i % 2) written.push(rv(await s.delete(k)));
          if (ns === 'w0' && i === 2) {
            // Watches opened while writes are in flight: one replays from the start, one begins mid-stream.
            late.push({ from: start, watch: h.watch(s, PREFIX, { revision: start, recursive: true }) });
            const now = await s.currentRevision();
            late.push({ from: now, watch: h.watch(s, PREFIX, { revision: now, recursive: true }) });
          }
        }
      }
      await Promise.all(['w0', 'w1', 'w2', 'w3'].map(writer));
      const sentinel = rv(await s.create(key('zz', 'end'), configMap('end', {}, {}, 'zz')));
      const all = [...written].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
      expect(new Set(all).size).to.equal(all.length);

      for (const { from, watch } of [{ from: start, watch: early }, ...late]) {
        const expected = [...all.filter((r) => r > from), sentinel];
        const events = await watch.take(expected.length);
        expect(events.map((e) => e.revision)).to.deep.equal(expected);
        for (const e of events) expect(rv(e.object)).to.equal(e.revision);
      }
    });

    it('ends promptly when the signal aborts, also while waiting for an event', async () => {
      const w = h.watch(s, PREFIX, { revision: await s.currentRevision(), recursive: true });
      const pending = w.step();
      w.abort();
      expect((await within(pending, 500, 'the aborted watch to end')).done).to.equal(true);

      const controller = new AbortController();
      controller.abort();
      const iterator = s
        .watch(PREFIX, { revision: await s.currentRevision(), recursive: true }, controller.signal)
        [Symbol.asyncIterator]();
      expect((await within(iterator.next(), 500, 'a pre-aborted watch to end')).done).to.equal(true);
    });

    it('event objects are read-only: a watcher writing through one changes neither other watchers nor the store', async () => {
      const start = await s.currentRevision();
      const w1 = h.watch(s, PREFIX, { revision: start, recursive: true });
      const w2 = h.watch(s, PREFIX, { revision: start, recursive: true });
      await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
      const [added, modified] = await w1.take(2);
      tryMutate(() => ((added.object!.data as Record<string, string>).v = 'mutated'));
      tryMutate(() => ((modified.prevObject!.data as Record<string, string>).v = 'mutated'));
      tryMutate(() => (modified.object!.metadata.labels = { x: 'y' }));
      tryMutate(() => ((added as { type: string }).type = 'DELETED'));
      const [added2, modified2] = await w2.take(2);
      expect(added2.type).to.equal('ADDED');
      expect(dataOf(added2.object)).to.deep.equal({ v: '1' });
      expect(dataOf(modified2.prevObject)).to.deep.equal({ v: '1' });
      expect(modified2.object!.metadata.labels).to.deep.equal({});
      expect(dataOf(await s.get(key('ns1', 'a')))).to.deep.equal({ v: '2' });
    });

    it('answers a write before fanning it out to watchers', async () => {
      const w = h.watch(s, PREFIX, { revision: await s.currentRevision(), recursive: true });
      // A first event proves the watch is live (a backend may catch up from its log first).
      await s.create(key('ns1', 'first'), configMap('first'));
      await w.next();
      let delivered = false;
      const pending = w.next().then((e) => ((delivered = true), e));
      const created = await s.create(key('ns1', 'a'), configMap('a'));
      // Still the turn of the event loop that committed: however many promise steps the delivery takes, it has
      // not come, because the fan-out runs on a later turn.
      for (let i = 0; i < 100; i++) await Promise.resolve();
      expect(delivered).to.equal(false);
      expect((await pending).revision).to.equal(rv(created));
    });

    it('a watch opened between a write and its fan-out gets the write exactly once', async () => {
      const live = h.watch(s, PREFIX, { revision: await s.currentRevision(), recursive: true });
      const before = await s.currentRevision();
      const created = await s.create(key('ns1', 'a'), configMap('a'));
      // Opened before the fan-out of `created`, whose replay already holds it.
      const late = h.watch(s, PREFIX, { revision: before, recursive: true });
      const next = await s.create(key('ns1', 'b'), configMap('b'));
      expect((await late.take(2)).map((e) => e.revision)).to.deep.equal([rv(created), rv(next)]);
      expect((await live.take(2)).map((e) => e.revision)).to.deep.equal([rv(created), rv(next)]);
    });

    it('sends progress BOOKMARKs only to watchers that asked, after the events they cover', async () => {
      const start = await s.currentRevision();
      const quiet = h.watch(s, PREFIX, { revision: start, recursive: true });
      const notified = h.watch(s, `${PREFIX}ns1/`, { revision: start, recursive: true, progressNotify: true });
      const created = await s.create(key('ns1', 'a'), configMap('a'));
      expect(summary(await quiet.next())).to.equal(`ADDED ${key('ns1', 'a')}`);
      const seen: StorageEvent[] = [];
      const covers = (e: StorageEvent | undefined): boolean => e?.type === 'BOOKMARK' && e.revision >= rv(created);
      do seen.push(await notified.next());
      while (!covers(seen[seen.length - 1]));
      const added = seen.findIndex((e) => e.type !== 'BOOKMARK');
      expect(seen.filter((e) => e.type !== 'BOOKMARK').map(summary)).to.deep.equal([`ADDED ${key('ns1', 'a')}`]);
      // A bookmark claims everything up to its revision was sent, so none may cover the write before its event.
      for (const early of seen.slice(0, added)) expect(early.revision < rv(created)).to.equal(true);
      expect(seen[seen.length - 1].revision <= (await s.currentRevision())).to.equal(true);
      // The quiet watcher sat idle just as long; its next event must be the next write, not a bookmark.
      const later = await s.create(key('ns2', 'b'), configMap('b', {}, {}, 'ns2'));
      expect((await quiet.next()).revision).to.equal(rv(later));
    });
  });

  describe('lifecycle', () => {
    it('close ends open watches; afterwards every call fails with Unavailable', async () => {
      await s.create(key('ns1', 'a'), configMap('a'));
      const w = h.watch(s, PREFIX, { revision: await s.currentRevision(), recursive: true });
      const pending = w.step();
      await s.close();
      const ended = await within(
        pending.then(
          (r) => r.done,
          (e: unknown) => e instanceof StorageError,
        ),
        DEADLINE_MS,
        'close to end the watch',
      );
      expect(ended, 'watch ended normally or with a StorageError').to.equal(true);
      await expectCode(s.readiness(), 'Unavailable');
      await expectCode(s.get(key('ns1', 'a')), 'Unavailable');
      await expectCode(s.create(key('ns1', 'b'), configMap('b')), 'Unavailable');
      await expectCode(
        s.guaranteedUpdate(key('ns1', 'a'), (cur: KObject) => cur),
        'Unavailable',
      );
      await expectCode(s.delete(key('ns1', 'a')), 'Unavailable');
      await expectCode(s.getList(PREFIX), 'Unavailable');
      await expectCode(s.count(PREFIX), 'Unavailable');
      await expectCode(h.watch(s, PREFIX, { revision: 1n, recursive: true }).step(), 'Unavailable');
      await s.close();
    });
  });
}
