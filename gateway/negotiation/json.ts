// The JSON codec. JSON.parse builds the value (native and fast); jsonc-parser's visitor walks the same text only
// to find duplicate keys, which JSON.parse silently resolves to the last one, and positions of syntax errors.
import { visit } from 'jsonc-parser';
import { errors } from '../../api/meta/errors.js';
import type { DecodeOptions, DecodeResult, ListValue, Serializer } from './serializer.js';
import { elementsField, nextChunkCount } from './list-chunks.js';

/** jsonc-parser's ParseErrorCode values (a const enum, so spelled out here). */
const SYNTAX_PROBLEMS: Record<number, string> = {
  1: 'invalid character',
  2: 'invalid number',
  3: 'expected a property name',
  4: 'expected a value',
  5: "expected ':'",
  6: "expected ',' or the end of the object or array",
  7: "expected '}'",
  8: "expected ']'",
  9: 'unexpected content after the top-level value',
  10: 'comments are not allowed',
  11: 'comments are not allowed',
  12: 'unterminated string',
  13: 'unterminated number',
  14: 'invalid unicode escape',
  15: 'invalid escape character in string',
  16: 'invalid control character in string',
};

interface Container {
  path: string;
  isArray: boolean;
  /** Keys seen so far (objects) or the index of the next element (arrays). */
  keys: Set<string>;
  nextIndex: number;
}

/** Joins a child onto a path as field errors print it: `spec.taints[0].key`. */
function childPath(parent: Container | undefined, key: string | number): string {
  if (typeof key === 'number') return `${parent?.path ?? ''}[${key}]`;
  return parent?.path ? `${parent.path}.${key}` : key;
}

/**
 * Scans JSON text for keys repeated within one object, in document order. Syntax problems are reported through
 * `onSyntaxError` with the first one's position; the visitor keeps going, so callers stop after the first.
 */
export function scanJson(
  text: string,
  onSyntaxError?: (problem: string, line: number, column: number, offset: number) => void,
): string[] {
  const duplicates: string[] = [];
  const stack: Container[] = [];
  let pendingKey: string | undefined;
  let reported = false;

  // The path a value starting now will have; arrays count their elements as they begin.
  const valuePath = (): string => {
    const top = stack[stack.length - 1];
    if (!top) return '';
    if (top.isArray) return childPath(top, top.nextIndex++);
    return childPath(top, pendingKey ?? '');
  };
  const open = (isArray: boolean) => {
    stack.push({ path: valuePath(), isArray, keys: new Set(), nextIndex: 0 });
  };

  visit(
    text,
    {
      onObjectBegin: () => open(false),
      onArrayBegin: () => open(true),
      onObjectEnd: () => void stack.pop(),
      onArrayEnd: () => void stack.pop(),
      onObjectProperty: (property) => {
        const top = stack[stack.length - 1];
        if (top.keys.has(property)) duplicates.push(childPath(top, property));
        top.keys.add(property);
        pendingKey = property;
      },
      onLiteralValue: () => void valuePath(),
      onError: (code, offset, _length, line, column) => {
        if (reported || !onSyntaxError) return;
        reported = true;
        onSyntaxError(SYNTAX_PROBLEMS[code] ?? 'malformed JSON', line + 1, column + 1, offset);
      },
    },
    { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false },
  );
  return duplicates;
}

function describeSyntaxError(text: string, fallback: string): string {
  if (text.trim() === '') return 'error decoding JSON body: the body is empty';
  let message: string | undefined;
  scanJson(text, (problem, line, column, offset) => {
    const found = offset < text.length ? ` (found ${JSON.stringify(text[offset])})` : ' (found the end of the body)';
    message = `error decoding JSON body: ${problem}${found} at line ${line} column ${column}`;
  });
  return message ?? `error decoding JSON body: ${fallback}`;
}

/** Parses JSON text; throws StatusError 400 naming the problem and its position. */
export function decodeJsonText(text: string, opts: DecodeOptions = {}): DecodeResult {
  assertNestingWithin(text, MAX_NESTING_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw errors.badRequest(describeSyntaxError(text, (e as Error).message));
  }
  const duplicateFields = opts.reportDuplicates === false || !mayHaveDuplicates(text, value) ? [] : scanJson(text);
  return { value, duplicateFields };
}

/**
 * How deep a body may nest. Upstream's decoders allow 10,000 levels, but everything here past decoding (validation,
 * pruning, patches, managed fields, the YAML reader and encoders) walks values recursively, and a few thousand
 * levels already overflow the stack in some of them; no real object comes near a thousand.
 */
export const MAX_NESTING_DEPTH = 1000;

/**
 * Refuses text whose arrays and objects nest deeper than `limit`, naming where the limit was passed. Only the
 * brackets outside strings count; strings are skipped whole, so the scan is linear and cheap beside the parse.
 */
export function assertNestingWithin(text: string, limit: number): void {
  // Each level needs an opening bracket of its own: shorter text cannot be too deep.
  if (text.length <= limit) return;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = closingQuote(text, i);
      if (i < 0) return;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) throw tooDeep(text, i, limit);
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

function tooDeep(text: string, offset: number, limit: number): Error {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  const error = errors.badRequest(
    `error decoding JSON body: exceeded max depth of ${limit} at line ${line} column ${column}`,
  );
  return Object.assign(error, { nestingTooDeep: true });
}

/** Whether an error is the refusal of a body nested too deep (which the YAML reader must not retry as YAML). */
export function isNestingTooDeep(e: unknown): boolean {
  return (e as { nestingTooDeep?: boolean } | null)?.nestingTooDeep === true;
}

/**
 * The index of the quote closing the string that opens at `open` (the next one not escaped by an odd run of
 * backslashes), or -1 when the string never closes.
 */
function closingQuote(text: string, open: number): number {
  let close = text.indexOf('"', open + 1);
  while (close >= 0) {
    let slashes = 0;
    while (text.charCodeAt(close - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return close;
    close = text.indexOf('"', close + 1);
  }
  return -1;
}

/**
 * Whether the text names more keys than the parsed value holds, which only a repeated key explains: in JSON that
 * parsed, every ':' outside a string separates one key from its value, and JSON.parse keeps one property per
 * distinct key. Counting both is far cheaper than scanJson's full walk, which then only runs to find the paths.
 */
function mayHaveDuplicates(text: string, value: unknown): boolean {
  return countKeysInText(text) > countKeys(value);
}

function countKeysInText(text: string): number {
  let colons = 0;
  // Each region of the text is searched once: a colon found beyond the current string stays pending until the scan
  // reaches it, so that a long run of strings without colons costs linear time, not quadratic.
  let colon = -1;
  let i = 0;
  for (;;) {
    const quote = text.indexOf('"', i);
    const stop = quote < 0 ? text.length : quote;
    if (colon < i) colon = nextColon(text, i);
    while (colon < stop) {
      colons++;
      colon = nextColon(text, colon + 1);
    }
    if (quote < 0) return colons;
    const close = closingQuote(text, quote);
    if (close < 0) return colons;
    i = close + 1;
  }
}

/** The next ':' at or after `from`, or the text's length when there is none (so that it is never searched again). */
function nextColon(text: string, from: number): number {
  const at = text.indexOf(':', from);
  return at < 0 ? text.length : at;
}

function countKeys(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const item of value) count += countKeys(item);
    return count;
  }
  for (const key in value) count += 1 + countKeys((value as Record<string, unknown>)[key]);
  return count;
}

function encodeJson(value: unknown, pretty?: boolean): string {
  // Like Go's json.Encoder, a compact document ends with a newline; an indented one does not, as upstream's
  // MarshalIndent. `undefined` has no JSON form, null stands in.
  return pretty ? JSON.stringify(value ?? null, null, 2) : `${JSON.stringify(value ?? null)}\n`;
}

/**
 * A list (or Table) as pieces whose concatenation is byte for byte what encode(list, { pretty }) gives, encoded lazily
 * one piece at a time: a 20 MB list streamed from this never exists as one string (nor one Buffer), and no chunk's
 * string is large. Only for answers whose elements field is last (list-chunks.ts); otherwise undefined.
 */
function encodeJsonList(
  list: ListValue,
  encodedItem?: (item: unknown) => Buffer | undefined,
  opts?: { pretty?: boolean },
): Iterable<Buffer> | undefined {
  const field = elementsField(list);
  if (field === undefined) return undefined;
  if (opts?.pretty) return encodePrettyJsonList(list, field);
  const { [field]: itemsValue, ...rest } = list;
  const items = itemsValue as unknown[];
  const head = JSON.stringify(rest);
  /** An item's ready-made document without its closing newline, or undefined. */
  const ready = (item: unknown): Buffer | undefined => {
    const bytes = encodedItem?.(item);
    return bytes && bytes[bytes.length - 1] === NEWLINE ? bytes.subarray(0, -1) : undefined;
  };
  function* chunks(): Generator<Buffer> {
    yield Buffer.from(`${head === '{}' ? '{' : `${head.slice(0, -1)},`}${JSON.stringify(field)}:[`);
    // Items per chunk follow the size of the items encoded so far.
    let count = 16;
    for (let i = 0; i < items.length;) {
      if (ready(items[i])) {
        // A run of ready items goes out as the items' own bytes, uncopied: whoever joins the pieces copies once.
        for (let bytes = ready(items[i]); bytes; bytes = i < items.length ? ready(items[i]) : undefined) {
          if (i > 0) yield COMMA;
          yield bytes;
          i++;
        }
        continue;
      }
      let end = i + 1;
      while (end < items.length && end - i < count && !ready(items[end])) end++;
      const text = JSON.stringify(items.slice(i, end));
      yield Buffer.from(`${i === 0 ? '' : ','}${text.slice(1, -1)}`);
      count = nextChunkCount(end - i, text.length);
      i = end;
    }
    yield Buffer.from(']}\n');
  }
  return chunks();
}

/**
 * The indented form, as JSON.stringify(list, null, 2) writes it: each run of elements is indented as an array of its
 * own, then moved one level in (a JSON string holds no raw newline, so every line break is the encoder's).
 */
function encodePrettyJsonList(list: ListValue, field: string): Iterable<Buffer> {
  const { [field]: itemsValue, ...rest } = list;
  const items = itemsValue as unknown[];
  const head = JSON.stringify(rest, null, 2);
  function* chunks(): Generator<Buffer> {
    if (items.length === 0) {
      yield Buffer.from(JSON.stringify(list, null, 2));
      return;
    }
    yield Buffer.from(`${head === '{}' ? '{' : `${head.slice(0, -2)},`}\n  ${JSON.stringify(field)}: [\n`);
    let count = 16;
    for (let i = 0; i < items.length;) {
      const end = Math.min(items.length, i + count);
      const text = JSON.stringify(items.slice(i, end), null, 2);
      yield Buffer.from(`${i === 0 ? '' : ',\n'}${text.slice(2, -2).replace(LINE_START, '  ')}`);
      count = nextChunkCount(end - i, text.length);
      i = end;
    }
    yield Buffer.from('\n  ]\n}');
  }
  return chunks();
}

const LINE_START = /^/gm;
const NEWLINE = 0x0a;
const COMMA = Buffer.from(',');

export function createJsonSerializer(): Serializer {
  return {
    mediaType: 'application/json',
    aliases: [],
    encode: (value, opts) => Buffer.from(encodeJson(value, opts?.pretty)),
    encodeList: encodeJsonList,
    decode: (body, opts) => decodeJsonText(body.toString('utf8'), opts),
    streamMediaType: 'application/json',
    // One event per line: clients split the stream on newlines (JSON has no raw newline inside a document).
    encodeWatchEvent: (event) => Buffer.from(`${JSON.stringify({ type: event.type, object: event.object })}\n`),
  } satisfies Serializer;
}
