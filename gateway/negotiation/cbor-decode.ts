// Reading CBOR request bodies (RFC 8949) with the rules kube-apiserver's CBOR decoder applies (apimachinery's
// serializer/cbor "modes"), so that a body means here what it means there:
// - exactly one data item; bytes after it are an error;
// - tags are accepted and stand for their content (the self-described tag 55799 first of all), except that the
//   date/time tags must enclose what RFC 8949 says and become RFC 3339 strings (tag 0: a valid RFC 3339 text
//   string, kept as sent; tag 1: epoch seconds, rendered in UTC), and bignums (tags 2 and 3) are refused: they have
//   no JSON form;
// - map keys are text strings; a key repeated within one map is reported like a JSON duplicate field, so that
//   fieldValidation decides (Strict: 400, Warn: a warning, Ignore: the last one wins) as the issue asks for every
//   codec (kube-apiserver's CBOR refuses such maps outright);
// - text strings must be valid UTF-8; byte strings become strings, as upstream decodes them into interface{};
// - integers outside int64 are refused (inside it they become numbers, as the JSON path's numbers do), as are NaN,
//   infinities, undefined and other simple values;
// - at most 64 levels of nesting and 1024 elements per array or map, upstream's limits.
// cborg does the parsing; a tokenizer wrapped around its own checks what cborg's options cannot express and names
// the place of a problem as field errors do (`metadata.labels.app`).
import { isUtf8 } from 'node:buffer';
import { decodeFirst, Token, Tokenizer, Type, type DecodeOptions as CborgOptions, type TagDecoder } from 'cborg';
import { errors, isStatusError } from '../../api/meta/errors.js';
import type { DecodeResult } from './serializer.js';

/** RFC 8949 §3.4.6: marks a data item as CBOR; kube-apiserver writes it before every body. */
export const SELF_DESCRIBED_TAG = 55799;
export const MAX_NESTED_LEVELS = 64;
export const MAX_CONTAINER_ELEMENTS = 1024;

const TAG_DATE_TIME = 0;
const TAG_EPOCH = 1;
const TAG_BIGNUMS = new Set([2, 3]);
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

const OPTIONS: CborgOptions = {
  strict: false,
  allowIndefinite: true,
  allowUndefined: false,
  allowNaN: false,
  allowInfinity: false,
  // Integers past 2^53 arrive as bigints so that the int64 range can be checked before they become numbers.
  allowBigInt: true,
  // Reported by the tokenizer below (fieldValidation decides); the last value wins, as in JSON.
  rejectDuplicateMapKeys: false,
  tags: allTags(),
};

/** The value of a tag is its content, the epoch-seconds time tag aside (the tokenizer has checked both). */
function allTags(): CborgOptions['tags'] {
  const content: TagDecoder = (decode) => decode();
  const epoch: TagDecoder = (decode) => rfc3339FromEpoch(decode() as number);
  // cborg looks decoders up by tag number; a proxy answers for every number.
  return new Proxy({}, { get: (_target, key) => (key === String(TAG_EPOCH) ? epoch : content) });
}

/** RFC 3339 with as many fractional digits as needed (Go's RFC3339Nano), in UTC. */
function rfc3339FromEpoch(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.?0+Z$/, 'Z');
}

interface Frame {
  isMap: boolean;
  /** Elements (arrays) or pairs (maps) still expected; Infinity for indefinite length until the break. */
  remaining: number;
  path: string;
  count: number;
  awaitingKey: boolean;
  key: string;
  keys: Set<string>;
}

function bad(message: string): Error {
  return errors.badRequest(`error decoding CBOR body: ${message}`);
}

function joinPath(frame: Frame | undefined, segment: string | number): string {
  if (!frame) return '';
  if (typeof segment === 'number') return `${frame.path}[${segment}]`;
  return frame.path ? `${frame.path}.${segment}` : segment;
}

/** Bytes of the head of a data item whose first byte is `initial` (RFC 8949 §3). */
function headLength(initial: number): number {
  const minor = initial & 0x1f;
  return minor < 24 ? 1 : 1 + (1 << (minor - 24));
}

/**
 * Passes cborg's tokens through, checking each against the rules above and tracking where in the document it is.
 * Byte strings and int64 bigints are handed on as the strings and numbers they decode to.
 */
class CheckingTokenizer {
  private readonly inner: Tokenizer;
  private readonly frames: Frame[] = [];
  /** The tag enclosing the data item that comes next, if any. */
  private tag: number | undefined;
  /** Paths of repeated map keys, as the JSON decoder reports duplicate fields. */
  readonly duplicates: string[] = [];

  constructor(private readonly data: Uint8Array) {
    this.inner = new Tokenizer(data, OPTIONS);
  }

  done(): boolean {
    return this.inner.done();
  }

  pos(): number {
    return this.inner.pos();
  }

  next(): Token {
    const start = this.inner.pos();
    let token = this.inner.next();
    const type = token.type;
    const top = this.frames[this.frames.length - 1];
    if (Type.equals(type, Type.tag)) {
      const tag = Number(token.value);
      if (TAG_BIGNUMS.has(tag)) throw bad(`unsupported CBOR tag ${tag} (bignum)${this.at(top)}`);
      // A tag encloses the next data item, which is what counts as the element.
      this.tag = tag;
      return token;
    }
    const tag = this.tag;
    this.tag = undefined;
    if (
      tag === TAG_DATE_TIME &&
      !(
        Type.equals(type, Type.string) &&
        RFC3339.test(token.value as string) &&
        !Number.isNaN(Date.parse(token.value as string))
      )
    ) {
      throw bad(`tag 0 must enclose an RFC 3339 date/time text string${this.at(top)}`);
    }
    if (
      tag === TAG_EPOCH &&
      !(Type.equals(type, Type.uint) || Type.equals(type, Type.negint) || Type.equals(type, Type.float))
    ) {
      throw bad(`tag 1 must enclose a number of seconds${this.at(top)}`);
    }
    if (Type.equals(type, Type.break)) {
      // Only an indefinite-length container may end here, and a map only between pairs (cborg would store the
      // break as a value).
      if (!top || top.remaining !== Infinity || (top.isMap && !top.awaitingKey))
        throw bad(`unexpected break${this.at(top)}`);
      this.frames.pop();
      this.completed();
      return token;
    }
    if (top?.isMap && top.awaitingKey) {
      if (!Type.equals(type, Type.string))
        throw bad(`map keys must be text strings, found ${this.describe(type)}${this.at(top)}`);
      this.checkText(token, start);
      const key = token.value as string;
      if (top.keys.has(key)) this.duplicates.push(joinPath(top, key));
      top.keys.add(key);
      top.key = key;
      this.completed();
      return token;
    }
    if (Type.equals(type, Type.string)) {
      this.checkText(token, start);
    } else if (Type.equals(type, Type.bytes)) {
      // Upstream decodes byte strings into interface{} as Go strings; JSON, and so everything downstream, holds text.
      token = new Token(Type.string, Buffer.from(token.value as Uint8Array).toString('utf8'), token.encodedLength);
    } else if (typeof token.value === 'bigint') {
      // cborg hands negative integers over with their sign already applied.
      const value = token.value;
      if (value < INT64_MIN || value > INT64_MAX) throw bad(`integer ${value} overflows int64${this.at(top)}`);
      token = new Token(type, Number(value), token.encodedLength);
    } else if (Type.equals(type, Type.array) || Type.equals(type, Type.map)) {
      return this.open(token, top);
    }
    this.completed();
    return token;
  }

  private open(token: Token, parent: Frame | undefined): Token {
    const isMap = Type.equals(token.type, Type.map);
    const remaining = token.value as number;
    if (this.frames.length >= MAX_NESTED_LEVELS)
      throw bad(`exceeded max nested level ${MAX_NESTED_LEVELS}${this.at(parent)}`);
    const path = parent ? (parent.isMap ? joinPath(parent, parent.key) : joinPath(parent, parent.count)) : '';
    const frame: Frame = { isMap, remaining, path, count: 0, awaitingKey: isMap, key: '', keys: new Set() };
    if (remaining !== Infinity && remaining > MAX_CONTAINER_ELEMENTS) {
      throw bad(
        `exceeded max number of elements ${MAX_CONTAINER_ELEMENTS} for CBOR ${isMap ? 'map' : 'array'}${path ? ` at ${path}` : ''}`,
      );
    }
    this.frames.push(frame);
    if (remaining === 0) {
      this.frames.pop();
      this.completed();
    }
    return token;
  }

  /** One data item ended (a key, a value or an element): advance the innermost container, closing it when full. */
  private completed(): void {
    for (;;) {
      const top = this.frames[this.frames.length - 1];
      if (!top) return;
      if (top.isMap && top.awaitingKey) {
        top.awaitingKey = false;
        return;
      }
      top.count++;
      if (top.isMap) top.awaitingKey = true;
      if (top.remaining === Infinity) {
        if (top.count > MAX_CONTAINER_ELEMENTS)
          throw bad(
            `exceeded max number of elements ${MAX_CONTAINER_ELEMENTS} for CBOR ${top.isMap ? 'map' : 'array'}${top.path ? ` at ${top.path}` : ''}`,
          );
        return;
      }
      if (top.count < top.remaining) return;
      this.frames.pop();
    }
  }

  /** cborg decodes text leniently (U+FFFD for bad sequences); only such a string needs its bytes checked. */
  private checkText(token: Token, start: number): void {
    const text = token.value as string;
    if (!text.includes('\uFFFD')) return;
    const bytes = this.data.subarray(start + headLength(this.data[start]), start + (token.encodedLength ?? 0));
    if (!isUtf8(bytes)) throw bad(`invalid UTF-8 in text string${this.at(this.frames[this.frames.length - 1])}`);
  }

  private at(frame: Frame | undefined): string {
    if (!frame) return '';
    const path = frame.isMap
      ? frame.awaitingKey
        ? frame.path
        : joinPath(frame, frame.key)
      : joinPath(frame, frame.count);
    return path ? ` at ${path}` : '';
  }

  private describe(type: Type): string {
    return (
      {
        uint: 'an integer',
        negint: 'an integer',
        bytes: 'a byte string',
        array: 'an array',
        map: 'a map',
        float: 'a float',
        true: 'a boolean',
        false: 'a boolean',
        null: 'null',
      }[type.name] ?? type.name
    );
  }
}

/**
 * Decodes one CBOR data item into a JSON value; throws StatusError 400 naming the problem for malformed, invalid or
 * unsupported input, and for bytes after the item. Repeated map keys come back in duplicateFields.
 */
export function decodeCbor(body: Uint8Array): DecodeResult {
  if (body.length === 0) throw bad('the body is empty');
  let value: unknown;
  let rest: Uint8Array;
  const tokenizer = new CheckingTokenizer(body);
  try {
    [value, rest] = decodeFirst(body, { ...OPTIONS, tokenizer });
  } catch (e) {
    if (isStatusError(e)) throw e;
    // cborg's messages start with its own prefix; stack overflows from absurd nesting land here too.
    const message = e instanceof Error ? e.message.replace(/^CBOR decode error:\s*/, '') : String(e);
    throw bad(message);
  }
  if (rest.length > 0)
    throw bad(`${rest.length} bytes of extraneous data starting at index ${body.length - rest.length}`);
  return { value, duplicateFields: tokenizer.duplicates };
}
