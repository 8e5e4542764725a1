import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { createRevisionHistory, type RevisionHistory } from '../../backends/memory/revision-history.js';

// A deterministic pseudo-random sequence, so that a failure reproduces.
function sequence(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

function object(name: string, generation: number): KObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { generation: String(generation) } };
}

function scanned(history: RevisionHistory, prefix: string, start: string, revision: bigint): string[] {
  const seen: string[] = [];
  history.scan(prefix, start, revision, (key, value) => {
    seen.push(`${key}=${(value as unknown as { data: { generation: string } }).data.generation}`);
    return true;
  });
  return seen;
}

/** What a scan must return, from a plain map of the live objects at one revision. */
function expected(live: Map<string, number>, prefix: string, start: string): string[] {
  return [...live.keys()]
    .filter((key) => key.startsWith(prefix) && key >= start)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((key) => `${key}=${live.get(key)}`);
}

describe('revision history key order', () => {
  const prefixes = ['/configmaps/a/', '/configmaps/b/', '/configmaps/ab/', '/secrets/a/'];

  it('scans in key order at the current and at past revisions through random creates, updates and deletes', () => {
    const next = sequence(7);
    const history = createRevisionHistory();
    const live = new Map<string, number>();
    const past: { revision: bigint; live: Map<string, number> }[] = [];
    for (let step = 0; step < 3000; step++) {
      // Names sort differently as strings than as numbers ("c-10" before "c-9"), so inserts land all over the order.
      const key = `${prefixes[Math.floor(next() * prefixes.length)]}c-${Math.floor(next() * 400)}`;
      if (live.has(key) && next() < 0.4) {
        history.commit(key, null, step);
        live.delete(key);
      } else {
        history.commit(key, object(key, step), step);
        live.set(key, step);
      }
      if (step % 500 === 0) past.push({ revision: history.current(), live: new Map(live) });
    }
    for (const prefix of [...prefixes, '/configmaps/', '']) {
      expect(scanned(history, prefix, prefix, history.current())).to.deep.equal(expected(live, prefix, prefix));
      for (const then of past)
        expect(scanned(history, prefix, prefix, then.revision)).to.deep.equal(expected(then.live, prefix, prefix));
    }
    // A start inside the prefix (a continue token's position) and one before it.
    expect(scanned(history, '/configmaps/a/', '/configmaps/a/c-2', history.current())).to.deep.equal(
      expected(live, '/configmaps/a/', '/configmaps/a/c-2'),
    );
    expect(scanned(history, '/configmaps/b/', '/', history.current())).to.deep.equal(
      expected(live, '/configmaps/b/', '/configmaps/b/'),
    );
  });

  it('drops compacted-away deletions from the order and keeps later creates of the same key', () => {
    const history = createRevisionHistory();
    for (let i = 0; i < 50; i++) history.commit(`/k/${i}`, object(`${i}`, i), 1);
    for (let i = 0; i < 50; i += 2) history.commit(`/k/${i}`, null, 2);
    history.compact(3);
    expect(scanned(history, '/k/', '/k/', history.current())).to.have.length(25);
    history.commit('/k/0', object('0', 99), 4);
    const keys = scanned(history, '/k/', '/k/', history.current()).map((entry) => entry.split('=')[0]);
    expect(keys).to.have.length(26);
    expect(keys[0]).to.equal('/k/0');
    expect([...keys].sort()).to.deep.equal(keys);
  });

  it('stops where the visitor says', () => {
    const history = createRevisionHistory();
    for (let i = 0; i < 20; i++) history.commit(`/k/${String(i).padStart(2, '0')}`, object(`${i}`, i), 1);
    const seen: string[] = [];
    history.scan('/k/', '/k/05', history.current(), (key) => {
      seen.push(key);
      return seen.length < 3;
    });
    expect(seen).to.deep.equal(['/k/05', '/k/06', '/k/07']);
  });

  it('restores a snapshot into the same order', () => {
    const history = createRevisionHistory();
    const names = ['m', 'a', 'z', 'b', 'c-10', 'c-9', 'c-1'];
    for (const name of names) history.commit(`/k/${name}`, object(name, 1), 1);
    // Compacted up to the newest write, the snapshot holds every object in its base.
    history.compact(2);
    const snapshot = history.snapshot(history.current());
    const restored = createRevisionHistory();
    // The base as a durable copy would hand it back: reversed, to show the order does not come from the input.
    restored.restore(
      snapshot.compacted,
      [...snapshot.base].reverse().map(({ key, object: o }) => ({ key, object: structuredClone(o) })),
    );
    expect(snapshot.base).to.have.length(names.length);
    expect(scanned(restored, '/k/', '/k/', restored.current())).to.deep.equal(
      scanned(history, '/k/', '/k/', history.current()),
    );
  });
});
