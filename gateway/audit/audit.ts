// Assembles the configured audit: the policy (loaded at start, before anything opens, so that a bad file stops the
// start) and the backends events go to, each in its mode. Without a backend nothing is audited, as upstream; every
// answer still carries its Audit-Id.
import type { Registry } from 'prom-client';
import type { AuditSink } from './filter.js';
import { createLogSender } from './log-backend.js';
import { createWebhookSender } from './webhook-backend.js';
import { createBufferedBackend, type BatchSender, type BatchSettings } from './buffered.js';
import { createAuditMetrics } from './metrics.js';
import { createPolicyChecker, loadAuditPolicy, type AuditPolicy, type Stage } from './policy.js';
import type { AuditMode, AuditOptions } from './audit-flags.js';

export interface AuditBackend {
  readonly name: string;
  /** Takes one serialized event; returns a promise when the request is to wait for the delivery. */
  write(line: string, stage: Stage): void | Promise<void>;
  close(): Promise<void>;
}

export interface Audit extends AuditSink {
  close(): Promise<void>;
}

/** The policy of --audit-policy-file, undefined when none is given. Throws naming the file and rule. */
export function loadConfiguredPolicy(options: AuditOptions): AuditPolicy | undefined {
  return options.policyFile === undefined ? undefined : loadAuditPolicy(options.policyFile);
}

/** upstream's log batch defaults: every event goes out at once, the buffer only absorbs a slow disk. */
const LOG_BATCH: BatchSettings = { bufferSize: 10_000, maxSize: 1, maxWaitMs: 0 };

type OnError = (plugin: string) => (err: Error, events: number) => void;

/**
 * blocking: the request waits for the delivery of its events (the log's only when strict: its writes keep their
 * order anyway); blocking-strict: an event of the RequestReceived stage that cannot be delivered fails the request.
 */
function inMode(sender: BatchSender, mode: AuditMode, batch: BatchSettings, onError: OnError): AuditBackend {
  const failed = onError(sender.name);
  if (mode === 'batch') return createBufferedBackend(sender, batch, failed);
  const strict = mode === 'blocking-strict';
  const waits = sender.name !== 'log';
  return {
    name: sender.name,
    write(line, stage) {
      const mustSucceed = strict && stage === 'RequestReceived';
      const delivered = sender.send([line]).catch((e: Error) => {
        failed(e, 1);
        if (mustSucceed) throw e;
      });
      return waits || mustSucceed ? delivered : undefined;
    },
    close: () => sender.close(),
  };
}

export interface AuditDeps {
  metricsRegistry: Registry;
  log: (line: string) => void;
  now?: () => number;
}

export function startAudit(options: AuditOptions, policy: AuditPolicy | undefined, deps: AuditDeps): Audit | undefined {
  const hasBackend = options.logPath !== undefined || options.webhookConfigFile !== undefined;
  // As kube-apiserver, half a configuration starts, saying what it leaves out.
  if (!policy && hasBackend) deps.log('warning: no audit policy file provided, no events will be recorded');
  if (policy && !hasBackend)
    deps.log('warning: an audit policy without --audit-log-path or --audit-webhook-config-file records nothing');
  if (!policy || !hasBackend) return undefined;
  const metrics = createAuditMetrics(deps.metricsRegistry);
  const onError: OnError = (plugin) => (err, events) => {
    for (let i = 0; i < events; i++) metrics.error(plugin);
    deps.log(`audit: the ${plugin} backend lost ${events} event(s): ${err.message}`);
  };
  const backends: AuditBackend[] = [];
  if (options.webhookConfigFile !== undefined) {
    const sender = createWebhookSender({
      configFile: options.webhookConfigFile,
      initialBackoffMs: options.webhookInitialBackoffMs,
    });
    backends.push(inMode(sender, options.webhookMode, options.webhookBatch, onError));
  }
  if (options.logPath !== undefined)
    backends.push(
      inMode(
        createLogSender(options.logPath, options.logRotation, (err) =>
          deps.log(`audit: rotating ${options.logPath}: ${err.message}`),
        ),
        options.logMode,
        LOG_BATCH,
        onError,
      ),
    );
  const check = createPolicyChecker(policy);
  return {
    check,
    emit(line, stage) {
      metrics.event();
      let waits: Promise<void>[] | undefined;
      for (const backend of backends) {
        const delivered = backend.write(line, stage);
        if (delivered) (waits ??= []).push(delivered);
      }
      return waits && Promise.all(waits).then(() => undefined);
    },
    now: deps.now ?? Date.now,
    close: async () => {
      await Promise.all(backends.map((b) => b.close()));
    },
  };
}
