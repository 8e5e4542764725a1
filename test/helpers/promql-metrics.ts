// The metric names a PromQL expression reads, for checking dashboards and rules against what the server exports.
// Not a parser: a scanner that knows which identifiers are not metric names (functions, aggregation operators,
// keywords, label names in matchers and in by/without/on/ignoring/group_left/group_right lists), and skips strings,
// ranges, durations and numbers. An identifier called like a function that PromQL does not have is an error rather
// than a guess, so a misspelt function fails the check instead of passing as a metric nobody exports.

const FUNCTIONS = new Set([
  'abs',
  'absent',
  'absent_over_time',
  'acos',
  'acosh',
  'asin',
  'asinh',
  'atan',
  'atanh',
  'avg_over_time',
  'ceil',
  'changes',
  'clamp',
  'clamp_max',
  'clamp_min',
  'cos',
  'cosh',
  'count_over_time',
  'day_of_month',
  'day_of_week',
  'day_of_year',
  'days_in_month',
  'deg',
  'delta',
  'deriv',
  'end',
  'exp',
  'floor',
  'histogram_avg',
  'histogram_count',
  'histogram_fraction',
  'histogram_quantile',
  'histogram_stddev',
  'histogram_stdvar',
  'histogram_sum',
  'holt_winters',
  'hour',
  'idelta',
  'increase',
  'irate',
  'label_join',
  'label_replace',
  'last_over_time',
  'ln',
  'log10',
  'log2',
  'mad_over_time',
  'max_over_time',
  'min_over_time',
  'minute',
  'month',
  'pi',
  'predict_linear',
  'present_over_time',
  'quantile_over_time',
  'rad',
  'rate',
  'resets',
  'round',
  'scalar',
  'sgn',
  'sin',
  'sinh',
  'sort',
  'sort_by_label',
  'sort_by_label_desc',
  'sort_desc',
  'sqrt',
  'start',
  'stddev_over_time',
  'stdvar_over_time',
  'sum_over_time',
  'tan',
  'tanh',
  'time',
  'timestamp',
  'vector',
  'year',
]);

const AGGREGATIONS = new Set([
  'avg',
  'bottomk',
  'count',
  'count_values',
  'group',
  'limit_ratio',
  'limitk',
  'max',
  'min',
  'quantile',
  'stddev',
  'stdvar',
  'sum',
  'topk',
]);

/** Keywords followed by a parenthesized list of label names (optional after group_left and group_right). */
const LABEL_LIST_KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const OTHER_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan']);

const IDENTIFIER = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
// Numbers, durations (5m, 1h30m, 500ms), hexadecimal, exponents: whatever starts with a digit or a decimal point.
const NUMBER = /(?:\d|\.\d)[0-9a-zA-Z_.]*(?:[eE][+-]\d+)?/y;

function skipString(expr: string, at: number): number {
  const quote = expr[at];
  let i = at + 1;
  while (i < expr.length && expr[i] !== quote) i += expr[i] === '\\' && quote !== '`' ? 2 : 1;
  if (i >= expr.length) throw new Error(`unterminated string at ${at}: ${expr}`);
  return i + 1;
}

/** The index just past the bracket closing the one at `at`, strings inside skipped. */
function skipBracketed(expr: string, at: number): number {
  const open = expr[at];
  const close = ({ '{': '}', '[': ']', '(': ')' } as Record<string, string>)[open];
  let depth = 0;
  for (let i = at; i < expr.length;) {
    const c = expr[i];
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i);
      continue;
    }
    if (c === open) depth++;
    else if (c === close && --depth === 0) return i + 1;
    i++;
  }
  throw new Error(`unbalanced ${open} at ${at}: ${expr}`);
}

function skipSpace(expr: string, at: number): number {
  let i = at;
  while (i < expr.length && /\s/.test(expr[i])) i++;
  return i;
}

/** The metric names `expr` selects, in order of first use, each once. */
export function metricNames(expr: string): string[] {
  const names = new Set<string>();
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) i++;
    else if (c === '#') {
      const end = expr.indexOf('\n', i);
      i = end < 0 ? expr.length : end;
    } else if (c === '"' || c === "'" || c === '`') i = skipString(expr, i);
    // Label matchers, and range or subquery brackets ([5m], [$__rate_interval], [1h:5m]).
    else if (c === '{' || c === '[') i = skipBracketed(expr, i);
    // A Grafana variable ($instance, ${instance}, $__rate_interval) is substituted before PromQL sees it.
    else if (c === '$') {
      IDENTIFIER.lastIndex = i + 1;
      i = expr[i + 1] === '{' ? skipBracketed(expr, i + 1) : i + 1 + (IDENTIFIER.exec(expr)?.[0].length ?? 0);
    } else {
      NUMBER.lastIndex = i;
      const number = NUMBER.exec(expr);
      IDENTIFIER.lastIndex = i;
      const identifier = number ? null : IDENTIFIER.exec(expr);
      if (number) i += number[0].length;
      else if (identifier) {
        const word = identifier[0];
        i += word.length;
        const next = skipSpace(expr, i);
        const keyword = word.toLowerCase();
        if (LABEL_LIST_KEYWORDS.has(keyword)) {
          if (expr[next] === '(') i = skipBracketed(expr, next);
        } else if (OTHER_KEYWORDS.has(keyword) || AGGREGATIONS.has(word)) {
          // Neither reads a metric; an aggregation's argument list is scanned like any other parentheses.
        } else if (expr[next] === '(') {
          if (!FUNCTIONS.has(word)) throw new Error(`${word}( is not a PromQL function or aggregation: ${expr}`);
        } else names.add(word);
      } else i++;
    }
  }
  return [...names];
}

/** The metric family a series name belongs to, given each exported family's type (`# TYPE` lines). */
export function familyOf(name: string, types: ReadonlyMap<string, string>): string | undefined {
  if (types.has(name)) return name;
  const suffix = /_(bucket|sum|count)$/.exec(name);
  if (!suffix) return undefined;
  const base = name.slice(0, -suffix[0].length);
  const type = types.get(base);
  if (type === 'histogram') return base;
  if (type === 'summary' && suffix[1] !== 'bucket') return base;
  return undefined;
}

/** Each metric family of a text exposition and its type, from the `# TYPE` lines (present with no sample yet). */
export function exportedTypes(exposition: string): Map<string, string> {
  const types = new Map<string, string>();
  for (const line of exposition.split('\n')) {
    const match = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (match) types.set(match[1], match[2]);
  }
  return types;
}
