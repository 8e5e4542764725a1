// The service-account token flags, spelled and checked as kube-apiserver does. Only the flag values are parsed here;
// the key files are read (and the default key generated) at start-up by authn/service-account-keys.ts, which turns
// an unreadable or keyless file into an OptionsError naming the flag and the file as well.
//
// Defaults where upstream has none: kube-apiserver refuses to start without --service-account-issuer; Gatehouse
// starts without flags, so it issues as `https://kubernetes.default.svc.cluster.local` (what kubeadm and k3s pass).
import path from 'node:path';
// options.ts calls into this module and this module into options.ts, but only inside functions: no import is read
// while a module is being evaluated, so the cycle is harmless.
import { invalid, parseBoolFlag, parseDurationFlag } from './flag-primitives.js';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** Upstream's bounds for --service-account-max-token-expiration (when not 0). */
const MIN_MAX_EXPIRATION_SECONDS = 3600;
const MAX_MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface ServiceAccountOptions {
  /** --service-account-key-file, resolved, in order; empty means "fall back" (see service-account-keys.ts). */
  keyFiles: string[];
  /** --service-account-signing-key-file, resolved. */
  signingKeyFile?: string;
  /** --service-account-issuer: the first issues, all are accepted. Never empty. */
  issuers: string[];
  /** --api-audiences, defaulting to the issuers (as upstream's authentication options do). */
  apiAudiences: string[];
  /** --service-account-max-token-expiration in seconds; 0 means no cap. */
  maxExpirationSeconds: number;
  /** --service-account-lookup. */
  lookup: boolean;
}

function parseIssuers(values: string[]): string[] {
  if (values.length === 0) return [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const seen = new Set<string>();
  for (const issuer of values) {
    if (issuer === '') throw invalid('service-account-issuer', issuer, 'should not be an empty string');
    if (issuer.includes(':') && !URL.canParse(issuer)) {
      throw invalid('service-account-issuer', issuer, "contained a ':' but was not a valid URL");
    }
    if (seen.has(issuer)) throw invalid('service-account-issuer', issuer, 'is already specified');
    seen.add(issuer);
  }
  return values;
}

function parseAudiences(values: string[], issuers: string[]): string[] {
  // A string slice flag: comma-separated, repeatable; an explicitly empty value means "unset".
  const audiences = values
    .flatMap((v) => v.split(','))
    .map((a) => a.trim())
    .filter((a) => a !== '');
  return audiences.length > 0 ? [...new Set(audiences)] : [...issuers];
}

function parseMaxExpiration(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const ms = parseDurationFlag('service-account-max-token-expiration', raw);
  const seconds = Math.floor(ms / 1000);
  if (seconds !== 0 && (seconds < MIN_MAX_EXPIRATION_SECONDS || seconds > MAX_MAX_EXPIRATION_SECONDS)) {
    throw invalid('service-account-max-token-expiration', raw, 'must be between 1 hour and 2^32 seconds');
  }
  return seconds;
}

function resolveFile(flag: string, value: string, cwd: string): string {
  if (value === '') throw invalid(flag, value, 'must not be empty');
  return path.resolve(cwd, value);
}

/** `values(flag)`: every value given for the flag, in order (repeatable flags keep all of them). */
export function parseServiceAccountOptions(values: (flag: string) => string[], cwd: string): ServiceAccountOptions {
  const issuers = parseIssuers(values('service-account-issuer'));
  const signing = values('service-account-signing-key-file').at(-1);
  const lookup = values('service-account-lookup').at(-1);
  return {
    keyFiles: values('service-account-key-file').map((f) => resolveFile('service-account-key-file', f, cwd)),
    signingKeyFile: signing === undefined ? undefined : resolveFile('service-account-signing-key-file', signing, cwd),
    issuers,
    apiAudiences: parseAudiences(values('api-audiences'), issuers),
    maxExpirationSeconds: parseMaxExpiration(values('service-account-max-token-expiration').at(-1)),
    lookup: lookup === undefined ? true : parseBoolFlag('service-account-lookup', lookup),
  };
}
