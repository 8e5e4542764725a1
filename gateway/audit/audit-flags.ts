// The audit flags: names, defaults and help (spread into flag-table.ts) and their parsing, with kube-apiserver's
// spellings and defaults. As upstream, a value that does not parse always stops the start, but the checks of its
// range apply only to a backend that is on (and its batch settings only in batch mode): a flag of an unused backend
// does not stop a start upstream would make.
import path from 'node:path';
import {
  invalid,
  parseBoolFlag,
  parseDurationFlag,
  parseFloatFlag,
  parseIntFlag,
  type FlagSpec,
} from '../server/flag-primitives.js';
import type { RotationSettings } from './log-rotation.js';
import type { BatchSettings } from './buffered.js';

export const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = (typeof AUDIT_MODES)[number];

/** Upstream's order, as its help and its error list them. */
export const AUDIT_LOG_FORMATS = ['legacy', 'json'] as const;
export type AuditLogFormat = (typeof AUDIT_LOG_FORMATS)[number];

/**
 * The event group versions a backend may write. Upstream knows only audit.k8s.io/v1; Gatehouse's policy loader reads
 * the same Policy under its own group name too, and events may be written under it for the same reason (the same
 * schema, the group a reader of this server's APIs knows it by). Nothing else: a version whose schema we do not write.
 */
export const AUDIT_EVENT_VERSIONS = ['audit.k8s.io/v1', 'audit.platform.io/v1'] as const;

type Plugin = 'log' | 'webhook';

interface BatchDefaults {
  maxSize: string;
  maxWait: string;
  throttle: boolean;
  qps: string;
  burst: string;
}

/** The batch, truncation and version flags both backends have, with upstream's defaults for each. */
function backendFlags(plugin: Plugin, d: BatchDefaults): Record<string, FlagSpec> {
  const only = `Only in --audit-${plugin}-mode=batch.`;
  return {
    [`audit-${plugin}-batch-buffer-size`]: {
      kind: 'int',
      default: '10000',
      usage: `Events held before they are batched; past it new events are dropped and counted. ${only}`,
    },
    [`audit-${plugin}-batch-max-size`]: { kind: 'int', default: d.maxSize, usage: `Most events in one batch. ${only}` },
    [`audit-${plugin}-batch-max-wait`]: {
      kind: 'duration',
      default: d.maxWait,
      usage: `Longest a batch that is not full waits before it goes out. ${only}`,
    },
    [`audit-${plugin}-batch-throttle-enable`]: {
      kind: 'bool',
      default: String(d.throttle),
      usage: `Limit how often batches go out (--audit-${plugin}-batch-throttle-qps and -burst). ${only}`,
    },
    [`audit-${plugin}-batch-throttle-qps`]: {
      kind: 'float',
      default: d.qps,
      usage: `Batches per second on average when throttled. ${only}`,
    },
    [`audit-${plugin}-batch-throttle-burst`]: {
      kind: 'int',
      default: d.burst,
      usage: `Batches that may go out at once after a quiet spell when throttled. ${only}`,
    },
    [`audit-${plugin}-truncate-enabled`]: {
      kind: 'bool',
      default: 'false',
      usage:
        'Drop the bodies of events past the maximum event size (the event without them is dropped if still too large), and split batches past the maximum batch size.',
    },
    [`audit-${plugin}-truncate-max-batch-size`]: {
      kind: 'int',
      default: '10485760',
      usage: 'Bytes of events in one batch, with truncation on; a larger batch is split.',
    },
    [`audit-${plugin}-truncate-max-event-size`]: {
      kind: 'int',
      default: '102400',
      usage: 'Bytes of one event, with truncation on; a larger one loses its request and response bodies.',
    },
    [`audit-${plugin}-version`]: {
      kind: 'string',
      default: AUDIT_EVENT_VERSIONS[0],
      usage: `Group and version the events are written as: ${AUDIT_EVENT_VERSIONS.join(' or ')}.`,
    },
  };
}

export const AUDIT_FLAGS: Record<string, FlagSpec> = {
  'audit-policy-file': {
    kind: 'string',
    usage: 'Audit Policy file (audit.k8s.io/v1 or audit.platform.io/v1). Requests are audited only with a backend.',
  },
  'audit-log-path': {
    kind: 'string',
    usage: "Audit events are appended to this file, one line each; '-' means standard output.",
  },
  'audit-log-format': {
    reference:
      "`json` (the whole event, one object a line) or `legacy` (kube-apiserver's one line of text: time, id, stage, ip, method, user, groups, as, asgroups, user-agent, namespace, uri, response)",
    kind: 'string',
    default: 'json',
    usage: 'Line format of the audit log: json (the whole event) or legacy (one line of text with its main fields).',
  },
  'audit-log-maxsize': {
    reference:
      'rotation of the audit log: megabytes before it is moved aside as `<name>-<UTC time>.<ext>`, backups kept, days kept (0: no limit), gzip the backups',
    kind: 'int',
    default: '0',
    usage: 'Megabytes the audit log may reach before it is rotated; 0 never rotates.',
  },
  'audit-log-maxbackup': {
    kind: 'int',
    default: '0',
    usage: 'Rotated audit logs kept; 0 keeps all (within --audit-log-maxage).',
  },
  'audit-log-maxage': {
    kind: 'int',
    default: '0',
    usage: 'Days a rotated audit log is kept; 0 keeps them regardless of age.',
  },
  'audit-log-compress': {
    kind: 'bool',
    default: 'false',
    usage: 'Gzip rotated audit logs.',
  },
  'audit-log-mode': {
    reference:
      '`blocking` (written in order, never waited for), `blocking-strict` (a request waits for its `RequestReceived` line and fails with 500 when it cannot be written), `batch` (through the `--audit-log-batch-*` buffer)',
    kind: 'string',
    default: 'blocking',
    usage: `How the log backend takes events: ${AUDIT_MODES.join(', ')}.`,
  },
  // Batching buys a file nothing, so upstream's log defaults send each event on its own at once, unthrottled.
  ...backendFlags('log', { maxSize: '1', maxWait: '0s', throttle: false, qps: '0', burst: '0' }),
  'audit-webhook-config-file': {
    kind: 'string',
    usage: 'Client configuration file (kubeconfig format) of the audit webhook, sent each batch as an EventList.',
  },
  'audit-webhook-mode': {
    reference:
      '`batch` (buffered, never blocks a request; a full buffer drops and counts), `blocking` (the request waits for delivery), `blocking-strict` (an undeliverable `RequestReceived` fails the request)',
    kind: 'string',
    default: 'batch',
    usage: `How the webhook backend takes events: ${AUDIT_MODES.join(', ')}.`,
  },
  ...backendFlags('webhook', { maxSize: '400', maxWait: '30s', throttle: true, qps: '10', burst: '15' }),
  'audit-webhook-initial-backoff': {
    reference: 'first retry wait after no answer, a 429 or a 5xx (then 1.5 times longer, four retries); a 4xx is final',
    kind: 'duration',
    default: '10s',
    usage: 'Wait before the first retry of a failed webhook request (then 1.5 times longer each).',
  },
};

export interface TruncateSettings {
  maxEventBytes: number;
  maxBatchBytes: number;
}

export interface BackendOptions {
  mode: AuditMode;
  batch: BatchSettings;
  /** Undefined unless --audit-<plugin>-truncate-enabled. */
  truncate?: TruncateSettings;
  /** The apiVersion events (and the webhook's EventList) are written with. */
  version: string;
}

export interface AuditOptions {
  policyFile?: string;
  logPath?: string;
  logFormat: AuditLogFormat;
  logRotation: RotationSettings;
  log: BackendOptions;
  webhookConfigFile?: string;
  webhook: BackendOptions;
  webhookInitialBackoffMs: number;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

export function parseAuditOptions(seen: Map<string, string[]>, cwd: string): AuditOptions {
  const given = (name: string): string | undefined => {
    const value = seen.get(name)?.at(-1);
    if (value === '') throw invalid(name, value, 'must not be empty');
    return value;
  };
  const valueOf = (name: string): string => seen.get(name)?.at(-1) ?? AUDIT_FLAGS[name].default ?? '';
  const int = (name: string) => parseIntFlag(name, valueOf(name), INT32_MIN, INT32_MAX);
  const bool = (name: string) => parseBoolFlag(name, valueOf(name));
  const count = (name: string, on: boolean) => {
    const n = int(name);
    if (on && n < 0) throw invalid(name, valueOf(name), 'must not be negative');
    return n;
  };
  const positive = (name: string, value: number, on: boolean) => {
    if (on && !(value > 0)) throw invalid(name, valueOf(name), 'must be a positive number');
    return value;
  };
  const file = (name: string) => {
    const value = given(name);
    return value === undefined ? undefined : path.resolve(cwd, value);
  };

  const backend = (plugin: Plugin, on: boolean): BackendOptions => {
    const flag = (suffix: string) => `audit-${plugin}-${suffix}`;
    const mode = valueOf(flag('mode'));
    if (!(AUDIT_MODES as readonly string[]).includes(mode))
      throw invalid(flag('mode'), mode, `allowed modes are "${AUDIT_MODES.join(',')}"`);
    const batched = on && mode === 'batch';
    const throttled = bool(flag('batch-throttle-enable'));
    const qps = parseFloatFlag(flag('batch-throttle-qps'), valueOf(flag('batch-throttle-qps')));
    const burst = int(flag('batch-throttle-burst'));
    const batch: BatchSettings = {
      bufferSize: positive(flag('batch-buffer-size'), int(flag('batch-buffer-size')), batched),
      maxSize: positive(flag('batch-max-size'), int(flag('batch-max-size')), batched),
      maxWaitMs: parseDurationFlag(flag('batch-max-wait'), valueOf(flag('batch-max-wait'))),
    };
    if (throttled)
      batch.throttle = {
        qps: positive(flag('batch-throttle-qps'), qps, batched),
        burst: positive(flag('batch-throttle-burst'), burst, batched),
      };
    // Upstream checks the sizes whenever the backend is on, truncation enabled or not.
    const maxEventBytes = positive(flag('truncate-max-event-size'), int(flag('truncate-max-event-size')), on);
    const maxBatchBytes = int(flag('truncate-max-batch-size'));
    if (on && maxBatchBytes < maxEventBytes)
      throw invalid(
        flag('truncate-max-batch-size'),
        valueOf(flag('truncate-max-batch-size')),
        `must not be less than --${flag('truncate-max-event-size')} (${maxEventBytes})`,
      );
    const version = valueOf(flag('version'));
    if (on && !(AUDIT_EVENT_VERSIONS as readonly string[]).includes(version))
      throw invalid(
        flag('version'),
        version,
        `invalid group version, allowed versions are [${AUDIT_EVENT_VERSIONS.map((v) => `"${v}"`).join(' ')}]`,
      );
    const out: BackendOptions = { mode: mode as AuditMode, batch, version };
    if (bool(flag('truncate-enabled'))) out.truncate = { maxEventBytes, maxBatchBytes };
    return out;
  };

  const rawLogPath = given('audit-log-path');
  const logPath = rawLogPath === undefined || rawLogPath === '-' ? rawLogPath : path.resolve(cwd, rawLogPath);
  const logOn = logPath !== undefined;
  const logFormat = valueOf('audit-log-format');
  if (logOn && !(AUDIT_LOG_FORMATS as readonly string[]).includes(logFormat))
    throw invalid('audit-log-format', logFormat, `allowed formats are "${AUDIT_LOG_FORMATS.join(',')}"`);
  const webhookConfigFile = file('audit-webhook-config-file');
  return {
    policyFile: file('audit-policy-file'),
    logPath,
    logFormat: logFormat as AuditLogFormat,
    logRotation: {
      maxSizeBytes: count('audit-log-maxsize', logOn) * 1024 * 1024,
      maxBackups: count('audit-log-maxbackup', logOn),
      maxAgeDays: count('audit-log-maxage', logOn),
      compress: bool('audit-log-compress'),
    },
    log: backend('log', logOn),
    webhookConfigFile,
    webhook: backend('webhook', webhookConfigFile !== undefined),
    webhookInitialBackoffMs: parseDurationFlag(
      'audit-webhook-initial-backoff',
      valueOf('audit-webhook-initial-backoff'),
    ),
  };
}
