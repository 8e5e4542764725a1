// The primitives every flag parser shares: the error type, the spec of one flag and the value parsers. They live
// apart from options.ts so that the modules options.ts composes (controllers, OIDC, service accounts, authorization)
// can use them without importing options.ts back.
import { parseGoDuration } from '../../api/meta/go-duration.js';

export class OptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OptionsError';
  }
}

export type FlagKind = 'string' | 'int' | 'float' | 'bool' | 'duration' | 'list';

export interface FlagSpec {
  kind: FlagKind;
  /** One line for --help. */
  usage: string;
  default?: string;
  /** The flag's cell in docs/flags.md (Markdown), where the page says more than the usage line. */
  reference?: string;
  /** The default as docs/flags.md shows it, where it is not a literal value (computed, generated). */
  referenceDefault?: string;
}

/**
 * Go's time.ParseDuration, in milliseconds: `10s`, `500ms`, `1m30s`, `1.5h`, `0`. A sign is refused: no duration
 * flag has a meaning for a negative wait.
 */
export function parseDuration(raw: string): number {
  if (/^[-+]/.test(raw)) throw new Error(`time: invalid duration ${JSON.stringify(raw)}`);
  return parseGoDuration(raw);
}

export function invalid(flag: string, value: string, why: string): OptionsError {
  return new OptionsError(`invalid argument "${value}" for "--${flag}" flag: ${why}`);
}

export function parseIntFlag(flag: string, raw: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(raw)) throw invalid(flag, raw, `strconv.ParseInt: parsing "${raw}": invalid syntax`);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw invalid(flag, raw, `must be between ${min} and ${max}`);
  return n;
}

export function parseFloatFlag(flag: string, raw: string): number {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw))
    throw invalid(flag, raw, `strconv.ParseFloat: parsing "${raw}": invalid syntax`);
  return Number(raw);
}

export function parseBoolFlag(flag: string, raw: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  throw invalid(flag, raw, `strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

export function parseDurationFlag(flag: string, raw: string): number {
  try {
    return parseDuration(raw);
  } catch (e) {
    throw invalid(flag, raw, (e as Error).message);
  }
}
