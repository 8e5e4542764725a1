// Conformance: reads at chosen revisions (latest, any, notOlderThan, exact) and the history window (Expired).
import { expect } from 'chai';
import type { Storage } from '../storage.js';
import { configMap, dataOf, expectCode, key, PREFIX, rv, WAIT_MS, type Harness } from './conformance-harness.js';

export function describeRevisionConformance(h: Harness): void {
  describe('read revisions', () => {
    let s: Storage;
    beforeEach(async () => {
      s = await h.storage();
    });

    it('exact reads see the state at that revision, including objects deleted since', async () => {
      const a1 = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const b1 = await s.create(key('ns1', 'b'), configMap('b', { v: '1' }));
      await s.delete(key('ns1', 'a'));
      const b2 = await s.guaranteedUpdate(key('ns1', 'b'), (cur) => ({ ...cur, data: { v: '2' } }));
      const at = (revision: bigint) => ({ read: { match: 'exact' as const, revision } });

      expect(await s.get(key('ns1', 'a'), at(rv(b1)))).to.deep.equal(a1);
      expect(await s.get(key('ns1', 'b'), at(rv(b1)))).to.deep.equal(b1);
      await expectCode(s.get(key('ns1', 'a')), 'NotFound');
      await expectCode(s.get(key('ns1', 'b'), at(rv(a1))), 'NotFound');

      const old = await s.getList(`${PREFIX}ns1/`, at(rv(b1)));
      expect(old.revision).to.equal(rv(b1));
      expect(old.items).to.deep.equal([a1, b1]);
      const latest = await s.getList(`${PREFIX}ns1/`, { read: { match: 'latest' } });
      expect(latest.items).to.deep.equal([b2]);
      expect(latest.revision).to.equal(rv(b2));
    });

    it('exact paged lists continue at the requested revision', async () => {
      const a = await s.create(key('ns1', 'a'), configMap('a'));
      const b = await s.create(key('ns1', 'b'), configMap('b'));
      await s.create(key('ns1', 'c'), configMap('c'));
      const first = await s.getList(`${PREFIX}ns1/`, { limit: 1, read: { match: 'exact', revision: rv(b) } });
      expect(first.items).to.deep.equal([a]);
      expect(first.remainingItemCount).to.equal(1);
      const second = await s.getList(`${PREFIX}ns1/`, { limit: 1, continue: first.continue });
      expect(second.items).to.deep.equal([b]);
      expect(second.revision).to.equal(rv(b));
      expect(second.continue).to.equal(undefined);
    });

    it('any and notOlderThan (at or below current) read a revision no older than asked, within the history', async () => {
      const a = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const a2 = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
      const current = await s.currentRevision();
      const any = await s.getList(`${PREFIX}ns1/`, { read: { match: 'any' } });
      expect(any.revision <= current && any.revision >= (await s.compactedRevision())).to.equal(true);
      const fresh = await s.getList(`${PREFIX}ns1/`, { read: { match: 'notOlderThan', revision: rv(a) } });
      expect(fresh.revision >= rv(a)).to.equal(true);
      expect(await s.get(key('ns1', 'a'), { read: { match: 'notOlderThan', revision: rv(a2) } })).to.deep.equal(a2);
      expect(rv(await s.get(key('ns1', 'a'), { read: { match: 'any' } })) >= rv(a)).to.equal(true);
    });

    it('a future revision fails with TooLargeRevision after a short wait, carrying revision and current', async () => {
      await s.create(key('ns1', 'a'), configMap('a'));
      const current = await s.currentRevision();
      const future = current + 1000n;
      for (const match of ['notOlderThan', 'exact'] as const) {
        const started = Date.now();
        const err = await expectCode(s.get(key('ns1', 'a'), { read: { match, revision: future } }), 'TooLargeRevision');
        expect(Date.now() - started, 'waited before giving up').to.be.at.least(WAIT_MS - 10);
        expect(err.revision).to.equal(future);
        expect(err.current).to.equal(current);
        expect(err.message).to.contain('Too large resource version');
      }
      await expectCode(s.getList(`${PREFIX}ns1/`, { read: { match: 'exact', revision: future } }), 'TooLargeRevision');
    });

    it('a read at a future revision succeeds when that revision is written during the wait', async () => {
      const next = (await s.currentRevision()) + 1n;
      const pending = s.get(key('ns1', 'a'), { read: { match: 'notOlderThan', revision: next } });
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: 'late' }));
      expect(rv(created) >= next).to.equal(true);
      expect(dataOf(await pending)).to.deep.equal({ v: 'late' });
    });
  });

  describe('history window', () => {
    it('answers Expired below the window for exact reads, continue tokens and watches; later state stays readable', async () => {
      const { storage: s, expire } = await h.expiring();
      const a1 = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const b1 = await s.create(key('ns1', 'b'), configMap('b'));
      const page = await s.getList(`${PREFIX}ns1/`, { limit: 1 });
      expect(page.continue).to.be.a('string');
      const a2 = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
      await expire();

      const compacted = await s.compactedRevision();
      expect(compacted > rv(b1)).to.equal(true);
      expect(compacted <= (await s.currentRevision())).to.equal(true);
      await expectCode(s.get(key('ns1', 'a'), { read: { match: 'exact', revision: rv(a1) } }), 'Expired');
      await expectCode(s.getList(`${PREFIX}ns1/`, { read: { match: 'exact', revision: rv(b1) } }), 'Expired');
      await expectCode(s.getList(`${PREFIX}ns1/`, { limit: 1, continue: page.continue }), 'Expired');
      await expectCode(h.watch(s, `${PREFIX}ns1/`, { revision: rv(a1), recursive: true }).step(), 'Expired');

      expect(await s.get(key('ns1', 'a'))).to.deep.equal(a2);
      expect(await s.get(key('ns1', 'a'), { read: { match: 'exact', revision: compacted } })).to.deep.equal(a2);
      expect((await s.getList(`${PREFIX}ns1/`)).items).to.deep.equal([a2, b1]);
      expect(await s.get(key('ns1', 'a'), { read: { match: 'notOlderThan', revision: rv(a1) } })).to.deep.equal(a2);

      const w = h.watch(s, `${PREFIX}ns1/`, { revision: compacted, recursive: true });
      const c = await s.create(key('ns1', 'c'), configMap('c'));
      const event = await w.next();
      expect(event.type).to.equal('ADDED');
      expect(event.revision).to.equal(rv(c));
    });

    it('a deleted object stays readable at an exact revision until its deletion leaves the window', async () => {
      const { storage: s, expire } = await h.expiring();
      const a = await s.create(key('ns1', 'a'), configMap('a'));
      const deleted = await s.delete(key('ns1', 'a'));
      await s.create(key('ns1', 'b'), configMap('b'));
      expect(await s.get(key('ns1', 'a'), { read: { match: 'exact', revision: rv(a) } })).to.deep.equal(a);
      await expire();
      await expectCode(s.get(key('ns1', 'a'), { read: { match: 'exact', revision: rv(a) } }), 'Expired');
      await expectCode(
        s.get(key('ns1', 'a'), { read: { match: 'exact', revision: await s.compactedRevision() } }),
        'NotFound',
      );
      expect(await s.count(`${PREFIX}ns1/`)).to.equal(1);
      expect(rv(deleted) <= (await s.compactedRevision())).to.equal(true);
    });
  });
}
