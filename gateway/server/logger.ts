// The server's leveled logger: pino, configured from -v/--v and --logging-format, one instance per server so that
// several servers in one process (the integration tests) each keep their own level and destination.
//
// klog verbosity onto pino levels: errors and warnings are always written; V(0) and V(1) are info, V(2) to V(4)
// debug (routine client endings, one line per request), V(5) and above trace (request headers, redacted). A record's
// `v` is the lowest -v that shows it, as klog's JSON output says the verbosity of each Info line.
import { performance } from 'node:perf_hooks';
import { pino, type Logger } from 'pino';
import { formatKlogText } from './klog-text.js';

export type { Logger };
export type LoggingFormat = 'text' | 'json';
export const LOGGING_FORMATS: readonly LoggingFormat[] = ['text', 'json'];

export interface LoggerOptions {
  /** -v/--v (klog verbosity); default 0. */
  verbosity?: number;
  /** --logging-format; default text. */
  format?: LoggingFormat;
  /** Where each finished entry goes, without its newline (default: stderr, where klog writes). */
  sink?: (entry: string) => void;
}

type PinoLevel = 'info' | 'debug' | 'trace';

export function pinoLevelForVerbosity(verbosity: number): PinoLevel {
  if (verbosity >= 5) return 'trace';
  if (verbosity >= 2) return 'debug';
  return 'info';
}

/** The lowest -v at which a record of this pino level is written; undefined for warnings and errors (always). */
export function verbosityOfLevel(label: string): number | undefined {
  switch (label) {
    case 'trace':
      return 5;
    case 'debug':
      return 2;
    case 'info':
      return 0;
    default:
      return undefined;
  }
}

/**
 * Keys whose values are credentials, at the top of a record or one level down (`headers.authorization`). Messages
 * themselves are not scanned: callers put credentials neither in messages nor in values under other keys.
 */
const SECRET_KEYS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'token',
  'password',
  'secret',
  'key',
  'privateKey',
  'clientKey',
  'bearerToken',
];
export const REDACTED_PATHS: string[] = SECRET_KEYS.flatMap((key) => {
  const member = /^[A-Za-z_$][\w$]*$/.test(key) ? key : `["${key}"]`;
  return member.startsWith('[') ? [member, `*${member}`] : [member, `*.${member}`];
});

/**
 * Wall-clock milliseconds (the monotonic clock drifts from it over a long uptime) with the sub-millisecond digits of
 * the monotonic clock, which klog's microseconds want and Date cannot give.
 */
function epochSeconds(): number {
  return (Date.now() + (performance.now() % 1)) / 1000;
}

function stderrSink(entry: string): void {
  process.stderr.write(`${entry}\n`);
}

export function createLogger(opts: LoggerOptions = {}): Logger {
  const sink = opts.sink ?? stderrSink;
  const text = (opts.format ?? 'text') === 'text';
  const destination = {
    write(json: string): void {
      // pino ends every record with a newline; a sink takes entries without it.
      const record = json.endsWith('\n') ? json.slice(0, -1) : json;
      sink(text ? formatKlogText(JSON.parse(record) as Record<string, unknown>) : record);
    },
  };
  return pino(
    {
      level: pinoLevelForVerbosity(opts.verbosity ?? 0),
      // klog's JSON keys: no pid or hostname, `ts` in seconds, `v` for the verbosity of Info lines.
      base: null,
      timestamp: () => `,"ts":${epochSeconds().toFixed(6)}`,
      formatters: {
        level: (label) => {
          const v = verbosityOfLevel(label);
          return v === undefined ? { level: label } : { level: label, v };
        },
      },
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
    },
    destination,
  );
}

/**
 * The `(line) => void` callbacks that modules below the gateway take (storage, authorizers, controllers), which
 * cannot import this module: their lines become info entries, and those they mark with an `error: ` or `warning: `
 * prefix errors and warnings. A plain callback keeps them free of the logger and easy to test with an array.
 */
export function lineLog(logger: Logger): (line: string) => void {
  return (line) => {
    if (line.startsWith('error: ')) logger.error(line.slice('error: '.length));
    else if (line.startsWith('warning: ')) logger.warn(line.slice('warning: '.length));
    else logger.info(line);
  };
}
