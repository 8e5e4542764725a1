// Feature gates as kube-apiserver's component-base/featuregate knows them: a table of known gates with a stage and
// a default, set from `--feature-gates=A=true,B=false`. An unknown name is a start-up error, because a typo would
// otherwise silently leave a feature in its default state.

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  stage: FeatureStage;
  default: boolean;
  /** GA gates are locked to their default: setting the other value is an error. */
  locked?: boolean;
}

/** The gates this server understands, with their v1.32 stage and default. */
export const KNOWN_FEATURES = {
  APIResponseCompression: { stage: 'BETA', default: true },
  AllowUnsafeMalformedObjectDeletion: { stage: 'ALPHA', default: false },
  CBORServingAndStorage: { stage: 'ALPHA', default: false },
  ConsistentListFromCache: { stage: 'BETA', default: true },
  WatchList: { stage: 'BETA', default: true },
  RetryGenerateName: { stage: 'GA', default: true, locked: true },
  AggregatedDiscoveryEndpoint: { stage: 'GA', default: true, locked: true },
  StructuredAuthorizationConfiguration: { stage: 'GA', default: true, locked: true },
  StructuredAuthenticationConfiguration: { stage: 'BETA', default: true },
  AnonymousAuthConfigurableEndpoints: { stage: 'BETA', default: true },
  MutatingAdmissionPolicy: { stage: 'ALPHA', default: false },
  StorageVersionAPI: { stage: 'ALPHA', default: false },
  KMSv1: { stage: 'DEPRECATED', default: false },
} as const satisfies Record<string, FeatureSpec>;

export type FeatureName = keyof typeof KNOWN_FEATURES;

export interface FeatureGates {
  enabled(name: FeatureName): boolean;
  /** Every known gate with its effective value (for logs and /metrics). */
  all(): Record<FeatureName, boolean>;
  /** Warnings produced while parsing (deprecated or GA gates set explicitly). */
  readonly warnings: readonly string[];
}

export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

function isKnown(name: string): name is FeatureName {
  return Object.prototype.hasOwnProperty.call(KNOWN_FEATURES, name);
}

function parseBool(name: string, raw: string): boolean {
  // Go's strconv.ParseBool spellings, since kube-apiserver accepts exactly those.
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  throw new FeatureGateError(
    `invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`,
  );
}

/**
 * Parses `A=true,B=false` (repeated flags are joined by the caller). `AllAlpha` and `AllBeta` set every gate of
 * that stage first; explicit gates override them whatever their order.
 */
export function parseFeatureGates(spec: string | string[] = ''): FeatureGates {
  const entries = (Array.isArray(spec) ? spec : [spec])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const overrides = new Map<FeatureName, boolean>();
  const stageOverrides = new Map<FeatureStage, boolean>();
  const warnings: string[] = [];

  for (const entry of entries) {
    const eq = entry.indexOf('=');
    if (eq < 0) throw new FeatureGateError(`missing bool value for ${entry}`);
    const name = entry.slice(0, eq).trim();
    const value = parseBool(name, entry.slice(eq + 1).trim());
    if (name === 'AllAlpha' || name === 'AllBeta') {
      stageOverrides.set(name === 'AllAlpha' ? 'ALPHA' : 'BETA', value);
      continue;
    }
    if (!isKnown(name)) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    const known: FeatureSpec = KNOWN_FEATURES[name];
    if (known.locked && value !== known.default) {
      throw new FeatureGateError(`cannot set feature gate ${name} to ${value}, feature is locked to ${known.default}`);
    }
    if (known.stage === 'DEPRECATED') {
      warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
    } else if (known.stage === 'GA') {
      warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    overrides.set(name, value);
  }

  const effective = {} as Record<FeatureName, boolean>;
  for (const name of Object.keys(KNOWN_FEATURES) as FeatureName[]) {
    const known: FeatureSpec = KNOWN_FEATURES[name];
    effective[name] = overrides.get(name) ?? stageOverrides.get(known.stage) ?? known.default;
  }

  return {
    enabled: (name) => effective[name],
    all: () => ({ ...effective }),
    warnings,
  };
}
