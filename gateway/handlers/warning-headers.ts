// `Warning: 299 - "text"` response headers, bounded and encoded as kube-apiserver's warning recorder does them: the
// same text once per response, 4096 characters of text in all, and once past that every warning cut to 256
// characters and the ones arriving after the total is reached dropped. The text goes out as its UTF-8 bytes with
// only `"` and `\` escaped; a text that is not well-formed Unicode or holds a control character is dropped. A header
// value built this way can always be set: nothing that follows a committed write can fail on it.
import type { Context } from 'koa';

const TOTAL_CHARACTERS = 4 * 1024;
const ITEM_CHARACTERS = 256;
const CONTROL_CHARACTER = /\p{Cc}/u;
/** A surrogate without its other half: such a string has no UTF-8 form. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** One response's warnings. Characters are counted as code points, as upstream counts runes. */
export class WarningRecorder {
  private readonly seen = new Set<string>();
  private readonly ordered: string[] = [];
  private written = 0;
  private truncating = false;
  /** The header values, in order. */
  readonly values: string[] = [];

  add(text: string): void {
    if (text === '' || (this.truncating && this.written >= TOTAL_CHARACTERS)) return;
    if (this.seen.has(text)) return;
    this.seen.add(text);
    this.ordered.push(text);
    const [shown, length] = this.truncating ? cut(text) : [text, codePoints(text)];
    const value = headerValue(shown);
    if (value === undefined) return;
    if (this.written + length <= TOTAL_CHARACTERS || this.truncating) {
      this.written += length;
      this.values.push(value);
      return;
    }
    // Over the total for the first time: every warning so far is written again, cut.
    this.truncating = true;
    this.written = 0;
    this.values.length = 0;
    for (const earlier of this.ordered) {
      const [cutText, cutLength] = cut(earlier);
      const cutValue = headerValue(cutText);
      if (cutValue === undefined) continue;
      this.written += cutLength;
      this.values.push(cutValue);
    }
  }
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The text cut to ITEM_CHARACTERS code points, and its length in them. */
function cut(text: string): [string, number] {
  const length = codePoints(text);
  if (length <= ITEM_CHARACTERS) return [text, length];
  return [Array.from(text).slice(0, ITEM_CHARACTERS).join(''), ITEM_CHARACTERS];
}

/**
 * `299 - "text"` as a header value whose characters are the UTF-8 bytes of the text (Node writes a header value's
 * characters as single bytes, over HTTP/1.1 and HTTP/2 alike), or undefined for a text that cannot be a warning.
 */
export function headerValue(text: string): string | undefined {
  if (LONE_SURROGATE.test(text) || CONTROL_CHARACTER.test(text)) return undefined;
  const quoted = `299 - "${text.replace(/["\\]/g, '\\$&')}"`;
  return Buffer.from(quoted, 'utf8').toString('latin1');
}

const RECORDER = Symbol('warnings');

/** Adds warnings to the response's Warning headers (the recorder lives as long as the request). */
export function addWarnings(ctx: Context, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  const state = ctx.state as { [RECORDER]?: WarningRecorder };
  const recorder = (state[RECORDER] ??= new WarningRecorder());
  for (const w of warnings) recorder.add(w);
  if (recorder.values.length > 0) ctx.set('Warning', recorder.values);
}
