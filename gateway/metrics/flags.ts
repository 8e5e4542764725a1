// The metrics flags, spelled and checked as component-base's metrics options are for kube-apiserver. Kept apart from
// options.ts, which spreads the table into its own and calls the parser.
import fs from 'node:fs';
import path from 'node:path';
import { decodeYamlDocument } from '../../policies/config/yaml-document.js';
import { OptionsError, invalid, type FlagSpec } from '../server/flag-primitives.js';
import { CURRENT_RELEASE, type MetricOptions } from './registration.js';

export const METRICS_FLAGS: Record<string, FlagSpec> = {
  'show-hidden-metrics-for-version': {
    kind: 'string',
    usage: `The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '${CURRENT_RELEASE.major}.${CURRENT_RELEASE.minor - 1}'. The purpose of this format is make sure you have the opportunity to notice if the next release hides additional metrics, rather than being surprised when they are permanently removed in the release after that.`,
  },
  'disabled-metrics': {
    kind: 'list',
    usage:
      'This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics.',
  },
  'allow-metric-labels': {
    kind: 'string',
    usage:
      "The map from metric-label to value allow-list of this label. The key's format is <MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'.",
  },
  'allow-metric-labels-manifest': {
    kind: 'string',
    usage:
      'The path to the manifest file that contains the allow-list mapping. The format of the file is the same as the flag --allow-metric-labels. Note that the flag --allow-metric-labels will override the manifest file.',
  },
};

const ALLOW_LIST_KEY = /^[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*$/;
const ALLOW_LIST_FORMAT_ERROR =
  '--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, labelValue,...`';

/** pflag's stringToString for one occurrence: `k=v` whole when it has one `=`, else CSV fields of `k=v`. */
function parseStringToString(raw: string): [string, string][] {
  const equals = raw.split('=').length - 1;
  if (equals === 0) throw invalid('allow-metric-labels', raw, `${raw} must be formatted as key=value`);
  const pairs = equals === 1 ? [raw.replace(/^"+|"+$/g, '')] : splitCsv(raw);
  return pairs.map((pair) => {
    const eq = pair.indexOf('=');
    if (eq < 0) throw invalid('allow-metric-labels', raw, `${pair} must be formatted as key=value`);
    return [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

/** One CSV record as Go's encoding/csv reads it: commas split, double quotes group. */
function splitCsv(raw: string): string[] {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (quoted) {
      if (c === '"' && raw[i + 1] === '"') field += raw[++i];
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      fields.push(field);
      field = '';
    } else field += c;
  }
  if (quoted) throw invalid('allow-metric-labels', raw, 'extraneous or missing " in quoted-field');
  fields.push(field);
  return fields;
}

function addAllowList(target: MetricOptions['allowListLabels'], key: string, values: string, flag: string): void {
  if (!ALLOW_LIST_KEY.test(key)) {
    throw flag === 'allow-metric-labels'
      ? new OptionsError(ALLOW_LIST_FORMAT_ERROR)
      : new OptionsError(`--${flag}: "${key}" is not a <metric>,<label> key (${ALLOW_LIST_FORMAT_ERROR})`);
  }
  const [metric, label] = key.split(',');
  const labels = target.get(metric) ?? new Map<string, Set<string>>();
  target.set(metric, labels);
  labels.set(label, new Set(values.replace(/^'|'$/g, '').split(',')));
}

function readManifest(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw invalid('allow-metric-labels-manifest', file, (e as Error).message);
  }
  let parsed: unknown;
  try {
    parsed = decodeYamlDocument(text);
  } catch (e) {
    throw invalid('allow-metric-labels-manifest', file, `failed to parse allow list manifest: ${(e as Error).message}`);
  }
  if (parsed === undefined || parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalid('allow-metric-labels-manifest', file, 'must be a map of "<metric>,<label>" to "<value>,<value>..."');
  return parsed as Record<string, unknown>;
}

export function parseMetricOptions(values: (name: string) => string[] | undefined, cwd: string): MetricOptions {
  const allowListLabels: MetricOptions['allowListLabels'] = new Map();
  // The manifest first: entries of the flag override it.
  const manifest = values('allow-metric-labels-manifest')?.at(-1);
  if (manifest !== undefined) {
    if (manifest === '') throw invalid('allow-metric-labels-manifest', manifest, 'must not be empty');
    for (const [key, value] of Object.entries(readManifest(path.resolve(cwd, manifest)))) {
      if (typeof value !== 'string')
        throw invalid('allow-metric-labels-manifest', manifest, `the value of "${key}" must be a string`);
      addAllowList(allowListLabels, key, value, 'allow-metric-labels-manifest');
    }
  }
  for (const raw of values('allow-metric-labels') ?? []) {
    for (const [key, value] of parseStringToString(raw))
      addAllowList(allowListLabels, key, value, 'allow-metric-labels');
  }

  const shown = values('show-hidden-metrics-for-version')?.at(-1);
  const previous = `${CURRENT_RELEASE.major}.${CURRENT_RELEASE.minor - 1}`;
  if (shown !== undefined && shown !== '' && shown !== previous) {
    throw new OptionsError(
      `--show-hidden-metrics-for-version must be omitted or have the value '${previous}'. Only the previous minor version is allowed`,
    );
  }

  const disabledMetrics = new Set(
    (values('disabled-metrics') ?? [])
      .flatMap((v) => v.split(','))
      .map((v) => v.trim())
      .filter(Boolean),
  );
  return { allowListLabels, disabledMetrics, showHiddenMetricsForVersion: shown || undefined };
}
