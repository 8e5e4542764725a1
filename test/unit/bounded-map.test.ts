import { expect } from 'chai';
import { setBounded } from '../../api/meta/bounded-map.js';

describe('setBounded', () => {
  it('keeps at most the limit, dropping the oldest; setting a key again makes it the newest', () => {
    const map = new Map<string, number>();
    setBounded(map, 'a', 1, 2);
    setBounded(map, 'b', 2, 2);
    setBounded(map, 'a', 3, 2);
    setBounded(map, 'c', 4, 2);
    expect([...map]).to.deep.equal([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
