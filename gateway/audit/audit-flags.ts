// The audit flags: names, defaults and help (spread into flag-table.ts) and their parsing, with kube-apiserver's
// spellings and defaults.
import path from 'node:path';
import { invalid, parseBoolFlag, parseDurationFlag, parseIntFlag, type FlagSpec } from '../server/flag-primitives.js';
import type { RotationSettings } from './log-rotation.js';

export const AUDIT_MODES = ['batch', 'blocking', 'blocking-strict'] as const;
export type AuditMode = (typeof AUDIT_MODES)[number];

export const AUDIT_FLAGS: Record<string, FlagSpec> = {
  'audit-policy-file': {
    kind: 'string',
    usage: 'Audit Policy file (audit.k8s.io/v1 or audit.platform.io/v1). Requests are audited only with a backend.',
  },
  'audit-log-path': {
    kind: 'string',
    usage: "Audit events are appended to this file, one JSON line each; '-' means standard output.",
  },
  'audit-log-maxsize': {
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
    kind: 'string',
    default: 'blocking',
    usage: `How the log backend takes events: ${AUDIT_MODES.join(', ')}.`,
  },
  'audit-webhook-config-file': {
    kind: 'string',
    usage: 'Client configuration file (kubeconfig format) of the audit webhook, sent each batch as an EventList.',
  },
  'audit-webhook-mode': {
    kind: 'string',
    default: 'batch',
    usage: `How the webhook backend takes events: ${AUDIT_MODES.join(', ')}.`,
  },
  'audit-webhook-batch-buffer-size': {
    kind: 'int',
    default: '10000',
    usage: 'Events held for the webhook in batch mode before further ones are dropped.',
  },
  'audit-webhook-batch-max-size': {
    kind: 'int',
    default: '400',
    usage: 'Most events in one webhook request in batch mode.',
  },
  'audit-webhook-batch-max-wait': {
    kind: 'duration',
    default: '30s',
    usage: 'Longest an event waits for its batch to fill in batch mode.',
  },
  'audit-webhook-initial-backoff': {
    kind: 'duration',
    default: '10s',
    usage: 'Wait before the first retry of a failed webhook request (then 1.5 times longer each).',
  },
};

export interface AuditOptions {
  policyFile?: string;
  logPath?: string;
  logMode: AuditMode;
  logRotation: RotationSettings;
  webhookConfigFile?: string;
  webhookMode: AuditMode;
  webhookBatch: { bufferSize: number; maxSize: number; maxWaitMs: number };
  webhookInitialBackoffMs: number;
}

export function parseAuditOptions(seen: Map<string, string[]>, cwd: string): AuditOptions {
  const given = (name: string): string | undefined => {
    const value = seen.get(name)?.at(-1);
    if (value === '') throw invalid(name, value, 'must not be empty');
    return value;
  };
  const valueOf = (name: string): string => seen.get(name)?.at(-1) ?? AUDIT_FLAGS[name].default ?? '';
  const mode = (name: string): AuditMode => {
    const value = valueOf(name);
    if (!(AUDIT_MODES as readonly string[]).includes(value))
      throw invalid(name, value, `must be one of ${AUDIT_MODES.join(', ')}`);
    return value as AuditMode;
  };
  const positive = (name: string) => parseIntFlag(name, valueOf(name), 1, 2 ** 31 - 1);
  const count = (name: string) => parseIntFlag(name, valueOf(name), 0, 2 ** 31 - 1);
  const file = (name: string) => {
    const value = given(name);
    return value === undefined ? undefined : path.resolve(cwd, value);
  };
  const logPath = given('audit-log-path');
  return {
    policyFile: file('audit-policy-file'),
    logPath: logPath === undefined || logPath === '-' ? logPath : path.resolve(cwd, logPath),
    logMode: mode('audit-log-mode'),
    logRotation: {
      maxSizeBytes: count('audit-log-maxsize') * 1024 * 1024,
      maxBackups: count('audit-log-maxbackup'),
      maxAgeDays: count('audit-log-maxage'),
      compress: parseBoolFlag('audit-log-compress', valueOf('audit-log-compress')),
    },
    webhookConfigFile: file('audit-webhook-config-file'),
    webhookMode: mode('audit-webhook-mode'),
    webhookBatch: {
      bufferSize: positive('audit-webhook-batch-buffer-size'),
      maxSize: positive('audit-webhook-batch-max-size'),
      maxWaitMs: parseDurationFlag('audit-webhook-batch-max-wait', valueOf('audit-webhook-batch-max-wait')),
    },
    webhookInitialBackoffMs: parseDurationFlag(
      'audit-webhook-initial-backoff',
      valueOf('audit-webhook-initial-backoff'),
    ),
  };
}
