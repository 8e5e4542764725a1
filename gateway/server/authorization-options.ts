// The authorization flags beyond --authorization-mode, checked together as kube-apiserver checks them:
// --authorization-config excludes --authorization-mode and every --authorization-webhook-* flag; mode Webhook needs
// --authorization-webhook-config-file and mode ABAC --authorization-policy-file (and neither file is accepted without
// its mode). Contents are read later, when the chain is built (a bad file is a start-up error there).
import path from 'node:path';
import type { AuthorizationSettings } from '../../policies/config/authorization-chain.js';
import { invalid, OptionsError, parseDurationFlag } from './flag-primitives.js';
import { AUTHORIZATION_FLAGS } from './authorization-flags.js';

const WEBHOOK_FLAGS = [
  'authorization-webhook-config-file',
  'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl',
];

/** `seen`: flag → values given (in order); `modes`: the parsed --authorization-mode. */
export function parseAuthorizationOptions(
  seen: Map<string, string[]>,
  modes: readonly string[],
  cwd: string,
): AuthorizationSettings {
  const last = (name: string): string | undefined => seen.get(name)?.at(-1);
  const valueOf = (name: string): string => last(name) ?? AUTHORIZATION_FLAGS[name].default ?? '';
  const file = (name: string): string | undefined => {
    const value = last(name);
    if (value === undefined) return undefined;
    if (value === '') throw invalid(name, value, 'must not be empty');
    return path.resolve(cwd, value);
  };

  const configFile = file('authorization-config');
  const policyFile = file('authorization-policy-file');
  if (configFile !== undefined) {
    if (seen.has('authorization-mode') || WEBHOOK_FLAGS.some((f) => seen.has(f))) {
      throw new OptionsError(
        '--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined',
      );
    }
    return { configFile, modes: [], policyFile };
  }

  const version = valueOf('authorization-webhook-version');
  if (version !== 'v1' && version !== 'v1beta1')
    throw invalid('authorization-webhook-version', version, 'must be v1 or v1beta1');
  const ttl = (name: string) => {
    const ms = parseDurationFlag(name, valueOf(name));
    if (ms < 0) throw invalid(name, valueOf(name), 'must not be negative');
    return ms;
  };
  const authorizedTtlMs = ttl('authorization-webhook-cache-authorized-ttl');
  const unauthorizedTtlMs = ttl('authorization-webhook-cache-unauthorized-ttl');

  const webhookConfigFile = file('authorization-webhook-config-file');
  if (modes.includes('Webhook') && webhookConfigFile === undefined)
    throw new OptionsError("authorization-mode Webhook's authorization config file not passed");
  if (webhookConfigFile !== undefined && !modes.includes('Webhook'))
    throw new OptionsError('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (modes.includes('ABAC') && policyFile === undefined)
    throw new OptionsError("authorization-mode ABAC's authorization policy file not passed");
  if (policyFile !== undefined && !modes.includes('ABAC'))
    throw new OptionsError('cannot specify --authorization-policy-file without mode ABAC');

  return {
    modes,
    policyFile,
    webhook:
      webhookConfigFile === undefined
        ? undefined
        : { configFile: webhookConfigFile, version, authorizedTtlMs, unauthorizedTtlMs },
  };
}
