// --authentication-config: the AuthenticationConfiguration file (group apiserver.config.platform.io, versions v1alpha1,
// v1beta1 and v1, same fields as upstream 1.32), read as YAML or JSON. Decoding is strict, as kube-apiserver's is: an
// unknown or misspelt field and a value of the wrong JSON type refuse the file, naming the field path. Semantic rules
// (https issuers, claim XOR expression, CEL compilation) live in config-validation.ts.
import { readFile } from 'node:fs/promises';
import yaml from 'js-yaml';

export const AUTHENTICATION_CONFIG_GROUP = 'apiserver.config.platform.io';
export const AUTHENTICATION_CONFIG_VERSIONS = ['v1alpha1', 'v1beta1', 'v1'] as const;
export const AUTHENTICATION_CONFIG_KIND = 'AuthenticationConfiguration';

export interface Issuer {
  url: string;
  discoveryURL?: string;
  /** PEM bundle, inline. */
  certificateAuthority?: string;
  audiences: string[];
  audienceMatchPolicy?: string;
}

export interface ClaimValidationRule {
  claim?: string;
  requiredValue?: string;
  expression?: string;
  message?: string;
}

/** `prefix` undefined is Go's nil pointer (not given); '' is given-and-empty (no prefixing). */
export interface PrefixedClaimOrExpression {
  claim?: string;
  prefix?: string;
  expression?: string;
}

export interface ClaimOrExpression {
  claim?: string;
  expression?: string;
}

export interface ExtraMapping {
  key: string;
  valueExpression: string;
}

export interface ClaimMappings {
  username: PrefixedClaimOrExpression;
  groups: PrefixedClaimOrExpression;
  uid: ClaimOrExpression;
  extra: ExtraMapping[];
}

export interface UserValidationRule {
  expression: string;
  message?: string;
}

export interface JwtAuthenticatorConfig {
  issuer: Issuer;
  claimValidationRules: ClaimValidationRule[];
  claimMappings: ClaimMappings;
  userValidationRules: UserValidationRule[];
}

export interface AnonymousCondition {
  path: string;
}

export interface AnonymousConfig {
  enabled: boolean;
  conditions: AnonymousCondition[];
}

export interface AuthenticationConfiguration {
  jwt: JwtAuthenticatorConfig[];
  anonymous?: AnonymousConfig;
}

export class AuthenticationConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationConfigError';
  }
}

// A tiny strict schema: what each field must hold, so that decoding can name the exact path of a bad value.
type Shape = 'string' | 'bool' | { list: Shape } | { object: Record<string, Shape> };

const PREFIXED: Shape = { object: { claim: 'string', prefix: 'string', expression: 'string' } };
const CONFIG_SHAPE: Record<string, Shape> = {
  apiVersion: 'string',
  kind: 'string',
  jwt: {
    list: {
      object: {
        issuer: {
          object: {
            url: 'string',
            discoveryURL: 'string',
            certificateAuthority: 'string',
            audiences: { list: 'string' },
            audienceMatchPolicy: 'string',
          },
        },
        claimValidationRules: {
          list: { object: { claim: 'string', requiredValue: 'string', expression: 'string', message: 'string' } },
        },
        claimMappings: {
          object: {
            username: PREFIXED,
            groups: PREFIXED,
            uid: { object: { claim: 'string', expression: 'string' } },
            extra: { list: { object: { key: 'string', valueExpression: 'string' } } },
          },
        },
        userValidationRules: { list: { object: { expression: 'string', message: 'string' } } },
      },
    },
  },
  anonymous: { object: { enabled: 'bool', conditions: { list: { object: { path: 'string' } } } } },
};

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function goType(shape: Shape): string {
  if (shape === 'string') return 'string';
  if (shape === 'bool') return 'bool';
  return 'list' in shape ? `[]${goType(shape.list)}` : 'object';
}

interface DecodeState {
  unknown: string[];
  typeError?: string;
}

/** Checks `value` against `shape` (null counts as absent, as for Go); records unknown fields and the first type error. */
function check(value: unknown, shape: Shape, path: string, state: DecodeState): void {
  if (value === null || value === undefined) return;
  const mismatch = (): void => {
    state.typeError ??= `json: cannot unmarshal ${jsonType(value)} into Go struct field ${path} of type ${goType(shape)}`;
  };
  if (shape === 'string') {
    if (typeof value !== 'string') mismatch();
  } else if (shape === 'bool') {
    if (typeof value !== 'boolean') mismatch();
  } else if ('list' in shape) {
    if (!Array.isArray(value)) return mismatch();
    value.forEach((item, i) => check(item, shape.list, `${path}[${i}]`, state));
  } else {
    if (typeof value !== 'object' || Array.isArray(value)) return mismatch();
    checkFields(value as Record<string, unknown>, shape.object, path, state);
  }
}

function checkFields(
  value: Record<string, unknown>,
  fields: Record<string, Shape>,
  path: string,
  state: DecodeState,
): void {
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    const shape = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (shape === undefined) state.unknown.push(at);
    else check(item, shape, at, state);
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

function toPrefixed(v: unknown): PrefixedClaimOrExpression {
  const o = obj(v);
  return { claim: str(o.claim), prefix: str(o.prefix), expression: str(o.expression) };
}

function toJwt(v: unknown): JwtAuthenticatorConfig {
  const o = obj(v);
  const issuer = obj(o.issuer);
  const mappings = obj(o.claimMappings);
  const uid = obj(mappings.uid);
  return {
    issuer: {
      url: str(issuer.url) ?? '',
      discoveryURL: str(issuer.discoveryURL),
      certificateAuthority: str(issuer.certificateAuthority),
      audiences: list(issuer.audiences).map((a) => str(a) ?? ''),
      audienceMatchPolicy: str(issuer.audienceMatchPolicy),
    },
    claimValidationRules: list(o.claimValidationRules).map((r) => {
      const rule = obj(r);
      return {
        claim: str(rule.claim),
        requiredValue: str(rule.requiredValue),
        expression: str(rule.expression),
        message: str(rule.message),
      };
    }),
    claimMappings: {
      username: toPrefixed(mappings.username),
      groups: toPrefixed(mappings.groups),
      uid: { claim: str(uid.claim), expression: str(uid.expression) },
      extra: list(mappings.extra).map((e) => ({
        key: str(obj(e).key) ?? '',
        valueExpression: str(obj(e).valueExpression) ?? '',
      })),
    },
    userValidationRules: list(o.userValidationRules).map((r) => ({
      expression: str(obj(r).expression) ?? '',
      message: str(obj(r).message),
    })),
  };
}

/** Decodes the file's text; throws AuthenticationConfigError with kube-apiserver's wording for each way it can fail. */
export function parseAuthenticationConfig(text: string): AuthenticationConfiguration {
  if (text.length === 0) throw new AuthenticationConfigError('empty config data');
  let doc: unknown;
  try {
    doc = yaml.load(text, { schema: yaml.JSON_SCHEMA });
  } catch (e) {
    throw new AuthenticationConfigError(`error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new AuthenticationConfigError(`couldn't get version/kind; json parse error: the document is not an object`);
  }
  const root = doc as Record<string, unknown>;
  const apiVersion = str(root.apiVersion) ?? '';
  const kind = str(root.kind) ?? '';
  if (kind === '') throw new AuthenticationConfigError(`Object 'Kind' is missing in '${JSON.stringify(root)}'`);
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
  if (
    group !== AUTHENTICATION_CONFIG_GROUP ||
    !(AUTHENTICATION_CONFIG_VERSIONS as readonly string[]).includes(version) ||
    kind !== AUTHENTICATION_CONFIG_KIND
  ) {
    throw new AuthenticationConfigError(`no kind "${kind}" is registered for version "${apiVersion}" in scheme`);
  }
  const state: DecodeState = { unknown: [] };
  checkFields(root, CONFIG_SHAPE, '', state);
  if (state.typeError) throw new AuthenticationConfigError(state.typeError);
  if (state.unknown.length > 0) {
    throw new AuthenticationConfigError(
      `strict decoding error: ${state.unknown.map((f) => `unknown field "${f}"`).join(', ')}`,
    );
  }
  const config: AuthenticationConfiguration = { jwt: list(root.jwt).map(toJwt) };
  if (root.anonymous !== undefined && root.anonymous !== null) {
    const anon = obj(root.anonymous);
    config.anonymous = {
      enabled: anon.enabled === true,
      conditions: list(anon.conditions).map((c) => ({ path: str(obj(c).path) ?? '' })),
    };
  }
  return config;
}

export async function loadAuthenticationConfig(
  file: string,
): Promise<{ config: AuthenticationConfiguration; data: string }> {
  let data: string;
  try {
    data = await readFile(file, 'utf8');
    return { config: parseAuthenticationConfig(data), data };
  } catch (e) {
    throw new AuthenticationConfigError(
      `failed to load authentication configuration from file "${file}": ${(e as Error).message}`,
    );
  }
}
