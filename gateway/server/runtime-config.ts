// `--runtime-config`: switches whole API group/versions, or single resources, on and off, as kube-apiserver's
// resourceconfig does. The composer asks `enabled()` for every group/version/resource it is about to serve.

export interface RuntimeConfig {
  /** `api/all=<bool>` when given. */
  readonly all?: boolean;
  /** `<group>/<version>` → bool; the core group is written `v1` or `api/v1` and stored as `/v1`. */
  readonly groupVersions: ReadonlyMap<string, boolean>;
  /** `<group>/<version>/<resource>` → bool (core: `v1/<resource>` stored as `/v1/<resource>`). */
  readonly resources: ReadonlyMap<string, boolean>;
  /** `api/ga`, `api/beta`, `api/alpha` → bool. */
  readonly stages: ReadonlyMap<'ga' | 'beta' | 'alpha', boolean>;
  /**
   * Whether a resource is served: the most specific setting wins (resource, then group/version, then stage, then
   * api/all), else `defaultEnabled`.
   */
  enabled(group: string, version: string, resource?: string, defaultEnabled?: boolean): boolean;
}

function stageOf(version: string): 'ga' | 'beta' | 'alpha' {
  if (/^v\d+alpha\d+$/.test(version)) return 'alpha';
  if (/^v\d+beta\d+$/.test(version)) return 'beta';
  return 'ga';
}

function parseBool(key: string, raw: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return false;
  throw new Error(`invalid value of ${key}: ${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
}

const SEGMENT = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function parseRuntimeConfig(spec: string | string[] = []): RuntimeConfig {
  const entries = (Array.isArray(spec) ? spec : [spec])
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter((s) => s !== '');
  let all: boolean | undefined;
  const groupVersions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  const stages = new Map<'ga' | 'beta' | 'alpha', boolean>();

  for (const entry of entries) {
    const eq = entry.indexOf('=');
    const key = eq < 0 ? entry : entry.slice(0, eq);
    const value = eq < 0 ? true : parseBool(key, entry.slice(eq + 1));
    if (key === 'api/all') {
      all = value;
      continue;
    }
    if (key === 'api/ga' || key === 'api/beta' || key === 'api/alpha') {
      stages.set(key.slice(4) as 'ga' | 'beta' | 'alpha', value);
      continue;
    }
    if (key === 'api/legacy') {
      groupVersions.set('/v1', value);
      continue;
    }
    // The core group has no name: `v1`, `api/v1` and `v1/<resource>` all address it.
    const parts = key.split('/');
    const normalized = parts[0] === 'api' ? ['', ...parts.slice(1)] : /^v\d/.test(parts[0]) ? ['', ...parts] : parts;
    if (
      normalized.length < 2 ||
      normalized.length > 3 ||
      normalized.slice(1).some((p) => !SEGMENT.test(p)) ||
      (normalized[0] !== '' && !SEGMENT.test(normalized[0]))
    ) {
      throw new Error(`invalid key "${key}": expected api/all, <group>/<version> or <group>/<version>/<resource>`);
    }
    if (!/^v\d+((alpha|beta)\d+)?$/.test(normalized[1])) {
      throw new Error(`invalid key "${key}": "${normalized[1]}" is not an API version`);
    }
    (normalized.length === 2 ? groupVersions : resources).set(normalized.join('/'), value);
  }

  return {
    all,
    groupVersions,
    resources,
    stages,
    enabled(group, version, resource, defaultEnabled = true) {
      const gv = `${group}/${version}`;
      if (resource !== undefined) {
        const r = resources.get(`${gv}/${resource}`);
        if (r !== undefined) return r;
      }
      return groupVersions.get(gv) ?? stages.get(stageOf(version)) ?? all ?? defaultEnabled;
    },
  };
}
