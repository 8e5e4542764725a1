// What the chunked list encoders (JSON, YAML) share: which field of an answer holds its many elements, and how many
// elements go into one chunk.

/**
 * The name of the field holding the elements of a list-shaped answer: `items` of a list, `rows` of a Table. Only the
 * last field qualifies, so that a chunked encoding writes the fields in their order; undefined otherwise.
 */
export function elementsField(value: Record<string, unknown>): string | undefined {
  let last: string | undefined;
  for (const key in value) last = key;
  return last !== undefined && Array.isArray(value[last]) ? last : undefined;
}

/**
 * Target size of one chunk's text: enough that per-chunk costs vanish, small enough that its string and Buffer are
 * young-generation garbage (V8 puts strings above ~128 KiB in large-object space, which only a full GC frees, and the
 * process would grow by many pages' worth before one ran) and that encoding one is a short step of the event loop.
 */
export const LIST_CHUNK_CHARS = 64 * 1024;

/** Elements for the next chunk, from the text the last `count` of them made, for chunks of about `target` chars. */
export function nextChunkCount(count: number, chars: number, target = LIST_CHUNK_CHARS): number {
  return Math.max(1, Math.min(1024, Math.floor((target * count) / Math.max(1, chars))));
}
