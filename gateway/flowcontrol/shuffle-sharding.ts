// Shuffle sharding as upstream's shufflesharding.Dealer: a flow's hash is read as a number in a mixed radix (deck
// size, deck size - 1, ...) whose digits pick `handSize` distinct queues. Two flows then share a whole hand only
// with a tiny probability, so a flooding flow fills its own queues and rarely all of another's.
import { createHash } from 'node:crypto';
import { setBounded } from '../../api/meta/bounded-map.js';

// A flow's requests keep coming with the same schema and distinguisher: a SHA-256 per request was 6% of a GET's CPU.
const FLOW_HASH_CACHE_LIMIT = 4096;
const flowHashes = new Map<string, bigint>();

/** upstream's hashFlowID: SHA-256 of the schema name, a 1 byte, the distinguisher; the first 8 bytes, little-endian. */
export function flowHash(schemaName: string, distinguisher: string): bigint {
  const key = `${schemaName}\x01${distinguisher}`;
  let hash = flowHashes.get(key);
  if (hash === undefined) {
    hash = hashFlow(schemaName, distinguisher);
    setBounded(flowHashes, key, hash, FLOW_HASH_CACHE_LIMIT);
  }
  return hash;
}

function hashFlow(schemaName: string, distinguisher: string): bigint {
  const digest = createHash('sha256')
    .update(schemaName)
    .update(Buffer.from([1]))
    .update(distinguisher)
    .digest();
  return digest.readBigUInt64LE(0);
}

/** The queue indices of a hand: distinct, in the order dealt. */
export function dealHand(hash: bigint, deckSize: number, handSize: number): number[] {
  const size = Math.min(handSize, deckSize);
  const remainders: number[] = [];
  let value = hash;
  for (let i = 0; i < size; i++) {
    const radix = BigInt(deckSize - i);
    remainders.push(Number(value % radix));
    value /= radix;
  }
  // Each digit counts among the cards not dealt yet: skip over the earlier cards at or below it.
  return remainders.map((digit, i) => {
    let card = digit;
    for (let j = i; j > 0; j--) if (card >= remainders[j - 1]) card++;
    return card;
  });
}
