// Assembles the configured audit: the policy (loaded at start, before anything opens, so that a bad file stops the
// start) and the backends events go to, each in its mode. Without a backend nothing is audited, as upstream; every
// answer still carries its Audit-Id.
import type { Registry } from 'prom-client';
import type { AuditSink } from './filter.js';
import { createLogSender } from './log-backend.js';
import { createWebhookSender } from './webhook-backend.js';
import { createBufferedBackend, type BatchSender } from './buffered.js';
import { encodeFor, TooLargeError, type EventFormat } from './encode.js';
import { createAuditMetrics } from './metrics.js';
import { createPolicyChecker, loadAuditPolicy, type AuditPolicy, type Stage } from './policy.js';
import type { AuditOptions, BackendOptions } from './audit-flags.js';
import { realClock, type Clock } from '../server/clock.js';

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

type OnError = (plugin: string) => (err: Error, events: number) => void;

/**
 * blocking: the request waits for the delivery of its events (the log's only when strict: its writes keep their
 * order anyway); blocking-strict: an event of the RequestReceived stage that cannot be delivered fails the request.
 */
function inMode(sender: BatchSender, options: BackendOptions, onError: OnError, clock: Clock): AuditBackend {
  const { mode } = options;
  const failed = onError(sender.name);
  if (mode === 'batch') {
    const batch = options.truncate
      ? { ...options.batch, maxBatchBytes: options.truncate.maxBatchBytes }
      : options.batch;
    return createBufferedBackend(sender, batch, failed, clock);
  }
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
  /** What batch waits and throttles are timed by. */
  clock?: Clock;
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
  const clock = deps.clock ?? realClock;
  // Each backend with how its lines are written.
  const backends: { backend: AuditBackend; format: EventFormat }[] = [];
  if (options.webhookConfigFile !== undefined) {
    const sender = createWebhookSender({
      configFile: options.webhookConfigFile,
      initialBackoffMs: options.webhookInitialBackoffMs,
      version: options.webhook.version,
    });
    const { version, truncate } = options.webhook;
    backends.push({
      backend: inMode(sender, options.webhook, onError, clock),
      format: { format: 'json', version, truncate },
    });
  }
  if (options.logPath !== undefined) {
    const sender = createLogSender(options.logPath, options.logRotation, (err) =>
      deps.log(`audit: rotating ${options.logPath}: ${err.message}`),
    );
    const { version, truncate } = options.log;
    backends.push({
      backend: inMode(sender, options.log, onError, clock),
      format: { format: options.logFormat, version, truncate },
    });
  }
  const tooLarge = onError('truncate');
  const check = createPolicyChecker(policy);
  return {
    check,
    emit(event, stage) {
      metrics.event();
      let waits: Promise<void>[] | undefined;
      for (const { backend, format } of backends) {
        let line: string;
        try {
          line = encodeFor(event, format);
        } catch (e) {
          if (!(e instanceof TooLargeError)) throw e;
          tooLarge(e, 1);
          continue;
        }
        const delivered = backend.write(line, stage);
        if (delivered) (waits ??= []).push(delivered);
      }
      return waits && Promise.all(waits).then(() => undefined);
    },
    now: deps.now ?? Date.now,
    close: async () => {
      await Promise.all(backends.map(({ backend }) => backend.close()));
    },
  };
}
