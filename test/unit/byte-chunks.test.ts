import { expect } from 'chai';
import { joinedChunks } from '../../backends/byte-chunks.js';

describe('joinedChunks', () => {
  const pieces = (sizes: number[]) => sizes.map((n, i) => Buffer.alloc(n, 97 + i));

  it('joins pieces into chunks of at least the size, keeps every byte in order, and ends with the rest', () => {
    const input = pieces([3, 4, 2, 9, 1, 1]);
    const chunks = [...joinedChunks(input, 6)];
    expect(chunks.map((c) => c.length)).to.deep.equal([7, 11, 2]);
    expect(Buffer.concat(chunks).equals(Buffer.concat(input))).to.equal(true);
  });

  it('passes a piece at least as large as the size on uncopied, and yields nothing for no pieces', () => {
    const big = Buffer.alloc(10, 120);
    const [only] = [...joinedChunks([big], 4)];
    expect(only).to.equal(big);
    expect([...joinedChunks([], 4)]).to.deep.equal([]);
  });
});
