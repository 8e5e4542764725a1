// Conformance: single-object reads and writes (get, create, guaranteedUpdate, delete).
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import type { Storage } from '../storage.js';
import { configMap, dataOf, expectCode, key, rv, tryMutate, type Harness } from './conformance-harness.js';

function yieldToOthers(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function describeObjectConformance(h: Harness): void {
  let s: Storage;
  beforeEach(async () => {
    s = await h.storage();
  });

  describe('get and create', () => {
    it('starts at a positive revision (on the wire "0" means any) with compacted <= current, and is ready', async () => {
      const current = await s.currentRevision();
      expect(current > 0n).to.equal(true);
      expect((await s.compactedRevision()) <= current).to.equal(true);
      await s.readiness();
    });

    it("create returns the object with resourceVersion = the new revision, ignoring the caller's", async () => {
      const before = await s.currentRevision();
      const input = configMap('a', { k: 'v' });
      input.metadata.resourceVersion = '999999';
      const created = await s.create(key('ns1', 'a'), input);
      expect(rv(created) > before).to.equal(true);
      expect(created.metadata.resourceVersion).to.not.equal('999999');
      expect(await s.currentRevision()).to.equal(rv(created));
      expect(dataOf(created)).to.deep.equal({ k: 'v' });
      const got = await s.get(key('ns1', 'a'));
      expect(got).to.deep.equal(created);
    });

    it('every write takes a new, strictly greater revision from one counter shared by all keys', async () => {
      const a = await s.create(key('ns1', 'a'), configMap('a'));
      const b = await s.create(key('ns2', 'b'), configMap('b', {}, {}, 'ns2'));
      const a2 = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { x: '1' } }));
      const b2 = await s.delete(key('ns2', 'b'));
      const revisions = [a, b, a2, b2].map(rv);
      for (let i = 1; i < revisions.length; i++) expect(revisions[i] > revisions[i - 1]).to.equal(true);
    });

    it('create on an existing key fails with KeyExists and writes nothing', async () => {
      const first = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      await expectCode(s.create(key('ns1', 'a'), configMap('a', { v: '2' })), 'KeyExists');
      expect(await s.currentRevision()).to.equal(rv(first));
      expect(dataOf(await s.get(key('ns1', 'a')))).to.deep.equal({ v: '1' });
    });

    it('values with quotes, backslashes, control, escaped and non-BMP characters come back exactly', async () => {
      // Every backend stores text somewhere (a log file, SQL parameters nested in JSON): nothing may be lost or
      // unescaped one level too many on the way.
      const tricky = {
        quotes: 'say "hi" \'there\'',
        backslashes: 'C:\\dir\\ and \\" and \\\\',
        json: '{"a":[1,"\\u0041"]}',
        control: 'tab\tnewline\nnul\u0000bell\u0007',
        unicode: 'é ñ 日本 🚀 \u2028\u2029',
        lone: 'x\ud800y',
      };
      const created = await s.create(key('ns1', 'tricky'), configMap('tricky', tricky));
      expect(dataOf(created)).to.deep.equal(tricky);
      expect(dataOf(await s.get(key('ns1', 'tricky')))).to.deep.equal(tricky);
      const updated = await s.guaranteedUpdate(key('ns1', 'tricky'), (cur) => ({
        ...cur,
        data: { ...tricky, more: '"\\"' },
      }));
      expect(dataOf(await s.get(key('ns1', 'tricky')))).to.deep.equal({ ...tricky, more: '"\\"' });
      expect(dataOf(await s.delete(key('ns1', 'tricky')))).to.deep.equal(dataOf(updated));
    });

    it('get of an absent key fails with NotFound naming the key', async () => {
      const err = await expectCode(s.get(key('ns1', 'missing')), 'NotFound');
      expect(err.key).to.equal(key('ns1', 'missing'));
    });

    it('callers can never mutate stored state through objects they passed in or got back', async () => {
      const input = configMap('a', { v: '1' });
      const created = await s.create(key('ns1', 'a'), input);
      (input.data as Record<string, string>).v = 'input';
      tryMutate(() => ((created.data as Record<string, string>).v = 'created'));
      const got = await s.get(key('ns1', 'a'));
      tryMutate(() => ((got.data as Record<string, string>).v = 'got'));
      tryMutate(() => (got.metadata.labels = { x: 'y' }));
      const listed = (await s.getList('/registry/configmaps/')).items[0];
      tryMutate(() => ((listed.data as Record<string, string>).v = 'listed'));
      const paged = (await s.getList('/registry/configmaps/', { limit: 1 })).items[0];
      tryMutate(() => delete paged.metadata.name);
      const again = await s.get(key('ns1', 'a'));
      expect(dataOf(again)).to.deep.equal({ v: '1' });
      expect(again.metadata.labels).to.deep.equal({});
      expect(again.metadata.name).to.equal('a');
    });

    it('objects from update and delete are read-only too, and tryUpdate still gets a private copy', async () => {
      await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const updated = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: '2' } }));
      tryMutate(() => ((updated.data as Record<string, string>).v = 'updated'));
      const unchanged = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => cur);
      tryMutate(() => ((unchanged.data as Record<string, string>).v = 'unchanged'));
      expect(dataOf(await s.get(key('ns1', 'a')))).to.deep.equal({ v: '2' });
      const next = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => {
        (cur.data as Record<string, string>).v = '3';
        cur.metadata.labels = { mutable: 'yes' };
        return cur;
      });
      expect(dataOf(next)).to.deep.equal({ v: '3' });
      const gone = await s.delete(key('ns1', 'a'));
      tryMutate(() => (gone.metadata.name = 'other'));
      await expectCode(s.get(key('ns1', 'a')), 'NotFound');
    });
  });

  describe('guaranteedUpdate', () => {
    it('passes a private copy of the current object and stores the result at a new revision', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      let seen: KObject | undefined;
      const updated = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => {
        seen = structuredClone(cur);
        cur.data = { v: '2' };
        cur.metadata.resourceVersion = '1';
        return cur;
      });
      expect(seen).to.deep.equal(created);
      expect(rv(updated) > rv(created)).to.equal(true);
      expect(dataOf(updated)).to.deep.equal({ v: '2' });
      expect(await s.get(key('ns1', 'a'))).to.deep.equal(updated);
    });

    it('retries on concurrent writes: 20 concurrent increments all land', async () => {
      await s.create(key('ns1', 'counter'), configMap('counter', { n: '0' }));
      let calls = 0;
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.guaranteedUpdate(key('ns1', 'counter'), async (cur) => {
            calls++;
            await yieldToOthers();
            cur.data = { n: String(Number(dataOf(cur).n) + 1) };
            return cur;
          }),
        ),
      );
      expect(dataOf(await s.get(key('ns1', 'counter'))).n).to.equal('20');
      expect(new Set(results.map((r) => r.metadata.resourceVersion)).size).to.equal(20);
      expect(results.map((r) => dataOf(r).n).sort((x, y) => Number(x) - Number(y))).to.deep.equal(
        Array.from({ length: 20 }, (_, i) => String(i + 1)),
      );
      expect(calls).to.be.at.least(20);
    });

    it('checks preconditions: uid mismatch is PreconditionUid, resourceVersion mismatch is Conflict, no write', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const bump = (cur: KObject): KObject => ({ ...cur, data: { v: '2' } });
      await expectCode(
        s.guaranteedUpdate(key('ns1', 'a'), bump, { preconditions: { uid: 'other' } }),
        'PreconditionUid',
      );
      await expectCode(
        s.guaranteedUpdate(key('ns1', 'a'), bump, { preconditions: { resourceVersion: String(rv(created) + 100n) } }),
        'Conflict',
      );
      expect(await s.currentRevision()).to.equal(rv(created));
      const ok = await s.guaranteedUpdate(key('ns1', 'a'), bump, {
        preconditions: { uid: 'uid-ns1-a', resourceVersion: created.metadata.resourceVersion },
      });
      expect(dataOf(ok)).to.deep.equal({ v: '2' });
    });

    it('a resourceVersion precondition fails with Conflict once someone else wrote in between', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      await s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: 'other' } }));
      const pre = { resourceVersion: created.metadata.resourceVersion };
      await expectCode(
        s.guaranteedUpdate(key('ns1', 'a'), (cur) => ({ ...cur, data: { v: 'mine' } }), { preconditions: pre }),
        'Conflict',
      );
      expect(dataOf(await s.get(key('ns1', 'a')))).to.deep.equal({ v: 'other' });
    });

    it('does not write when tryUpdate returns identical content', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const same = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => cur);
      const copy = await s.guaranteedUpdate(key('ns1', 'a'), (cur) => structuredClone(cur));
      expect(same).to.deep.equal(created);
      expect(copy).to.deep.equal(created);
      expect(await s.currentRevision()).to.equal(rv(created));
    });

    it('absent key: NotFound without createFrom; with createFrom, tryUpdate gets that object and it is created', async () => {
      await expectCode(
        s.guaranteedUpdate(key('ns1', 'a'), (cur) => cur),
        'NotFound',
      );
      const made = await s.guaranteedUpdate(
        key('ns1', 'a'),
        (cur) => ({ ...cur, data: { from: String(dataOf(cur).seed) } }),
        {
          createFrom: () => configMap('a', { seed: 'yes' }),
        },
      );
      expect(dataOf(made)).to.deep.equal({ from: 'yes' });
      expect(await s.get(key('ns1', 'a'))).to.deep.equal(made);
    });

    it('an error thrown by tryUpdate propagates and nothing is written', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a'));
      const refusal = new Error('refused by tryUpdate');
      let caught: unknown;
      await s
        .guaranteedUpdate(key('ns1', 'a'), () => {
          throw refusal;
        })
        .catch((e: unknown) => (caught = e));
      expect(caught).to.equal(refusal);
      expect(await s.currentRevision()).to.equal(rv(created));
    });
  });

  describe('delete', () => {
    it('returns the last state with resourceVersion = the deletion revision; the key is then absent', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a', { v: '1' }));
      const deleted = await s.delete(key('ns1', 'a'));
      expect(rv(deleted) > rv(created)).to.equal(true);
      expect(await s.currentRevision()).to.equal(rv(deleted));
      expect(dataOf(deleted)).to.deep.equal({ v: '1' });
      await expectCode(s.get(key('ns1', 'a')), 'NotFound');
      await expectCode(s.delete(key('ns1', 'a')), 'NotFound');
      const recreated = await s.create(key('ns1', 'a'), configMap('a', { v: 'new' }));
      expect(rv(recreated) > rv(deleted)).to.equal(true);
    });

    it('checks preconditions: uid mismatch is PreconditionUid, resourceVersion mismatch is Conflict', async () => {
      const created = await s.create(key('ns1', 'a'), configMap('a'));
      await expectCode(s.delete(key('ns1', 'a'), { preconditions: { uid: 'other' } }), 'PreconditionUid');
      await expectCode(
        s.delete(key('ns1', 'a'), { preconditions: { resourceVersion: String(rv(created) + 7n) } }),
        'Conflict',
      );
      expect(await s.get(key('ns1', 'a'))).to.deep.equal(created);
      await s.delete(key('ns1', 'a'), {
        preconditions: { uid: 'uid-ns1-a', resourceVersion: created.metadata.resourceVersion },
      });
      await expectCode(s.get(key('ns1', 'a')), 'NotFound');
    });

    it('validate can refuse the deletion', async () => {
      await s.create(key('ns1', 'a'), configMap('a'));
      const refusal = new Error('has finalizers');
      let caught: unknown;
      await s
        .delete(key('ns1', 'a'), {
          validate: () => {
            throw refusal;
          },
        })
        .catch((e: unknown) => (caught = e));
      expect(caught).to.equal(refusal);
      await s.get(key('ns1', 'a'));
    });

    it('validate runs again against the newest object when a write lands meanwhile', async () => {
      await s.create(key('ns1', 'a'), configMap('a'));
      const seen: (string[] | undefined)[] = [];
      let caught: unknown;
      await s
        .delete(key('ns1', 'a'), {
          validate: async (cur) => {
            seen.push(cur.metadata.finalizers);
            if (cur.metadata.finalizers?.length) throw new Error('finalizer present');
            if (seen.length === 1) {
              await s.guaranteedUpdate(key('ns1', 'a'), (c) => ({
                ...c,
                metadata: { ...c.metadata, finalizers: ['x/y'] },
              }));
            }
          },
        })
        .catch((e: unknown) => (caught = e));
      expect((caught as Error | undefined)?.message).to.equal('finalizer present');
      expect(seen).to.deep.equal([undefined, ['x/y']]);
      expect((await s.get(key('ns1', 'a'))).metadata.finalizers).to.deep.equal(['x/y']);
    });
  });
}
