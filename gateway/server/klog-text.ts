// klog's text format, which kube-apiserver writes by default and operators' tooling (grep on the severity letter,
// log shippers' klog parsers) expects:
//
//   I1127 01:02:03.456789   12345] "message" key="value" count=3
//
// The header is klog's (severity letter, month and day, local time to the microsecond, process id) without its
// `file:line`: Node can only find the caller by building a stack trace on every call, which is not worth it.
// Values follow klog's structured rendering: strings quoted, numbers and booleans bare, multi-line strings (a stack
// trace) as `key=<` followed by tab-indented lines and ` >`.

/** The severity letter of each pino level label; debug and trace are klog Info lines of a higher verbosity. */
const SEVERITY: Record<string, string> = { trace: 'I', debug: 'I', info: 'I', warn: 'W', error: 'E', fatal: 'F' };

/** Keys of a pino record that the header already shows. */
const HEADER_KEYS = new Set(['ts', 'level', 'v', 'msg']);

const two = (n: number): string => String(n).padStart(2, '0');

/** `I1127 01:02:03.456789   12345] ` for a time in seconds since the epoch (microseconds in the fraction). */
export function klogHeader(severity: string, epochSeconds: number, pid: number): string {
  const totalMicros = Math.round(epochSeconds * 1e6);
  const micros = totalMicros % 1e6;
  const at = new Date(Math.floor(totalMicros / 1000));
  const date = `${two(at.getMonth() + 1)}${two(at.getDate())}`;
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}.${String(micros).padStart(6, '0')}`;
  return `${severity}${date} ${time} ${String(pid).padStart(7)}] `;
}

function multiLine(text: string): string {
  return `<\n${text
    .split('\n')
    .map((line) => `\t${line}`)
    .join('\n')}\n >`;
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value.includes('\n') ? multiLine(value) : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? 'null';
}

/** `err` as klog shows an error (its message), with the stack (where there is one) on lines of its own. */
function renderError(err: unknown): string {
  if (typeof err !== 'object' || err === null) return ` err=${renderValue(err)}`;
  const { message, stack } = err as { message?: unknown; stack?: unknown };
  const shown = ` err=${renderValue(typeof message === 'string' ? message : JSON.stringify(err))}`;
  return typeof stack === 'string' && stack.includes('\n') ? `${shown} stack=${multiLine(stack)}` : shown;
}

/** One pino record (already parsed from its JSON line) as one klog text entry, without the final newline. */
export function formatKlogText(record: Record<string, unknown>, pid: number = process.pid): string {
  const severity = SEVERITY[String(record.level)] ?? 'I';
  const ts = typeof record.ts === 'number' ? record.ts : Date.now() / 1000;
  let line = klogHeader(severity, ts, pid) + JSON.stringify(String(record.msg ?? ''));
  for (const [key, value] of Object.entries(record)) {
    if (HEADER_KEYS.has(key) || value === undefined) continue;
    line += key === 'err' ? renderError(value) : ` ${key}=${renderValue(value)}`;
  }
  return line;
}
