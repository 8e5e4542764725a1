// A large list (or Table) in YAML as chunks, encoded lazily, whose concatenation is byte for byte the YAML of the
// whole: one js-yaml dump of 50,000 objects held the event loop for seconds. Each chunk dumps a run of elements as a
// sequence of its own and indents it under the elements field. That is exact because js-yaml's output below a node
// does not depend on the node's depth with lineWidth -1 (no folding; block scalars' indentation indicators count
// from their parent), and it leaves empty lines unindented, as the indentation here does.
import { elementsField, nextChunkCount } from './list-chunks.js';
import type { ListValue } from './serializer.js';

export function encodeYamlList(list: ListValue, encode: (value: unknown) => string): Iterable<Buffer> | undefined {
  const field = elementsField(list);
  if (field === undefined) return undefined;
  const elements = list[field] as unknown[];
  if (elements.length === 0) return undefined;
  const { [field]: _elements, ...rest } = list;
  const head = Object.keys(rest).length > 0 ? encode(rest) : '';
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${head}${encode({ [field!]: null }).replace(/ null\n$/, '\n')}`);
    let count = 16;
    for (let i = 0; i < elements.length;) {
      const end = Math.min(elements.length, i + count);
      const text = encode(elements.slice(i, end));
      yield Buffer.from(text.replace(NON_EMPTY_LINE, '  '));
      count = nextChunkCount(end - i, text.length, YAML_CHUNK_CHARS);
      i = end;
    }
  }
  return chunks();
}

const NON_EMPTY_LINE = /^(?!$)/gm;
/** js-yaml writes some ten times slower than JSON.stringify: smaller chunks keep each step as short. */
const YAML_CHUNK_CHARS = 16 * 1024;
