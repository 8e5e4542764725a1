// Conformance: lists (prefix scans, predicates, paging with continue tokens at a snapshot) and count.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import type { ListResult, SelectionPredicate, Storage } from '../storage.js';
import { configMap, dataOf, expectCode, key, PREFIX, rv, type Harness } from './conformance-harness.js';

const names = (r: ListResult): string[] => r.items.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);

const odd: SelectionPredicate = { empty: false, matches: (o: KObject) => o.metadata.labels?.parity === 'odd' };

async function seed(s: Storage, ns: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await s.create(
      key(ns, `item-${i}`),
      configMap(`item-${i}`, { i: String(i) }, { parity: i % 2 ? 'odd' : 'even' }, ns),
    );
  }
}

/** Follows continue tokens to the end, checking each page stays within the limit and at one snapshot revision. */
async function allPages(
  s: Storage,
  prefix: string,
  limit: number,
  predicate?: SelectionPredicate,
): Promise<ListResult[]> {
  const pages = [await s.getList(prefix, { limit, predicate })];
  while (pages[pages.length - 1].continue) {
    expect(pages.length, 'pages').to.be.below(100);
    pages.push(await s.getList(prefix, { limit, predicate, continue: pages[pages.length - 1].continue }));
  }
  for (const p of pages) {
    expect(p.items.length).to.be.at.most(limit);
    expect(p.revision).to.equal(pages[0].revision);
  }
  return pages;
}

export function describeListConformance(h: Harness): void {
  let s: Storage;
  beforeEach(async () => {
    s = await h.storage();
  });

  describe('getList', () => {
    it('returns the objects under an exact prefix in key order, at the current revision', async () => {
      for (const [ns, name] of [
        ['ns1', 'b'],
        ['ns10', 'a'],
        ['ns1', 'a'],
        ['ns2', 'x'],
        ['ns1', 'c'],
        ['ns1-x', 'a'],
      ]) {
        await s.create(key(ns, name), configMap(name, {}, {}, ns));
      }
      const ns1 = await s.getList(`${PREFIX}ns1/`);
      expect(names(ns1)).to.deep.equal(['ns1/a', 'ns1/b', 'ns1/c']);
      expect(ns1.revision).to.equal(await s.currentRevision());
      expect(ns1.continue).to.equal(undefined);
      expect(ns1.remainingItemCount).to.equal(undefined);
      // Byte order: '-' < '/' < '0', so a backend with a locale collation fails here.
      expect(names(await s.getList(PREFIX))).to.deep.equal(['ns1-x/a', 'ns1/a', 'ns1/b', 'ns1/c', 'ns10/a', 'ns2/x']);
      expect((await s.getList(`${PREFIX}ns3/`)).items).to.deep.equal([]);
    });

    it('omits deleted objects and shows each object at its newest state with its own resourceVersion', async () => {
      await seed(s, 'ns1', 3);
      await s.delete(key('ns1', 'item-1'));
      const updated = await s.guaranteedUpdate(key('ns1', 'item-0'), (cur) => ({ ...cur, data: { i: 'zero' } }));
      const list = await s.getList(`${PREFIX}ns1/`);
      expect(names(list)).to.deep.equal(['ns1/item-0', 'ns1/item-2']);
      expect(list.items[0]).to.deep.equal(updated);
      for (const item of list.items) expect(rv(item) <= list.revision).to.equal(true);
    });

    it('filters with the predicate, and limit counts matching items only', async () => {
      await seed(s, 'ns1', 9);
      const pages = await allPages(s, `${PREFIX}ns1/`, 2, odd);
      expect(pages.flatMap(names)).to.deep.equal(['ns1/item-1', 'ns1/item-3', 'ns1/item-5', 'ns1/item-7']);
      expect(pages[0].items.length).to.equal(2);
      for (const p of pages) expect(p.remainingItemCount).to.equal(undefined);
      expect(names(await s.getList(`${PREFIX}ns1/`, { predicate: odd }))).to.have.length(4);
    });

    it('pages with an empty predicate report remainingItemCount; the last page has neither continue nor count', async () => {
      await seed(s, 'ns1', 5);
      await seed(s, 'ns2', 2);
      const pages = await allPages(s, `${PREFIX}ns1/`, 2);
      expect(pages.map(names)).to.deep.equal([
        ['ns1/item-0', 'ns1/item-1'],
        ['ns1/item-2', 'ns1/item-3'],
        ['ns1/item-4'],
      ]);
      expect(pages.map((p) => p.remainingItemCount)).to.deep.equal([3, 1, undefined]);
      const exact = await s.getList(`${PREFIX}ns1/`, { limit: 5 });
      expect(exact.items).to.have.length(5);
      expect(exact.continue).to.equal(undefined);
    });

    it("continues at the first page's snapshot revision even while writes happen between pages", async () => {
      await seed(s, 'ns1', 5);
      const first = await s.getList(`${PREFIX}ns1/`, { limit: 2 });
      const before = structuredClone((await s.getList(`${PREFIX}ns1/`)).items);
      await s.create(key('ns1', 'item-2a'), configMap('item-2a'));
      await s.guaranteedUpdate(key('ns1', 'item-3'), (cur) => ({ ...cur, data: { i: 'changed' } }));
      await s.delete(key('ns1', 'item-4'));
      await s.create(key('ns1', 'item-9'), configMap('item-9'));
      const second = await s.getList(`${PREFIX}ns1/`, { limit: 2, continue: first.continue });
      const third = await s.getList(`${PREFIX}ns1/`, { limit: 2, continue: second.continue });
      expect(second.revision).to.equal(first.revision);
      expect(third.revision).to.equal(first.revision);
      expect([...first.items, ...second.items, ...third.items]).to.deep.equal(before);
      expect(dataOf(second.items[1])).to.deep.equal({ i: '3' });
      expect(third.continue).to.equal(undefined);
      expect(names(await s.getList(`${PREFIX}ns1/`))).to.deep.equal([
        'ns1/item-0',
        'ns1/item-1',
        'ns1/item-2',
        'ns1/item-2a',
        'ns1/item-3',
        'ns1/item-9',
      ]);
    });

    it('rejects malformed continue tokens with InvalidContinue', async () => {
      await seed(s, 'ns1', 3);
      const b64 = (v: unknown): string =>
        Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
      const current = Number(await s.currentRevision());
      const bad = [
        '%%%not-base64%%%',
        b64('not json'),
        b64([1, 2]),
        b64({ v: 'meta.k8s.io/v2', rv: current, start: 'item-1' }),
        b64({ v: 'meta.k8s.io/v1', rv: 0, start: 'item-1' }),
        b64({ v: 'meta.k8s.io/v1', rv: 'x', start: 'item-1' }),
        b64({ v: 'meta.k8s.io/v1', rv: current, start: '' }),
        b64({ v: 'meta.k8s.io/v1', rv: current, start: '../ns2/item-0' }),
        b64({ v: 'meta.k8s.io/v1', rv: current, start: '/etc' }),
      ];
      for (const token of bad)
        await expectCode(s.getList(`${PREFIX}ns1/`, { limit: 1, continue: token }), 'InvalidContinue');
    });
  });

  describe('count', () => {
    it('counts live objects under an exact prefix', async () => {
      await seed(s, 'ns1', 3);
      await seed(s, 'ns10', 2);
      await s.delete(key('ns1', 'item-0'));
      expect(await s.count(`${PREFIX}ns1/`)).to.equal(2);
      expect(await s.count(`${PREFIX}ns10/`)).to.equal(2);
      expect(await s.count(PREFIX)).to.equal(4);
      expect(await s.count(`${PREFIX}none/`)).to.equal(0);
    });
  });
}
