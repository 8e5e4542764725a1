// The --rate-limit-config file: a small versioned document of request-rate limits, read once at start. Every mistake
// is reported at once, each with its line and field path, and stops the start: a limit silently dropped would leave a
// tenant unlimited without anyone noticing.
import { readFileSync } from 'node:fs';
import { decodeYamlDocumentWithLines, YamlDocumentError } from '../../policies/config/yaml-document.js';

export const RATE_LIMIT_API_VERSION = 'gatehouse.platform.io/v1alpha1';
export const RATE_LIMIT_KIND = 'RateLimitConfiguration';

/** Which requests of a limit share one bucket. */
export const DISTINGUISHERS = ['ByUser', 'ByNamespace', 'None'] as const;
export type Distinguisher = (typeof DISTINGUISHERS)[number];

export interface ServiceAccountSelector {
  namespace: string;
  /** Absent: every service account of the namespace. */
  name?: string;
}

export interface RateLimit {
  name: string;
  users: string[];
  groups: string[];
  serviceAccounts: ServiceAccountSelector[];
  namespaces: string[];
  requestsPerSecond: number;
  burst: number;
  distinguisher: Distinguisher;
}

export interface RateLimitConfiguration {
  limits: RateLimit[];
}

export class RateLimitConfigError extends Error {
  override name = 'RateLimitConfigError';
}

// A limit's name is a metric label value and part of Redis keys: kept to what both carry unquoted.
const NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;
const MAX_REQUESTS_PER_SECOND = 1_000_000;
const MAX_BURST = 1_000_000;
const LIMIT_FIELDS = new Set([
  'name',
  'users',
  'groups',
  'serviceAccounts',
  'namespaces',
  'requestsPerSecond',
  'burst',
  'distinguisher',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readRateLimitConfig(file: string): RateLimitConfiguration {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new RateLimitConfigError(`${file}: ${(e as Error).message}`);
  }
  return parseRateLimitConfig(text, file);
}

/** `source` names the file in messages. */
export function parseRateLimitConfig(text: string, source: string): RateLimitConfiguration {
  let decoded: ReturnType<typeof decodeYamlDocumentWithLines>;
  try {
    decoded = decodeYamlDocumentWithLines(text);
  } catch (e) {
    if (e instanceof YamlDocumentError) throw new RateLimitConfigError(`${source}: ${e.message}`);
    throw e;
  }
  const { value: doc, lineOf } = decoded;
  const problems: string[] = [];
  const fail = (node: object | undefined, field: string, why: string): void => {
    const line = node === undefined ? undefined : lineOf(node);
    problems.push(`${line === undefined ? '' : `line ${line}: `}${field}: ${why}`);
  };

  const limits: RateLimit[] = [];
  if (!isRecord(doc)) {
    fail(undefined, '<document>', `must be a ${RATE_LIMIT_KIND} object`);
  } else {
    if (doc.apiVersion !== RATE_LIMIT_API_VERSION)
      fail(
        doc,
        'apiVersion',
        `Unsupported value: ${JSON.stringify(doc.apiVersion)}: supported values: "${RATE_LIMIT_API_VERSION}"`,
      );
    if (doc.kind !== RATE_LIMIT_KIND)
      fail(doc, 'kind', `Unsupported value: ${JSON.stringify(doc.kind)}: supported values: "${RATE_LIMIT_KIND}"`);
    for (const key of Object.keys(doc))
      if (!['apiVersion', 'kind', 'limits'].includes(key)) fail(doc, key, 'unknown field');
    if (doc.limits !== undefined && doc.limits !== null && !Array.isArray(doc.limits))
      fail(doc, 'limits', 'must be a list');
    const entries = Array.isArray(doc.limits) ? (doc.limits as unknown[]) : [];
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      const limit = parseLimit(entry, `limits[${i}]`, (field, why) => fail(isRecord(entry) ? entry : doc, field, why));
      if (!limit) return;
      if (seen.has(limit.name)) fail(entry as object, `limits[${i}].name`, `Duplicate value: "${limit.name}"`);
      seen.add(limit.name);
      limits.push(limit);
    });
  }
  if (problems.length > 0) throw new RateLimitConfigError(`${source}: ${problems.join('; ')}`);
  return { limits };
}

function parseLimit(entry: unknown, at: string, fail: (field: string, why: string) => void): RateLimit | undefined {
  if (!isRecord(entry)) {
    fail(at, 'must be an object');
    return undefined;
  }
  const before = { failed: false };
  const problem = (field: string, why: string) => {
    before.failed = true;
    fail(`${at}.${field}`, why);
  };
  for (const key of Object.keys(entry)) if (!LIMIT_FIELDS.has(key)) problem(key, 'unknown field');

  const name = entry.name;
  if (typeof name !== 'string' || name === '') problem('name', 'Required value');
  else if (!NAME.test(name))
    problem(
      'name',
      `Invalid value: "${name}": must be lower-case letters, digits, '-' or '.', start and end with a letter or digit, at most 63 characters`,
    );

  const strings = (field: 'users' | 'groups' | 'namespaces'): string[] => {
    const value = entry[field];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      problem(field, 'must be a list of strings');
      return [];
    }
    value.forEach((v, j) => {
      if (typeof v !== 'string' || v === '') problem(`${field}[${j}]`, 'must be a non-empty string');
    });
    return value.filter((v): v is string => typeof v === 'string');
  };
  const users = strings('users');
  const groups = strings('groups');
  const namespaces = strings('namespaces');

  const serviceAccounts: ServiceAccountSelector[] = [];
  const accounts = entry.serviceAccounts;
  if (accounts !== undefined && accounts !== null) {
    if (!Array.isArray(accounts)) problem('serviceAccounts', 'must be a list of {namespace, name}');
    else
      accounts.forEach((account, j) => {
        const where = `serviceAccounts[${j}]`;
        if (!isRecord(account)) return problem(where, 'must be an object with namespace and, optionally, name');
        for (const key of Object.keys(account))
          if (key !== 'namespace' && key !== 'name') problem(`${where}.${key}`, 'unknown field');
        if (typeof account.namespace !== 'string' || account.namespace === '')
          return problem(`${where}.namespace`, 'Required value');
        if (account.name !== undefined && (typeof account.name !== 'string' || account.name === ''))
          return problem(`${where}.name`, 'must be a non-empty string (leave it out for every service account)');
        serviceAccounts.push({ namespace: account.namespace, ...(account.name ? { name: account.name } : {}) });
      });
  }
  if (users.length + groups.length + namespaces.length + (Array.isArray(accounts) ? accounts.length : 0) === 0)
    problem('users', 'Required value: at least one of users, groups, serviceAccounts or namespaces must be given');

  const rps = entry.requestsPerSecond;
  if (rps === undefined) problem('requestsPerSecond', 'Required value');
  else if (typeof rps !== 'number' || !Number.isFinite(rps) || rps <= 0 || rps > MAX_REQUESTS_PER_SECOND)
    problem(
      'requestsPerSecond',
      `Invalid value: ${JSON.stringify(rps)}: must be a number greater than 0 and at most ${MAX_REQUESTS_PER_SECOND}`,
    );

  const burst = entry.burst;
  if (burst === undefined) problem('burst', 'Required value');
  else if (typeof burst !== 'number' || !Number.isInteger(burst) || burst < 1 || burst > MAX_BURST)
    problem('burst', `Invalid value: ${JSON.stringify(burst)}: must be an integer from 1 to ${MAX_BURST}`);

  const distinguisher = entry.distinguisher ?? 'ByUser';
  if (!(DISTINGUISHERS as readonly unknown[]).includes(distinguisher))
    problem(
      'distinguisher',
      `Unsupported value: ${JSON.stringify(distinguisher)}: supported values: ${DISTINGUISHERS.map((d) => `"${d}"`).join(', ')}`,
    );

  if (before.failed) return undefined;
  return {
    name: name as string,
    users,
    groups,
    serviceAccounts,
    namespaces,
    requestsPerSecond: rps as number,
    burst: burst as number,
    distinguisher: distinguisher as Distinguisher,
  };
}
