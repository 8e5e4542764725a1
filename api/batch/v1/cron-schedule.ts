// Syntax checks for CronJob schedules and time zones, matching what the cron controller's parser accepts:
// five fields or a predefined @macro, names for months and weekdays, ranges, lists and steps.

const MACROS = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly']);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTHS },
  { name: 'day of week', min: 0, max: 6, names: DAYS },
];

function parseValue(text: string, f: FieldSpec): number | null {
  if (/^\d+$/.test(text)) return Number(text);
  const i = f.names?.indexOf(text.toLowerCase()) ?? -1;
  if (i < 0) return null;
  return f.name === 'month' ? i + 1 : i;
}

function checkField(text: string, f: FieldSpec): string | null {
  for (const part of text.split(',')) {
    const [range, step, extra] = part.split('/');
    if (extra !== undefined || range === undefined || range === '') return `failed to parse ${f.name}: ${part}`;
    if (step !== undefined && (!/^\d+$/.test(step) || Number(step) === 0)) return `failed to parse int from ${step}`;
    if (range === '*' || range === '?') continue;
    const bounds = range.split('-');
    if (bounds.length > 2) return `too many hyphens: ${range}`;
    const values = bounds.map((b) => parseValue(b, f));
    if (values.some((v) => v === null)) return `failed to parse int from ${range}`;
    const [lo, hi = lo] = values as number[];
    if (lo < f.min) return `beginning of range (${lo}) below minimum (${f.min}): ${range}`;
    if (hi > f.max) return `end of range (${hi}) above maximum (${f.max}): ${range}`;
    if (lo > hi) return `beginning of range (${lo}) beyond end of range (${hi}): ${range}`;
  }
  return null;
}

/** Problems with a schedule string; empty when the cron controller can parse it. */
export function scheduleProblems(schedule: string): string[] {
  const s = schedule.trim();
  if (/^(CRON_)?TZ=/.test(s)) return ['cannot use TZ or CRON_TZ in schedule, use timeZone field instead'];
  if (s.startsWith('@')) return MACROS.has(s) ? [] : [`unparseable schedule: unrecognized descriptor: ${s}`];
  const fields = s.split(/\s+/);
  if (fields.length !== 5) return [`unparseable schedule: expected exactly 5 fields, found ${fields.length}: ${s}`];
  for (let i = 0; i < 5; i++) {
    const problem = checkField(fields[i], FIELDS[i]);
    if (problem) return [`unparseable schedule: ${problem}`];
  }
  return [];
}

let zones: Set<string> | undefined;

/** Names from the time-zone database (canonical names plus the aliases ICU resolves, such as US/Eastern). */
export function isKnownTimeZone(tz: string): boolean {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC', 'Etc/UTC']);
  if (zones.has(tz)) return true;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
