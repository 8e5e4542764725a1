// Command-line flags, spelled and defaulted as kube-apiserver spells them so that operators can carry their habits
// over. Parsing is strict: an unknown flag or a bad value is an OptionsError naming both, and main exits 1.
import { ADMISSION_GROUPS, type AdmissionReviewGroup } from '../admission/webhook/admission-review.js';
import path from 'node:path';
import { parseStorageUrl, StorageUrlError, type StorageUrlResult } from './storage-options.js';
import net from 'node:net';
import { parseFeatureGates, FeatureGateError, type FeatureGates } from './feature-gates.js';
import { parseRuntimeConfig, type RuntimeConfig } from './runtime-config.js';
import { parseAdmissionOptions, type AdmissionOptions } from '../admission/admission-flags.js';
import { AUTHORIZATION_MODES, type AuthorizationMode } from '../../policies/build-authorizer.js';
import { readClientCaBundle } from '../authn/client-cert.js';
import { loadClientCertificate } from '../aggregator/upstream-tls.js';
import { parseControllersFlag, type ControllerSelection } from '../controllers/controllers-flag.js';
import { parseServiceAccountOptions, type ServiceAccountOptions } from './service-account-options.js';
import { parseAuthenticationFlags, type OidcFlagOptions } from '../authn/oidc/flags.js';
import { parseRequestHeaderOptions, type RequestHeaderOptions } from '../authn/request-header-options.js';
import { parseAuthorizationOptions } from './authorization-options.js';
import { parseAuditOptions, type AuditOptions } from '../audit/audit-flags.js';
import { expandVerbosityShorthand, parseLoggingOptions, type LoggingOptions } from './logging-flags.js';
import { parseMetricOptions } from '../metrics/flags.js';
import type { MetricOptions } from '../metrics/registration.js';
import type { AuthorizationSettings } from '../../policies/config/authorization-chain.js';
import { parseSharedStateOptions, type SharedStateOptions } from '../shared-state/flags.js';
import {
  OptionsError,
  invalid,
  parseBoolFlag,
  parseDurationFlag,
  parseFloatFlag,
  parseIntFlag,
} from './flag-primitives.js';

import { ALIASES, FLAGS, STORAGE_BACKENDS, type StorageBackendName } from './flag-table.js';
export { STORAGE_BACKENDS, usage, type StorageBackendName } from './flag-table.js';
/** The storage URL may come from the environment so that its password stays out of process listings. */
export { STORAGE_URL_ENV } from './storage-options.js';
// parseOptions throws it: callers catch it from here.
export { OptionsError } from './flag-primitives.js';

export interface GatehouseOptions extends LoggingOptions {
  /** --disabled-metrics, --show-hidden-metrics-for-version, --allow-metric-labels[-manifest] (metrics/flags.ts). */
  metrics: MetricOptions;
  securePort: number;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  certDir: string;
  dataDir: string;
  tokenAuthFile?: string;
  /** --aggregator-endpoints-file: where the Services APIServices name are reached (gateway/aggregator/). */
  aggregatorEndpointsFile?: string;
  /** --admission-review-api-group: the group of the AdmissionReviews webhooks are sent. */
  admissionReviewApiGroup: AdmissionReviewGroup;
  /** --proxy-client-cert-file and --proxy-client-key-file: what the aggregator presents to remote APIServices. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /** PEM bundle of the CAs whose client certificates authenticate; checked to hold certificates while parsing. */
  clientCaFile?: string;
  anonymousAuth: boolean;
  /** --enable-bootstrap-token-auth: `<id>.<secret>` bearer tokens backed by Secrets in platform-system. */
  enableBootstrapTokenAuth: boolean;
  /** --controllers: which in-process controllers run. */
  controllers: ControllerSelection;
  /** --service-account-* and --api-audiences (service-account-options.ts). */
  serviceAccounts: ServiceAccountOptions;
  /** --oidc-* flags (checked; turned into a JWT authenticator by authn/oidc/setup.ts). */
  oidc: OidcFlagOptions;
  /** --authentication-config: AuthenticationConfiguration file (exclusive with the --oidc-* flags). */
  authenticationConfigFile?: string;
  /** Whether --anonymous-auth was given explicitly (it may not be, beside an `anonymous` in the configuration file). */
  anonymousAuthFlagSet: boolean;
  /** The authenticating proxy (--requestheader-*); set only with --requestheader-client-ca-file. */
  requestHeader?: RequestHeaderOptions;
  authorizationModes: AuthorizationMode[];
  /** --authorization-config or the modes with their webhook and ABAC flags (authorization-options.ts). */
  authorization: AuthorizationSettings;
  /** --audit-policy-file and the audit backends' flags (gateway/audit/audit-flags.ts). */
  audit: AuditOptions;
  runtimeConfig: RuntimeConfig;
  /** --enable-admission-plugins and --disable-admission-plugins (admission/admission-flags.ts). */
  admission: AdmissionOptions;
  featureGates: FeatureGates;
  shutdownDelayMs: number;
  shutdownWatchTerminationGracePeriodMs: number;
  livezGracePeriodMs: number;
  requestTimeoutMs: number;
  minRequestTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  /** SETTINGS_MAX_CONCURRENT_STREAMS offered to HTTP/2 clients; 0 leaves Node's default. */
  http2MaxStreamsPerConnection: number;
  /** Chance that an HTTP/2 request makes its connection go away (--goaway-chance), so clients rebalance. */
  goawayChance: number;
  /** API Priority and Fairness (--enable-priority-and-fairness); off: the two in-flight limits below apply alone. */
  enablePriorityAndFairness: boolean;
  /**
   * Non-mutating, non-long-running requests served at once (--max-requests-inflight); 0: no limit. With priority and
   * fairness, it and the mutating limit add up to the server's seats.
   */
  maxRequestsInflight: number;
  /** Mutating requests served at once (--max-mutating-requests-inflight); 0: no limit. */
  maxMutatingRequestsInflight: number;
  /** Connections open at once (--max-connections); 0: no cap; absent: half the process's open-file limit. */
  maxConnections?: number;
  /** TLS handshake plus first request head, from the TCP accept (--read-header-timeout); 0 disables. */
  readHeaderTimeoutMs: number;
  /** Time to receive a request body once a handler reads it (--read-body-timeout); 0 disables. */
  readBodyTimeoutMs: number;
  historyWindowMs: number;
  /** --event-ttl: events are deleted this long after their last write. */
  eventTtlMs: number;
  storageBackend: StorageBackendName;
  /** postgres:// URL (postgres backend only); never log it unredacted (redactUrl). */
  storageUrl?: string;
  /** --redis-url, --redis-timeout and the rate limits (gateway/shared-state/flags.ts). */
  sharedState: SharedStateOptions;
  /** Said at start-up: settings that are allowed but probably not what was meant. */
  warnings: string[];
  help: boolean;
}

/** Splits argv into flag → raw values (in order), checking names and the presence of values. */
function scan(argv: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = expandVerbosityShorthand(argv[i]);
    if (arg === '-h') {
      seen.set('help', ['true']);
      continue;
    }
    if (!arg.startsWith('--') || arg === '--')
      throw new OptionsError(`unexpected argument "${arg}": gatehouse takes flags only`);
    const eq = arg.indexOf('=');
    const given = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
    const name = ALIASES[given] ?? given;
    const spec = FLAGS[name];
    if (!spec) throw new OptionsError(`unknown flag: --${given}`);
    let value: string;
    if (eq >= 0) {
      value = arg.slice(eq + 1);
    } else if (spec.kind === 'bool') {
      value = 'true';
    } else {
      if (i + 1 >= argv.length) throw new OptionsError(`flag needs an argument: --${given}`);
      value = argv[++i];
    }
    seen.set(name, [...(seen.get(name) ?? []), value]);
  }
  return seen;
}

function parseGoawayChance(raw: string): number {
  const chance = parseFloatFlag('goaway-chance', raw);
  if (chance < 0 || chance > 0.02)
    throw new OptionsError('--goaway-chance can not be less than 0 or greater than 0.02');
  return chance;
}

/** kube-apiserver's check of its in-flight limits (0 is allowed: no limit). */
function parseInflightLimit(flag: string, raw: string): number {
  const limit = parseIntFlag(flag, raw, Number.MIN_SAFE_INTEGER, 2 ** 31 - 1);
  if (limit < 0) throw new OptionsError(`--${flag} can not be negative value`);
  return limit;
}

function parseInflightLimits(
  last: (name: string) => string,
): Pick<GatehouseOptions, 'enablePriorityAndFairness' | 'maxRequestsInflight' | 'maxMutatingRequestsInflight'> {
  const enablePriorityAndFairness = parseBoolFlag('enable-priority-and-fairness', last('enable-priority-and-fairness'));
  const maxRequestsInflight = parseInflightLimit('max-requests-inflight', last('max-requests-inflight'));
  const maxMutatingRequestsInflight = parseInflightLimit(
    'max-mutating-requests-inflight',
    last('max-mutating-requests-inflight'),
  );
  // With priority and fairness the two are the server's seats, which must not be none.
  if (enablePriorityAndFairness && maxRequestsInflight + maxMutatingRequestsInflight <= 0)
    throw new OptionsError(
      `--max-requests-inflight=${maxRequestsInflight} and --max-mutating-requests-inflight=${maxMutatingRequestsInflight} yield a server concurrency limit of 0; it must be positive while --enable-priority-and-fairness is true`,
    );
  return { enablePriorityAndFairness, maxRequestsInflight, maxMutatingRequestsInflight };
}

function parseModes(raw: string): AuthorizationMode[] {
  const modes = raw.split(',').map((m) => m.trim());
  if (modes.length === 0 || modes.some((m) => m === '')) {
    throw invalid('authorization-mode', raw, 'at least one authorization mode must be given, without empty entries');
  }
  const seen = new Set<string>();
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(mode)) {
      throw invalid(
        'authorization-mode',
        raw,
        `authorization mode "${mode}" is not a valid mode (valid: ${AUTHORIZATION_MODES.join(', ')})`,
      );
    }
    if (seen.has(mode))
      throw invalid('authorization-mode', raw, `authorization mode "${mode}" is specified more than once`);
    seen.add(mode);
  }
  return modes as AuthorizationMode[];
}

function isIP(value: string): boolean {
  return net.isIP(value) !== 0;
}

/**
 * Parses kube-apiserver-style argv (`--flag=value`, `--flag value`, bare `--bool`). `cwd` resolves relative paths
 * so that in-process tests need not chdir.
 */
export function parseOptions(
  argv: string[],
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): GatehouseOptions {
  const seen = scan(argv);
  const last = (name: string): string => {
    const values = seen.get(name);
    const value = values ? values[values.length - 1] : FLAGS[name].default;
    return value ?? '';
  };
  const optional = (name: string): string | undefined => {
    const value = seen.get(name)?.at(-1);
    if (value === '') throw invalid(name, value, 'must not be empty');
    return value === undefined ? undefined : path.resolve(cwd, value);
  };

  const dataDir = path.resolve(cwd, last('data-dir'));
  if (last('data-dir') === '') throw invalid('data-dir', '', 'must not be empty');

  const bindAddress = last('bind-address');
  if (!isIP(bindAddress)) throw invalid('bind-address', bindAddress, 'must be an IP address');

  const tlsCertFile = optional('tls-cert-file');
  const tlsPrivateKeyFile = optional('tls-private-key-file');
  if ((tlsCertFile === undefined) !== (tlsPrivateKeyFile === undefined)) {
    throw new OptionsError('--tls-cert-file and --tls-private-key-file must be given together');
  }

  const proxyClientCertFile = optional('proxy-client-cert-file');
  const proxyClientKeyFile = optional('proxy-client-key-file');
  if ((proxyClientCertFile === undefined) !== (proxyClientKeyFile === undefined)) {
    throw new OptionsError('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  if (proxyClientCertFile !== undefined && proxyClientKeyFile !== undefined) {
    // A pair that does not load would otherwise only show as every proxied request failing its handshake.
    try {
      loadClientCertificate(proxyClientCertFile, proxyClientKeyFile);
    } catch (e) {
      throw invalid('proxy-client-cert-file', proxyClientCertFile, (e as Error).message);
    }
  }

  const clientCaFile = optional('client-ca-file');
  if (clientCaFile !== undefined) {
    // A bad bundle would otherwise only show as every client certificate being refused.
    try {
      readClientCaBundle(clientCaFile);
    } catch (e) {
      throw invalid('client-ca-file', clientCaFile, (e as Error).message);
    }
  }

  const authenticationFlags = parseAuthenticationFlags((name) => seen.get(name), cwd);
  const requestHeader = parseRequestHeaderOptions(
    (name) => seen.get(name),
    (file) => path.resolve(cwd, file),
    invalid,
  );

  let featureGates: FeatureGates;
  try {
    featureGates = parseFeatureGates(seen.get('feature-gates') ?? []);
  } catch (e) {
    if (e instanceof FeatureGateError)
      throw invalid('feature-gates', (seen.get('feature-gates') ?? []).join(','), e.message);
    throw e;
  }

  let runtimeConfig: RuntimeConfig;
  try {
    runtimeConfig = parseRuntimeConfig(seen.get('runtime-config') ?? []);
  } catch (e) {
    throw invalid('runtime-config', (seen.get('runtime-config') ?? []).join(','), (e as Error).message);
  }

  let admission: AdmissionOptions;
  try {
    admission = parseAdmissionOptions(
      seen.get('enable-admission-plugins') ?? [],
      seen.get('disable-admission-plugins') ?? [],
    );
  } catch (e) {
    throw new OptionsError((e as Error).message);
  }

  const storageBackend = last('storage-backend');
  if (!(STORAGE_BACKENDS as readonly string[]).includes(storageBackend)) {
    throw invalid(
      'storage-backend',
      storageBackend,
      `unknown storage backend (supported: ${STORAGE_BACKENDS.join(', ')})`,
    );
  }

  let storage: StorageUrlResult;
  try {
    storage = parseStorageUrl(seen.get('storage-url')?.at(-1), env, storageBackend);
  } catch (e) {
    if (e instanceof StorageUrlError) throw new OptionsError(e.message);
    throw e;
  }

  const admissionReviewApiGroup = last('admission-review-api-group');
  if (!(admissionReviewApiGroup in ADMISSION_GROUPS))
    throw invalid(
      'admission-review-api-group',
      admissionReviewApiGroup,
      `must be one of ${Object.keys(ADMISSION_GROUPS).join(', ')}`,
    );

  const historyWindowMs = parseDurationFlag('history-window', last('history-window'));
  if (historyWindowMs <= 0) throw invalid('history-window', last('history-window'), 'must be greater than 0');

  // With --authorization-config the modes come from the file (authorization-options.ts refuses both together).
  const authorizationModes = seen.has('authorization-config') ? [] : parseModes(last('authorization-mode'));

  return {
    securePort: parseIntFlag('secure-port', last('secure-port'), 0, 65535),
    bindAddress,
    tlsCertFile,
    tlsPrivateKeyFile,
    certDir: seen.has('cert-dir') ? path.resolve(cwd, last('cert-dir')) : path.join(dataDir, 'pki'),
    dataDir,
    tokenAuthFile: optional('token-auth-file'),
    aggregatorEndpointsFile: optional('aggregator-endpoints-file'),
    admissionReviewApiGroup: admissionReviewApiGroup as AdmissionReviewGroup,
    proxyClientCertFile,
    proxyClientKeyFile,
    clientCaFile,
    anonymousAuth: parseBoolFlag('anonymous-auth', last('anonymous-auth')),
    enableBootstrapTokenAuth: parseBoolFlag('enable-bootstrap-token-auth', last('enable-bootstrap-token-auth')),
    controllers: parseControllersFlag(seen.get('controllers') ?? []),
    serviceAccounts: parseServiceAccountOptions((name) => seen.get(name) ?? [], cwd),
    ...authenticationFlags,
    requestHeader,
    authorizationModes,
    authorization: parseAuthorizationOptions(seen, authorizationModes, cwd),
    audit: parseAuditOptions(seen, cwd),
    runtimeConfig,
    admission,
    featureGates,
    shutdownDelayMs: parseDurationFlag('shutdown-delay-duration', last('shutdown-delay-duration')),
    shutdownWatchTerminationGracePeriodMs: parseDurationFlag(
      'shutdown-watch-termination-grace-period',
      last('shutdown-watch-termination-grace-period'),
    ),
    livezGracePeriodMs: parseDurationFlag('livez-grace-period', last('livez-grace-period')),
    requestTimeoutMs: parseDurationFlag('request-timeout', last('request-timeout')),
    minRequestTimeoutSeconds: parseIntFlag('min-request-timeout', last('min-request-timeout'), 0, 2 ** 31 - 1),
    maxRequestBodyBytes: parseIntFlag(
      'max-request-body-bytes',
      last('max-request-body-bytes'),
      1,
      Number.MAX_SAFE_INTEGER,
    ),
    goawayChance: parseGoawayChance(last('goaway-chance')),
    ...parseInflightLimits(last),
    maxConnections: seen.has('max-connections')
      ? parseIntFlag('max-connections', last('max-connections'), 0, 2 ** 31 - 1)
      : undefined,
    readHeaderTimeoutMs: parseDurationFlag('read-header-timeout', last('read-header-timeout')),
    readBodyTimeoutMs: parseDurationFlag('read-body-timeout', last('read-body-timeout')),
    http2MaxStreamsPerConnection: parseIntFlag(
      'http2-max-streams-per-connection',
      last('http2-max-streams-per-connection'),
      0,
      2 ** 32 - 1,
    ),
    historyWindowMs,
    eventTtlMs: parseDurationFlag('event-ttl', last('event-ttl')),
    storageBackend: storageBackend as StorageBackendName,
    storageUrl: storage.storageUrl,
    warnings: storage.warnings,
    help: parseBoolFlag('help', last('help')),
    ...parseLoggingOptions(last, parseIntFlag, invalid),
    metrics: parseMetricOptions((name) => seen.get(name), cwd),
    sharedState: parseSharedStateOptions(seen, env, cwd),
  };
}
