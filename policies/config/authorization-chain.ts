// Builds the authorizer chain from either source kube-apiserver accepts: the legacy flags (--authorization-mode with
// --authorization-webhook-* and --authorization-policy-file), converted to an AuthorizationConfiguration the way
// upstream converts them, or an --authorization-config file, which is then watched and reloaded (on change and every
// 60 s). A reload that fails (unreadable, invalid, a webhook client file that does not load) keeps the last good
// chain, logs and counts the failure; readiness is unaffected. A good one swaps the whole chain at once.
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { createAuthorizerUnion, isRuleResolver, type Authorizer, type RuleResolver } from '../authorizer.js';
import { createPrivilegedGroupsAuthorizer } from '../privileged-groups.js';
import type { AuthorizationMetrics } from '../metrics.js';
import { loadWebhookClientConfig } from '../webhook/client-config.js';
import { createWebhookAuthorizer, type RetryBackoff, type WebhookAuthorizer } from '../webhook/webhook-authorizer.js';
import type { SharedDecisions } from '../webhook/decision-cache.js';
import {
  parseAuthorizationConfig,
  type AuthorizationConfig,
  type AuthorizerConfig,
} from './authorization-configuration.js';

/** The legacy webhook flags. */
export interface WebhookFlags {
  configFile: string;
  version: 'v1' | 'v1beta1';
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
}

/** What the flags say about authorization (gateway/server/authorization-options.ts fills it). */
export interface AuthorizationSettings {
  /** --authorization-config; when set, modes and webhook flags are not. */
  configFile?: string;
  modes: readonly string[];
  webhook?: WebhookFlags;
  /** --authorization-policy-file (ABAC). */
  policyFile?: string;
}

export interface ChainDeps {
  log?: (line: string) => void;
  metrics?: AuthorizationMetrics;
  /** Retry backoff of every webhook (default: upstream's 500ms x1.5, 5 attempts). */
  webhookRetryBackoff?: RetryBackoff;
  /** The webhooks' decision cache shared by the replicas (the gateway's Redis), behind each one's own. */
  sharedDecisions?: SharedDecisions;
}

export type MemberFactory = (type: string) => ((deps: never) => Authorizer) | undefined;

/** The union the authorization filter and SelfSubjectRulesReview ask, plus its lifetime. */
export interface AuthorizationChain {
  readonly authorizer: Authorizer & RuleResolver;
  /** The authorizer types of the configuration in force (admission checks such as NodeRestriction follow them). */
  types(): readonly string[];
  /** Stops watching the configuration file and closes webhook connections. */
  close(): void;
}

/** The name upstream gives a mode's entry when it builds a configuration from --authorization-mode. */
function nameForMode(mode: string): string {
  return mode === 'Webhook' ? 'webhook' : mode.toLowerCase();
}

/** Upstream's flag conversion: the flag webhook gets timeout 30s and failure policy NoOpinion. */
export function configFromModes(modes: readonly string[], webhook?: WebhookFlags): AuthorizationConfig {
  return {
    authorizers: modes.map((mode): AuthorizerConfig => {
      if (mode !== 'Webhook') return { type: mode as AuthorizerConfig['type'], name: nameForMode(mode) };
      if (!webhook) throw new Error("authorization-mode Webhook's authorization config file not passed");
      return {
        type: 'Webhook',
        name: nameForMode(mode),
        webhook: {
          authorizedTtlMs: webhook.authorizedTtlMs,
          unauthorizedTtlMs: webhook.unauthorizedTtlMs,
          timeoutMs: 30_000,
          subjectAccessReviewVersion: webhook.version,
          matchConditionSubjectAccessReviewVersion: 'v1',
          failurePolicy: 'NoOpinion',
          matchConditions: [],
          connectionInfo: { type: 'PlatformConfigFile', platformConfigFile: webhook.configFile },
        },
      };
    }),
  };
}

/** A member under its configured name and type, keeping its rule resolution when it has one. */
function named(member: Authorizer, type: string, name: string): Authorizer {
  const wrapped: Authorizer & Partial<RuleResolver> = {
    name,
    type,
    authorize: (attrs, callerGone) => member.authorize(attrs, callerGone),
  };
  if (isRuleResolver(member)) wrapped.rulesFor = (user, namespace) => member.rulesFor(user, namespace);
  return wrapped;
}

/** Builds every member of a configuration; throws (naming the entry) when one cannot be built. */
export function buildChain(
  config: AuthorizationConfig,
  deps: ChainDeps,
  factories: MemberFactory,
  factoryDeps: unknown = deps,
): AuthorizationChain {
  const webhooks: WebhookAuthorizer[] = [];
  const members: Authorizer[] = [createPrivilegedGroupsAuthorizer()];
  try {
    config.authorizers.forEach((entry, i) => {
      if (entry.type === 'Webhook' && entry.webhook) {
        const file = entry.webhook.connectionInfo.platformConfigFile ?? '';
        let client;
        try {
          client = loadWebhookClientConfig(file);
        } catch (e) {
          throw new Error(`authorizers[${i}] (webhook "${entry.name}"): ${(e as Error).message}`, { cause: e });
        }
        const webhook = createWebhookAuthorizer(
          { ...entry.webhook, name: entry.name, client },
          {
            log: deps.log,
            metrics: deps.metrics,
            retryBackoff: deps.webhookRetryBackoff,
            sharedDecisions: deps.sharedDecisions,
          },
        );
        webhooks.push(webhook);
        members.push(webhook);
        return;
      }
      const factory = factories(entry.type);
      if (!factory) throw new Error(`authorizers[${i}].type: authorizer type "${entry.type}" is not implemented yet`);
      members.push(named(factory(factoryDeps as never), entry.type, entry.name));
    });
  } catch (e) {
    for (const w of webhooks) w.close();
    throw e;
  }
  const metrics = deps.metrics;
  const observe = metrics
    ? (member: Authorizer, decision: string) =>
        metrics.decision(member.type ?? member.name, member.name, decision === 'Allow' ? 'allowed' : 'denied')
    : undefined;
  return {
    authorizer: createAuthorizerUnion(members, observe),
    types: () => config.authorizers.map((entry) => entry.type),
    close: () => webhooks.forEach((w) => w.close()),
  };
}

export const RELOAD_INTERVAL_MS = 60_000;
const WATCH_SETTLE_MS = 100;

/** Loads, validates and builds from the file; throws with the file named. */
function loadChain(
  file: string,
  deps: ChainDeps,
  factories: MemberFactory,
  factoryDeps: unknown,
): { chain: AuthorizationChain; text: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(
      `unable to read authorization configuration ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
  const config = parseAuthorizationConfig(text, file);
  return { chain: buildChain(config, deps, factories, factoryDeps), text };
}

export interface ReloadOptions {
  intervalMs?: number;
  /** Called after each reload attempt whose content changed (tests await it instead of sleeping). */
  onReload?: (result: { ok: boolean; error?: string }) => void;
}

/**
 * The chain behind --authorization-config. Start-up with an invalid file throws; later changes are picked up by an
 * fs.watch on the file's directory (editors and config-map mounts replace files by rename) and by a periodic poll.
 */
export function startReloadingChain(
  file: string,
  deps: ChainDeps,
  factories: MemberFactory,
  factoryDeps: unknown = deps,
  opts: ReloadOptions = {},
): AuthorizationChain & { reload(): void } {
  const log = deps.log ?? (() => {});
  const first = loadChain(file, deps, factories, factoryDeps);
  let current = first.chain;
  let lastText = first.text;

  let closed = false;
  // Superseded chains waiting out the requests still on them: close() must not leave them (and their webhook
  // connections) open for that wait.
  const retiring = new Map<NodeJS.Timeout, AuthorizationChain>();
  const reload = () => {
    if (closed) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      text = '';
    }
    // Unchanged content (or the same bad content again) is not a reload.
    if (text === lastText) return;
    lastText = text;
    let next: AuthorizationChain;
    try {
      next = loadChain(file, deps, factories, factoryDeps).chain;
    } catch (e) {
      const error = (e as Error).message;
      log(`error: error reloading authorization configuration ${file}, keeping the previous configuration: ${error}`);
      deps.metrics?.configReload('failure');
      opts.onReload?.({ ok: false, error });
      return;
    }
    const previous = current;
    current = next;
    // Requests in flight on the old chain finish with it; its connections close once they cannot still be in use.
    const retire = setTimeout(() => {
      retiring.delete(retire);
      previous.close();
    }, 35_000);
    retire.unref();
    retiring.set(retire, previous);
    log(`reloaded authorization configuration ${file}`);
    deps.metrics?.configReload('success');
    opts.onReload?.({ ok: true });
  };

  let watcher: FSWatcher | undefined;
  let settle: NodeJS.Timeout | undefined;
  try {
    const base = path.basename(file);
    // A write arrives as several events (truncate, then data): reload once they have settled, so a file caught
    // half-written is not reported as a bad configuration.
    watcher = watch(path.dirname(file), { persistent: false }, (_event, changed) => {
      if (changed !== null && changed !== base && !String(changed).startsWith('..')) return;
      clearTimeout(settle);
      settle = setTimeout(reload, WATCH_SETTLE_MS);
      settle.unref();
    });
    watcher.on('error', (e) =>
      log(`warning: watching authorization configuration ${file} failed, relying on the periodic reload: ${e.message}`),
    );
  } catch (e) {
    log(
      `warning: watching authorization configuration ${file} failed, relying on the periodic reload: ${(e as Error).message}`,
    );
  }
  const timer = setInterval(reload, opts.intervalMs ?? RELOAD_INTERVAL_MS);
  timer.unref();

  const authorizer: Authorizer & RuleResolver = {
    name: 'union',
    authorize: (attrs, callerGone) => current.authorizer.authorize(attrs, callerGone),
    rulesFor: (user, namespace) => current.authorizer.rulesFor(user, namespace),
  };
  return {
    authorizer,
    reload,
    types: () => current.types(),
    close() {
      closed = true;
      watcher?.close();
      clearTimeout(settle);
      clearInterval(timer);
      for (const [retire, chain] of retiring) {
        clearTimeout(retire);
        chain.close();
      }
      retiring.clear();
      current.close();
    },
  };
}
