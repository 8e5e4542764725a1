// Go's time.Duration text form, which configuration files use (`5m`, `30s`, `1m30s`, `-1s`): parsing to
// milliseconds, and printing back the way Duration.String() does, so that messages quote values as upstream does.
const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds; throws `time: invalid duration "x"`. */
export function parseGoDuration(raw: string): number {
  let text = raw;
  let sign = 1;
  if (text.startsWith('-') || text.startsWith('+')) {
    if (text[0] === '-') sign = -1;
    text = text.slice(1);
  }
  if (text === '0') return 0;
  if (text === '') throw new Error(`time: invalid duration ${JSON.stringify(raw)}`);
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) throw new Error(`time: invalid duration ${JSON.stringify(raw)}`);
    total += Number(m[1]) * UNITS[m[2]];
    pos = re.lastIndex;
  }
  return sign * total;
}

function trimFraction(n: number): string {
  return String(Number(n.toFixed(9)));
}

/** Duration.String(): `0s`, `500ms`, `45s`, `1m0s`, `1h30m0s`, `-5s`. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return rest < 1 ? `${sign}${trimFraction(rest * 1000)}µs` : `${sign}${trimFraction(rest)}ms`;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = `${trimFraction(rest / 1000)}s`;
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}
