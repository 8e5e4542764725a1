// What Go's decoders say about bytes they refuse, for the places kube-apiserver passes their messages on verbatim:
// the []byte fields of a typed object (encoding/base64's StdEncoding) and JSON payloads a validator unmarshals
// (encoding/json's scanner, which checks the whole input before decoding and names the first offending character).

const BASE64_ALPHABET = /[A-Za-z0-9+/]/;
const isNewline = (c: string): boolean => c === '\n' || c === '\r';

/**
 * The byte offset StdEncoding.Decode reports as CorruptInputError, or -1 when the text decodes. Padding is required,
 * line breaks anywhere are skipped, and anything after the padding is trailing garbage.
 */
export function corruptBase64Offset(src: string): number {
  const n = src.length;
  let si = 0;
  for (;;) {
    for (let j = 0; j < 4; j++) {
      if (si === n) return j === 0 ? -1 : si - j;
      const c = src[si++];
      if (BASE64_ALPHABET.test(c)) continue;
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== '=' || j < 2) return si - 1;
      if (j === 2) {
        // "==" is due and the first "=" is consumed.
        while (si < n && isNewline(src[si])) si++;
        if (si === n) return n;
        if (src[si] !== '=') return si - 1;
        si++;
      }
      while (si < n && isNewline(src[si])) si++;
      return si < n ? si : -1;
    }
  }
}

/** Go's quoteChar: a character in single quotes, escaped as strconv.Quote escapes it. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

class JsonSyntaxError extends Error {}

const END = 'unexpected end of JSON input';

/**
 * Go's scanner refuses nesting past 10,000 levels; this walk recurses per level, so it stops far sooner (the request
 * decoders' own bound), with Go's words, rather than overflow the stack on a hostile value.
 */
const MAX_DEPTH = 1000;

/** Recursive descent over the input with the scanner's error contexts; returns the top-level value's JSON type. */
function scanJson(text: string): string {
  let i = 0;
  let depth = 0;
  const fail = (context: string): never => {
    throw new JsonSyntaxError(i >= text.length ? END : `invalid character ${quoteChar(text[i])} ${context}`);
  };
  const skipSpace = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text[i] ?? '')) fail('in numeric literal');
    while (/[0-9]/.test(text[i] ?? '')) i++;
  };
  const string = (): void => {
    i++;
    for (;;) {
      if (i >= text.length) fail('');
      const c = text[i];
      if (c === '"') {
        i++;
        return;
      }
      if (c < ' ') fail('in string literal');
      if (c === '\\') {
        i++;
        if (i >= text.length) fail('');
        if (text[i] === 'u') {
          for (let k = 1; k <= 4; k++) {
            i++;
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail('in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(text[i])) {
          fail('in string escape code');
        }
      }
      i++;
    }
  };
  /** An object or array body after its opening character: items separated by commas up to `close`. */
  const sequence = (close: string, afterItem: string, item: () => void): void => {
    i++;
    skipSpace();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      item();
      skipSpace();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ',') fail(afterItem);
      i++;
    }
  };
  const member = (): void => {
    skipSpace();
    if (text[i] !== '"') fail('looking for beginning of object key string');
    string();
    skipSpace();
    if (text[i] !== ':') fail('after object key');
    i++;
    value();
  };
  const nested = (close: string, afterItem: string, item: () => unknown): void => {
    if (++depth > MAX_DEPTH) throw new JsonSyntaxError('exceeded max depth');
    sequence(close, afterItem, item);
    depth--;
  };
  const value = (): string => {
    skipSpace();
    const c = text[i];
    if (c === '{') {
      nested('}', 'after object key:value pair', member);
      return 'object';
    }
    if (c === '[') {
      nested(']', 'after array element', value);
      return 'array';
    }
    if (c === '"') {
      string();
      return 'string';
    }
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
      if (c === '-') i++;
      if (text[i] === '0') i++;
      else digits();
      if (text[i] === '.') {
        i++;
        digits();
      }
      if (text[i] === 'e' || text[i] === 'E') {
        i++;
        if (text[i] === '+' || text[i] === '-') i++;
        digits();
      }
      return 'number';
    }
    for (const literal of ['true', 'false', 'null']) {
      if (c !== literal[0]) continue;
      for (let k = 1; k < literal.length; k++) {
        i++;
        if (text[i] !== literal[k]) fail(`in literal ${literal} (expecting '${literal[k]}')`);
      }
      i++;
      return literal === 'null' ? 'null' : 'bool';
    }
    return fail('looking for beginning of value');
  };
  const type = value();
  skipSpace();
  if (i < text.length) fail('after top-level value');
  return type;
}

/**
 * The error json.Unmarshal gives for these bytes into a map[string]interface{}, or undefined when it succeeds (a
 * JSON object or null).
 */
export function goJsonObjectError(bytes: Buffer): string | undefined {
  // Latin-1 keeps one character per byte, so offsets and the offending character are the scanner's.
  const text = bytes.toString('latin1');
  let type: string;
  try {
    type = scanJson(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e.message;
    throw e;
  }
  if (type === 'object' || type === 'null') return undefined;
  return `json: cannot unmarshal ${type} into Go value of type map[string]interface {}`;
}
