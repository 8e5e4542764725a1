// The flags of the state replicas share: where Redis is (the flag or, to keep its password out of process listings,
// the environment), how long a request may wait on it, and the rate limits. Spread into flag-table.ts; parsed here
// for options.ts. Without --redis-url everything stays in the process, as with a single replica.
import path from 'node:path';
import { redactUrl } from '../../backends/postgres/errors.js';
import { invalid, OptionsError, parseDurationFlag, parseIntFlag, type FlagSpec } from '../server/flag-primitives.js';
import { readRateLimitConfig, RateLimitConfigError, type RateLimitConfiguration } from './rate-limit-config.js';

export const REDIS_URL_ENV = 'GATEHOUSE_REDIS_URL';

export const SHARED_STATE_FLAGS: Record<string, FlagSpec> = {
  'redis-url': {
    kind: 'string',
    usage: `Redis for the state replicas share (the authorization webhook decision cache, rate limits): redis://[:password@]host:port[/db] or rediss:// (or the ${REDIS_URL_ENV} environment variable). Without it each replica keeps its own.`,
    reference: `\`redis://[user:password@]host:port[/db]\` or \`rediss://\`; the flag wins over the ${REDIS_URL_ENV} environment variable, which keeps the password out of process listings. See [shared-state.md](shared-state.md)`,
  },
  'redis-timeout': {
    kind: 'duration',
    default: '100ms',
    usage:
      'The longest a request waits on Redis; past it (or while Redis is down) the replica answers from its own state.',
  },
  'rate-limit-config': {
    kind: 'string',
    usage:
      'RateLimitConfiguration file (YAML or JSON): request-rate limits by user, group, service account or namespace, enforced across replicas through --redis-url.',
    reference: 'See [shared-state.md](shared-state.md#rate-limits) for the schema',
  },
  'rate-limit-replicas': {
    kind: 'int',
    default: '1',
    usage:
      'Replicas sharing the rate limits: without Redis (or while it is down) each enforces 1/N of every limit by itself.',
  },
};

export interface SharedStateOptions {
  /** Never logged unredacted (redactUrl). */
  redisUrl?: string;
  redisTimeoutMs: number;
  rateLimits?: RateLimitConfiguration;
  rateLimitReplicas: number;
}

function parseRedisUrl(flagValue: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const url = flagValue || env[REDIS_URL_ENV] || undefined;
  if (url === undefined) return undefined;
  const source = flagValue ? 'for "--redis-url" flag' : `in ${REDIS_URL_ENV}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OptionsError(
      `invalid argument ${source}: not a URL (expected redis://[:password@]host:port[/db]; the value is not shown, as it may hold a password)`,
    );
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new OptionsError(`invalid argument "${redactUrl(url)}" ${source}: must be a redis:// or rediss:// URL`);
  if (parsed.hostname === '') throw new OptionsError(`invalid argument "${redactUrl(url)}" ${source}: no host`);
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db))
    throw new OptionsError(`invalid argument "${redactUrl(url)}" ${source}: the path must be a database number`);
  return url;
}

export function parseSharedStateOptions(
  seen: Map<string, string[]>,
  env: NodeJS.ProcessEnv,
  cwd: string,
): SharedStateOptions {
  const valueOf = (name: string): string => seen.get(name)?.at(-1) ?? SHARED_STATE_FLAGS[name].default ?? '';
  const redisTimeoutMs = parseDurationFlag('redis-timeout', valueOf('redis-timeout'));
  if (redisTimeoutMs <= 0) throw invalid('redis-timeout', valueOf('redis-timeout'), 'must be greater than 0');
  const configFile = seen.get('rate-limit-config')?.at(-1);
  if (configFile === '') throw invalid('rate-limit-config', '', 'must not be empty');
  let rateLimits: RateLimitConfiguration | undefined;
  if (configFile !== undefined) {
    try {
      rateLimits = readRateLimitConfig(path.resolve(cwd, configFile));
    } catch (e) {
      if (e instanceof RateLimitConfigError) throw invalid('rate-limit-config', configFile, e.message);
      throw e;
    }
  }
  return {
    redisUrl: parseRedisUrl(seen.get('redis-url')?.at(-1), env),
    redisTimeoutMs,
    rateLimits,
    rateLimitReplicas: parseIntFlag('rate-limit-replicas', valueOf('rate-limit-replicas'), 1, 10_000),
  };
}
