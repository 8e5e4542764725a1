// Turns the --authorization-mode list (or an --authorization-config file) into the authorizer union: the
// privileged-groups bypass first, then the modes in the order given. FACTORIES holds the modes built from the shared
// deps alone; Webhook entries carry their own settings and are built in policies/config/authorization-chain.ts.
import type { Authorizer, RuleResolver } from './authorizer.js';
import { createAlwaysAllowAuthorizer, createAlwaysDenyAuthorizer } from './always.js';
import { createRbacAuthorizer } from './rbac/authorizer.js';
import type { RbacSource } from './rbac/types.js';
import { createNodeAuthorizer } from './node/authorizer.js';
import type { AuthorizationMetrics } from './metrics.js';
import { createAbacAuthorizer, loadPolicyFile } from './abac/abac-authorizer.js';
import type { RetryBackoff } from './webhook/webhook-authorizer.js';
import type { SharedDecisions } from './webhook/decision-cache.js';
import {
  buildChain,
  configFromModes,
  startReloadingChain,
  type AuthorizationChain,
  type AuthorizationSettings,
  type ReloadOptions,
  type WebhookFlags,
} from './config/authorization-chain.js';

/** Every mode name kube-apiserver accepts; only the implemented ones pass option parsing. */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

/** What authorizers may need from the gateway; each mode that needs something adds a field (policies never import
 * gateway, so the gateway hands over narrow interfaces defined here or in the mode's folder). */
export interface AuthorizerDeps {
  log?: (line: string) => void;
  /** The RBAC objects, from the gateway's watch-fed index (required by mode RBAC). */
  rbac?: RbacSource;
  /** Authorization metrics (decisions, webhook calls, reloads); served at /metrics. */
  metrics?: AuthorizationMetrics;
  /** --authorization-policy-file, for ABAC. */
  policyFile?: string;
  /** The legacy --authorization-webhook-* flags, for mode Webhook. */
  webhookFlags?: WebhookFlags;
  /** Retry backoff of the webhooks (tests shorten it). */
  webhookRetryBackoff?: RetryBackoff;
  /** The webhooks' decision cache shared by the replicas (Redis, with --redis-url). */
  sharedDecisions?: SharedDecisions;
}

function rbacFactory(deps: AuthorizerDeps): Authorizer {
  if (!deps.rbac) throw new Error('authorization mode "RBAC" needs the RBAC object index');
  return createRbacAuthorizer(deps.rbac);
}

/** ABAC reads its policy file once, at start-up; a malformed line stops the server. */
function createAbacFromDeps(deps: AuthorizerDeps): Authorizer {
  if (!deps.policyFile) throw new Error("authorization-mode ABAC's authorization policy file not passed");
  return createAbacAuthorizer(loadPolicyFile(deps.policyFile));
}

const FACTORIES: Partial<Record<AuthorizationMode, (deps: AuthorizerDeps) => Authorizer>> = {
  AlwaysAllow: createAlwaysAllowAuthorizer,
  AlwaysDeny: createAlwaysDenyAuthorizer,
  RBAC: rbacFactory,
  Node: createNodeAuthorizer,
  ABAC: createAbacFromDeps,
};

const factoryFor = (type: string) => FACTORIES[type as AuthorizationMode];

export function buildAuthorizer(
  modes: readonly AuthorizationMode[],
  deps: AuthorizerDeps = {},
): Authorizer & RuleResolver {
  return buildChain(configFromModes(modes, deps.webhookFlags), deps, factoryFor, deps).authorizer;
}

/** The chain main.ts serves: from --authorization-config (watched and reloaded) or from the legacy flags. */
export function startAuthorization(
  settings: AuthorizationSettings,
  deps: AuthorizerDeps = {},
  reload: ReloadOptions = {},
): AuthorizationChain {
  const all: AuthorizerDeps = {
    ...deps,
    policyFile: settings.policyFile ?? deps.policyFile,
    webhookFlags: settings.webhook ?? deps.webhookFlags,
  };
  if (settings.configFile) return startReloadingChain(settings.configFile, all, factoryFor, all, reload);
  return buildChain(configFromModes(settings.modes, all.webhookFlags), all, factoryFor, all);
}
