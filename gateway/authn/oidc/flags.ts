// The --oidc-* flags and --authentication-config, checked as kube-apiserver checks them. The flags describe one JWT
// authenticator; like upstream they are turned into an AuthenticationConfiguration with one `jwt` entry, so that both
// ways of configuring go through the same validation and the same authenticator:
// - the username prefix defaults (legacy behaviour) to `<issuer-url>#` for every claim but `email`; `-` disables it;
// - --oidc-groups-claim becomes a groups mapping with --oidc-groups-prefix ('' when not given);
// - each --oidc-required-claim key=value becomes a claim validation rule;
// - --oidc-signing-algs limits the accepted `alg` (default RS256); a configuration file accepts every supported one.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { invalid, OptionsError } from '../../server/flag-primitives.js';
import { parseCaBundle } from '../client-cert.js';
import type { AuthenticationConfiguration, JwtAuthenticatorConfig } from './config.js';
import { urlProblems } from './config-validation.js';

/** The JOSE algorithms kube-apiserver accepts for ID tokens (RFC 7518 asymmetric signatures). */
export const SUPPORTED_SIGNING_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
] as const;

export const OIDC_FLAG_NAMES = [
  'oidc-issuer-url',
  'oidc-client-id',
  'oidc-ca-file',
  'oidc-username-claim',
  'oidc-username-prefix',
  'oidc-groups-claim',
  'oidc-groups-prefix',
  'oidc-signing-algs',
  'oidc-required-claim',
] as const;

export interface OidcFlagOptions {
  /** Whether any --oidc-* flag was given (upstream's FlagsSet). */
  flagsSet: boolean;
  issuerUrl?: string;
  clientId?: string;
  caFile?: string;
  usernameClaim: string;
  usernamePrefix?: string;
  groupsClaim?: string;
  groupsPrefix?: string;
  signingAlgs: string[];
  /** In the order given; a repeated key keeps its last value. */
  requiredClaims: Array<{ claim: string; value: string }>;
}

export interface AuthenticationFlagOptions {
  oidc: OidcFlagOptions;
  /** --authentication-config, resolved against cwd. */
  authenticationConfigFile?: string;
  anonymousAuthFlagSet: boolean;
}

/**
 * Reads the authentication flags. `values(name)` gives every raw value of a flag in order (undefined when absent).
 * Throws OptionsError naming the flag and its value.
 */
export function parseAuthenticationFlags(
  values: (name: string) => string[] | undefined,
  cwd: string,
): AuthenticationFlagOptions {
  const last = (name: string): string | undefined => values(name)?.at(-1);
  const flagsSet = OIDC_FLAG_NAMES.some((name) => values(name) !== undefined);

  const configRaw = last('authentication-config');
  if (configRaw === '') throw invalid('authentication-config', '', 'must not be empty');
  const authenticationConfigFile = configRaw === undefined ? undefined : path.resolve(cwd, configRaw);
  if (authenticationConfigFile !== undefined && flagsSet) {
    throw new OptionsError('authentication-config file and oidc-* flags are mutually exclusive');
  }

  const issuerUrl = last('oidc-issuer-url') || undefined;
  const clientId = last('oidc-client-id') || undefined;
  if (flagsSet && (issuerUrl === undefined || clientId === undefined)) {
    throw new OptionsError(
      'oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set',
    );
  }
  if (issuerUrl !== undefined) {
    const problems = urlProblems(issuerUrl);
    if (problems.length > 0) throw invalid('oidc-issuer-url', issuerUrl, problems.join(', '));
  }

  // A string slice as pflag's: repeating the flag appends.
  const signingAlgsRaw = values('oidc-signing-algs')?.join(',') ?? 'RS256';
  const signingAlgs = signingAlgsRaw
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  if (signingAlgs.length === 0)
    throw invalid('oidc-signing-algs', signingAlgsRaw, 'at least one signing algorithm is required');
  for (const alg of signingAlgs) {
    if (!(SUPPORTED_SIGNING_ALGS as readonly string[]).includes(alg)) {
      throw invalid(
        'oidc-signing-algs',
        signingAlgsRaw,
        `oidc: unsupported signing alg: "${alg}" (supported: ${SUPPORTED_SIGNING_ALGS.join(', ')})`,
      );
    }
  }

  // key=value, split at the first '=' only (upstream's MapStringStringNoSplit: values may hold commas).
  const byClaim = new Map<string, string>();
  for (const raw of values('oidc-required-claim') ?? []) {
    const eq = raw.indexOf('=');
    if (eq <= 0) throw invalid('oidc-required-claim', raw, `${raw} must be formatted as key=value`);
    const claim = raw.slice(0, eq).trim();
    byClaim.delete(claim);
    byClaim.set(claim, raw.slice(eq + 1).trim());
  }

  const caRaw = last('oidc-ca-file');
  if (caRaw === '') throw invalid('oidc-ca-file', '', 'must not be empty');
  const caFile = caRaw === undefined ? undefined : path.resolve(cwd, caRaw);
  if (caFile !== undefined) {
    // A bad bundle would otherwise only show as every ID token being refused.
    try {
      parseCaBundle(readFileSync(caFile, 'utf8'));
    } catch (e) {
      throw invalid('oidc-ca-file', caFile, (e as Error).message);
    }
  }

  return {
    authenticationConfigFile,
    anonymousAuthFlagSet: values('anonymous-auth') !== undefined,
    oidc: {
      flagsSet,
      issuerUrl,
      clientId,
      caFile,
      usernameClaim: last('oidc-username-claim') ?? 'sub',
      usernamePrefix: last('oidc-username-prefix'),
      groupsClaim: last('oidc-groups-claim') || undefined,
      groupsPrefix: last('oidc-groups-prefix'),
      signingAlgs,
      requiredClaims: [...byClaim].map(([claim, value]) => ({ claim, value })),
    },
  };
}

/** The one-entry configuration the flags stand for (null when no issuer is configured). */
export function oidcFlagsToConfig(oidc: OidcFlagOptions): AuthenticationConfiguration | null {
  if (!oidc.issuerUrl || !oidc.clientId) return null;
  let usernamePrefix = oidc.usernamePrefix ?? '';
  if (usernamePrefix === '' && oidc.usernameClaim !== 'email') usernamePrefix = `${oidc.issuerUrl}#`;
  if (oidc.usernamePrefix === '-') usernamePrefix = '';
  const jwt: JwtAuthenticatorConfig = {
    issuer: {
      url: oidc.issuerUrl,
      audiences: [oidc.clientId],
      certificateAuthority: oidc.caFile ? readFileSync(oidc.caFile, 'utf8') : undefined,
    },
    claimValidationRules: oidc.requiredClaims.map(({ claim, value }) => ({ claim, requiredValue: value })),
    claimMappings: {
      username: { claim: oidc.usernameClaim, prefix: usernamePrefix },
      groups: oidc.groupsClaim ? { claim: oidc.groupsClaim, prefix: oidc.groupsPrefix ?? '' } : {},
      uid: {},
      extra: [],
    },
    userValidationRules: [],
  };
  return { jwt: [jwt] };
}
