// AuthorizationConfiguration (`apiserver.config.platform.io/v1`): the file behind
// --authorization-config, in YAML or JSON. Parsing is strict (unknown fields are refused, as upstream decodes this
// file) and validation reports every field error at once, each naming its path and worded as kube-apiserver words it
// (`authorizers[0].webhook.timeout: Invalid value: "45s": must be > 0s and <= 30s`). Defaults: authorizedTTL 5m0s,
// unauthorizedTTL 30s. Match conditions are compiled here, so a file with a bad expression never loads.
import { statSync } from 'node:fs';
import path from 'node:path';
import { decodeYamlDocument } from './yaml-document.js';
import { fieldErrorMessage, fieldErrors, FieldPath, type FieldError } from '../../api/meta/field-errors.js';
import { dns1123Subdomain } from '../../api/meta/validation.js';
import { compileCel, CelCompileError, type CelProgram } from '../cel/index.js';
import { formatGoDuration, parseGoDuration } from '../../api/meta/go-duration.js';

export const AUTHORIZATION_CONFIG_GROUP = 'apiserver.config.platform.io';
/** v1 is stable in 1.32; the beta and alpha versions are still read, as upstream reads them. */
export const AUTHORIZATION_CONFIG_VERSIONS = ['v1', 'v1beta1', 'v1alpha1'] as const;
export const AUTHORIZATION_CONFIG_KIND = 'AuthorizationConfiguration';

/** Upstream's list (every --authorization-mode), sorted as its NotSupported message prints it. */
export const AUTHORIZER_TYPES = ['ABAC', 'AlwaysAllow', 'AlwaysDeny', 'Node', 'RBAC', 'Webhook'] as const;
export type AuthorizerType = (typeof AUTHORIZER_TYPES)[number];
/** Only webhooks may appear more than once. */
const REPEATABLE_TYPES = new Set<string>(['Webhook']);

export const MAX_MATCH_CONDITIONS = 64;
export const MAX_WEBHOOK_TIMEOUT_MS = 30_000;
export const DEFAULT_AUTHORIZED_TTL_MS = 5 * 60_000;
export const DEFAULT_UNAUTHORIZED_TTL_MS = 30_000;
/** The cost bounds of one match condition (compile-time estimate and per-evaluation budget). */
export const MATCH_CONDITION_COST_LIMIT = 1_000_000;
/**
 * Size the cost estimate assumes for a string or list of the review whose length the expression does not fix (a user
 * name, a group, the list of groups). Identities arrive in request headers and certificates, so 1 KiB is generous;
 * the library's default (the 3 MiB request body limit) would price even one `exists` with `matches` over the groups
 * beyond any limit. Under it, one pass over the groups with a regular expression passes (~6e5) and a nested pass over
 * them is refused (~3e6 with `==`, ~3e8 with a regular expression). Longer values at run time are still bounded by the
 * runtime budget, whose overrun is an evaluation error handled by failurePolicy.
 */
export const MATCH_CONDITION_MAX_VALUE_SIZE = 1024;

export type ConnectionInfoType = 'PlatformConfigFile' | 'InClusterConfig';

export interface WebhookConfig {
  authorizedTtlMs: number;
  unauthorizedTtlMs: number;
  timeoutMs: number;
  subjectAccessReviewVersion: 'v1' | 'v1beta1';
  matchConditionSubjectAccessReviewVersion: 'v1' | '';
  failurePolicy: 'NoOpinion' | 'Deny';
  connectionInfo: { type: ConnectionInfoType; platformConfigFile?: string };
  matchConditions: CelProgram[];
}

export interface AuthorizerConfig {
  type: AuthorizerType;
  name: string;
  webhook?: WebhookConfig;
}

export interface AuthorizationConfig {
  authorizers: AuthorizerConfig[];
}

export class AuthorizationConfigError extends Error {
  constructor(
    message: string,
    readonly fieldErrors: FieldError[] = [],
  ) {
    super(message);
    this.name = 'AuthorizationConfigError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const KNOWN_FIELDS = {
  root: ['apiVersion', 'kind', 'authorizers'],
  authorizer: ['type', 'name', 'webhook'],
  webhook: [
    'authorizedTTL',
    'unauthorizedTTL',
    'cacheAuthorizedRequests',
    'cacheUnauthorizedRequests',
    'timeout',
    'subjectAccessReviewVersion',
    'matchConditionSubjectAccessReviewVersion',
    'failurePolicy',
    'connectionInfo',
    'matchConditions',
  ],
  connectionInfo: ['type', 'platformConfigFile'],
  matchCondition: ['expression'],
};

/** The `strict decoding error: unknown field "..."` upstream's strict decoder reports, all at once. */
function unknownFields(doc: Obj): string[] {
  const out: string[] = [];
  const check = (obj: unknown, known: string[], at: string) => {
    if (!isObj(obj)) return;
    for (const key of Object.keys(obj)) if (!known.includes(key)) out.push(at ? `${at}.${key}` : key);
  };
  check(doc, KNOWN_FIELDS.root, '');
  if (Array.isArray(doc.authorizers)) {
    doc.authorizers.forEach((a, i) => {
      const at = `authorizers[${i}]`;
      check(a, KNOWN_FIELDS.authorizer, at);
      if (!isObj(a) || !isObj(a.webhook)) return;
      check(a.webhook, KNOWN_FIELDS.webhook, `${at}.webhook`);
      check(a.webhook.connectionInfo, KNOWN_FIELDS.connectionInfo, `${at}.webhook.connectionInfo`);
      if (Array.isArray(a.webhook.matchConditions)) {
        a.webhook.matchConditions.forEach((m, j) =>
          check(m, KNOWN_FIELDS.matchCondition, `${at}.webhook.matchConditions[${j}]`),
        );
      }
    });
  }
  return out;
}

function str(obj: Obj, key: string, at: FieldPath, errs: FieldError[]): string {
  const v = obj[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') {
    errs.push(fieldErrors.typeInvalid(at.child(key), v, 'must be a string'));
    return '';
  }
  return v;
}

/** A duration field: undefined when absent or zero (so defaults apply), NaN after reporting an unparsable value. */
function duration(obj: Obj, key: string, at: FieldPath, errs: FieldError[]): number | undefined {
  const v = obj[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') {
    errs.push(fieldErrors.typeInvalid(at.child(key), v, 'must be a duration string such as "30s"'));
    return Number.NaN;
  }
  try {
    const ms = parseGoDuration(v);
    return ms === 0 ? undefined : ms;
  } catch (e) {
    errs.push(fieldErrors.invalid(at.child(key), v, (e as Error).message));
    return Number.NaN;
  }
}

function compileMatchConditions(raw: unknown, at: FieldPath, errs: FieldError[]): CelProgram[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errs.push(fieldErrors.typeInvalid(at, raw, 'must be a list'));
    return [];
  }
  if (raw.length > MAX_MATCH_CONDITIONS) {
    errs.push(fieldErrors.tooMany(at, raw.length, MAX_MATCH_CONDITIONS));
    return [];
  }
  const seen = new Set<string>();
  const programs: CelProgram[] = [];
  raw.forEach((condition, i) => {
    const exprAt = at.index(i).child('expression');
    const expression = isObj(condition) ? condition.expression : undefined;
    if (expression !== undefined && typeof expression !== 'string') {
      errs.push(fieldErrors.typeInvalid(exprAt, expression, 'must be a string'));
      return;
    }
    if (expression === undefined || expression.trim() === '') {
      errs.push(fieldErrors.required(exprAt));
      return;
    }
    if (seen.has(expression)) {
      errs.push(fieldErrors.duplicate(exprAt, expression));
      return;
    }
    seen.add(expression);
    try {
      programs.push(
        compileCel(expression, {
          variables: { request: 'map<string, dyn>' },
          resultTypes: ['bool'],
          maxEstimatedCost: MATCH_CONDITION_COST_LIMIT,
          runtimeCostBudget: MATCH_CONDITION_COST_LIMIT,
          maxValueSize: MATCH_CONDITION_MAX_VALUE_SIZE,
        }),
      );
    } catch (e) {
      if (!(e instanceof CelCompileError)) throw e;
      errs.push(fieldErrors.invalid(exprAt, expression, e.message));
    }
  });
  return programs;
}

function validateConnectionInfo(raw: unknown, at: FieldPath, errs: FieldError[]): WebhookConfig['connectionInfo'] {
  const info = isObj(raw) ? raw : {};
  const type = str(info, 'type', at, errs);
  const file = info.platformConfigFile;
  const fileAt = at.child('platformConfigFile');
  switch (type) {
    case '':
      errs.push(fieldErrors.required(at.child('type')));
      break;
    case 'InClusterConfig':
      // The configuration format allows it; the API server does not call its own review API through it.
      errs.push(
        fieldErrors.invalid(
          at.child('type'),
          type,
          'InClusterConfig is not supported by the API server for its own authorization webhooks; use PlatformConfigFile',
        ),
      );
      if (file !== undefined)
        errs.push(fieldErrors.invalid(fileAt, file, 'can only be set when type=PlatformConfigFile'));
      break;
    case 'PlatformConfigFile':
      if (file === undefined || file === null || file === '') {
        errs.push(fieldErrors.required(fileAt));
      } else if (typeof file !== 'string') {
        errs.push(fieldErrors.typeInvalid(fileAt, file, 'must be a string'));
      } else if (!path.isAbsolute(file)) {
        errs.push(fieldErrors.invalid(fileAt, file, 'must be an absolute path'));
      } else {
        try {
          if (!statSync(file).isFile()) errs.push(fieldErrors.invalid(fileAt, file, 'must be a regular file'));
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          const why =
            code === 'ENOENT'
              ? 'no such file or directory'
              : code === 'EACCES'
                ? 'permission denied'
                : (code ?? 'error');
          errs.push(fieldErrors.invalid(fileAt, file, `error loading file: stat ${file}: ${why}`));
        }
      }
      return { type, platformConfigFile: typeof file === 'string' ? file : undefined };
    default:
      errs.push(fieldErrors.notSupported(at.child('type'), type, ['InClusterConfig', 'PlatformConfigFile']));
  }
  return { type: 'InClusterConfig' };
}

function validateWebhook(raw: Obj, at: FieldPath, errs: FieldError[]): WebhookConfig {
  const timeoutMs = duration(raw, 'timeout', at, errs);
  if (timeoutMs === undefined) errs.push(fieldErrors.required(at.child('timeout')));
  else if (timeoutMs < 0 || timeoutMs > MAX_WEBHOOK_TIMEOUT_MS) {
    errs.push(fieldErrors.invalid(at.child('timeout'), formatGoDuration(timeoutMs), 'must be > 0s and <= 30s'));
  }
  const ttl = (key: string, fallback: number): number => {
    const ms = duration(raw, key, at, errs);
    if (ms === undefined) return fallback;
    if (ms < 0) errs.push(fieldErrors.invalid(at.child(key), formatGoDuration(ms), 'must be > 0s'));
    return ms;
  };
  const authorizedTtlMs = ttl('authorizedTTL', DEFAULT_AUTHORIZED_TTL_MS);
  const unauthorizedTtlMs = ttl('unauthorizedTTL', DEFAULT_UNAUTHORIZED_TTL_MS);
  // cacheAuthorizedRequests / cacheUnauthorizedRequests (v1.31+): false turns that side of the cache off.
  const cacheAuthorized = raw.cacheAuthorizedRequests !== false;
  const cacheUnauthorized = raw.cacheUnauthorizedRequests !== false;

  const sarVersion = str(raw, 'subjectAccessReviewVersion', at, errs);
  if (sarVersion === '') errs.push(fieldErrors.required(at.child('subjectAccessReviewVersion')));
  else if (sarVersion !== 'v1' && sarVersion !== 'v1beta1')
    errs.push(fieldErrors.notSupported(at.child('subjectAccessReviewVersion'), sarVersion, ['v1', 'v1beta1']));

  const matchConditionsAt = at.child('matchConditions');
  const matchConditions = compileMatchConditions(raw.matchConditions, matchConditionsAt, errs);
  const mcVersion = str(raw, 'matchConditionSubjectAccessReviewVersion', at, errs);
  if (mcVersion === '') {
    const given = Array.isArray(raw.matchConditions) && raw.matchConditions.length > 0;
    if (given)
      errs.push(
        fieldErrors.required(
          at.child('matchConditionSubjectAccessReviewVersion'),
          'required if match conditions are specified',
        ),
      );
  } else if (mcVersion !== 'v1') {
    errs.push(fieldErrors.notSupported(at.child('matchConditionSubjectAccessReviewVersion'), mcVersion, ['v1']));
  }

  const failurePolicy = str(raw, 'failurePolicy', at, errs);
  if (failurePolicy === '') errs.push(fieldErrors.required(at.child('failurePolicy')));
  else if (failurePolicy !== 'NoOpinion' && failurePolicy !== 'Deny')
    errs.push(fieldErrors.notSupported(at.child('failurePolicy'), failurePolicy, ['NoOpinion', 'Deny']));

  const connectionInfo = validateConnectionInfo(raw.connectionInfo, at.child('connectionInfo'), errs);
  return {
    authorizedTtlMs: cacheAuthorized ? authorizedTtlMs : 0,
    unauthorizedTtlMs: cacheUnauthorized ? unauthorizedTtlMs : 0,
    timeoutMs: timeoutMs ?? 0,
    subjectAccessReviewVersion: sarVersion as WebhookConfig['subjectAccessReviewVersion'],
    matchConditionSubjectAccessReviewVersion: mcVersion as WebhookConfig['matchConditionSubjectAccessReviewVersion'],
    failurePolicy: failurePolicy as WebhookConfig['failurePolicy'],
    connectionInfo,
    matchConditions,
  };
}

/** Validates a decoded document; throws AuthorizationConfigError listing every field error. */
export function validateAuthorizationConfig(doc: unknown): AuthorizationConfig {
  if (!isObj(doc)) throw new AuthorizationConfigError('the authorization configuration must be an object');
  const apiVersions = AUTHORIZATION_CONFIG_VERSIONS.map((v) => `${AUTHORIZATION_CONFIG_GROUP}/${v}`);
  if (!apiVersions.includes(String(doc.apiVersion))) {
    throw new AuthorizationConfigError(
      doc.apiVersion === undefined
        ? `Object 'apiVersion' is missing (expected one of ${apiVersions.join(', ')})`
        : `no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}" (supported: ${apiVersions.join(', ')})`,
    );
  }
  if (doc.kind !== AUTHORIZATION_CONFIG_KIND) {
    throw new AuthorizationConfigError(
      doc.kind === undefined
        ? "Object 'Kind' is missing"
        : `no kind "${String(doc.kind)}" is registered for version "${String(doc.apiVersion)}" (expected ${AUTHORIZATION_CONFIG_KIND})`,
    );
  }
  const unknown = unknownFields(doc);
  if (unknown.length > 0)
    throw new AuthorizationConfigError(
      `strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`,
    );

  const errs: FieldError[] = [];
  const root = FieldPath.root('authorizers');
  const list = doc.authorizers;
  if (list !== undefined && list !== null && !Array.isArray(list))
    errs.push(fieldErrors.typeInvalid(root, list, 'must be a list'));
  const raw = Array.isArray(list) ? list : [];
  if (raw.length === 0) errs.push(fieldErrors.required(root, 'at least one authorization mode must be defined'));

  const authorizers: AuthorizerConfig[] = [];
  const seenTypes = new Set<string>();
  const seenNames = new Set<string>();
  raw.forEach((entry, i) => {
    const at = root.index(i);
    const a = isObj(entry) ? entry : {};
    const type = str(a, 'type', at, errs);
    if (type === '') return void errs.push(fieldErrors.required(at.child('type')));
    if (!(AUTHORIZER_TYPES as readonly string[]).includes(type))
      return void errs.push(fieldErrors.notSupported(at.child('type'), type, [...AUTHORIZER_TYPES]));
    if (seenTypes.has(type) && !REPEATABLE_TYPES.has(type))
      return void errs.push(fieldErrors.duplicate(at.child('type'), type));
    seenTypes.add(type);

    const name = str(a, 'name', at, errs);
    if (name === '') errs.push(fieldErrors.required(at.child('name')));
    else if (seenNames.has(name)) errs.push(fieldErrors.duplicate(at.child('name'), name));
    else {
      const problems = dns1123Subdomain(name);
      if (problems.length > 0)
        errs.push(fieldErrors.invalid(at.child('name'), name, `authorizer name is invalid: ${problems.join(', ')}`));
    }
    seenNames.add(name);

    const config: AuthorizerConfig = { type: type as AuthorizerType, name };
    if (type === 'Webhook') {
      if (!isObj(a.webhook))
        return void errs.push(fieldErrors.required(at.child('webhook'), 'required when type=Webhook'));
      config.webhook = validateWebhook(a.webhook, at.child('webhook'), errs);
    } else if (a.webhook !== undefined && a.webhook !== null) {
      errs.push(fieldErrors.invalid(at.child('webhook'), 'non-null', 'may only be specified when type=Webhook'));
    }
    authorizers.push(config);
  });
  if (errs.length > 0) {
    const messages = errs.map(fieldErrorMessage);
    throw new AuthorizationConfigError(messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`, errs);
  }
  return { authorizers };
}

/** Parses YAML or JSON text (`file` names it in messages). */
export function parseAuthorizationConfig(text: string, file = 'authorization configuration'): AuthorizationConfig {
  let doc: unknown;
  try {
    doc = decodeYamlDocument(text);
  } catch (e) {
    throw new AuthorizationConfigError(`error decoding ${file}: ${(e as Error).message}`);
  }
  return validateAuthorizationConfig(doc);
}
