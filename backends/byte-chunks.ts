// Many small Buffers joined into chunks of at least a given size: one write per piece would cost a system call (a
// log rewrite) or a TLS record (a streamed list) each. Shared by the embedded log's snapshot rewrite and the
// gateway's streamed lists.

/** `pieces` joined into Buffers of at least `size` bytes; the last may be smaller, and nothing is yielded for none. */
export function* joinedChunks(pieces: Iterable<Buffer>, size: number): Generator<Buffer> {
  let batch: Buffer[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    batch.push(piece);
    bytes += piece.length;
    if (bytes >= size) {
      yield batch.length === 1 ? batch[0] : Buffer.concat(batch, bytes);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length) yield Buffer.concat(batch, bytes);
}
