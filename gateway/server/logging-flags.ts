// The logging flags, spelled as klog and component-base spell them for kube-apiserver: -v/--v and
// --logging-format. Kept apart from options.ts, which spreads the table into its own and calls the parser.
import type { FlagSpec, OptionsError } from './flag-primitives.js';
import { LOGGING_FORMATS, type LoggingFormat } from './logger.js';

export const LOGGING_FLAGS: Record<string, FlagSpec> = {
  v: {
    reference:
      "log verbosity, also `-v N` (klog's flag): 0 and 1 info, 2 to 4 debug (a line per request, clients ending their requests), 5 and above trace (request headers, credentials redacted); errors and warnings are always written. See [operations.md](operations.md#logging)",
    kind: 'int',
    default: '0',
    usage:
      'Log verbosity, also -v N: 0 and 1 info, 2 to 4 debug (one line per request, clients ending their requests), 5 and above trace (request headers, credentials redacted). Errors and warnings are always written.',
  },
  'logging-format': {
    reference:
      '`text` (klog\'s lines: `I1127 01:02:03.456789   12345] "message" key="value"`) or `json` (one object a line with `ts`, `level`, `v`, `msg`)',
    kind: 'string',
    default: 'text',
    usage: `Log format: ${LOGGING_FORMATS.join(' or ')} (klog's text lines, or one JSON object per line).`,
  },
};

export interface LoggingOptions {
  verbosity: number;
  loggingFormat: LoggingFormat;
}

/** pflag's shorthand for --v: `-v 3`, `-v=3` and `-v3` become `--v 3`, `--v=3`, `--v=3`. */
export function expandVerbosityShorthand(arg: string): string {
  if (arg === '-v') return '--v';
  if (arg.startsWith('-v=')) return `-${arg}`;
  return /^-v\d+$/.test(arg) ? `--v=${arg.slice(2)}` : arg;
}

export function parseLoggingOptions(
  last: (name: string) => string,
  parseInt: (flag: string, raw: string, min: number, max: number) => number,
  invalid: (flag: string, value: string, why: string) => OptionsError,
): LoggingOptions {
  const format = last('logging-format');
  if (!(LOGGING_FORMATS as readonly string[]).includes(format)) {
    throw invalid('logging-format', format, `unsupported log format (supported: ${LOGGING_FORMATS.join(', ')})`);
  }
  return { verbosity: parseInt('v', last('v'), 0, 2 ** 31 - 1), loggingFormat: format as LoggingFormat };
}
