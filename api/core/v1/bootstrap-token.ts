// Bootstrap tokens: the names, keys and rules shared by the bootstrap token
// authenticator, the token cleaner and the bootstrap signer. Pure functions over a Secret object; no I/O.
// A token is `<id>.<secret>`; it lives in the Secret `bootstrap-token-<id>` of type `bootstrap.platform.io/token` in
// `platform-system`, whose `data` values are base64 as the Secret kind stores them.
import type { KObject } from '../../meta/types.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.platform.io/token';
export const BOOTSTRAP_TOKEN_NAMESPACE = 'platform-system';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';

export const TOKEN_ID_KEY = 'token-id';
export const TOKEN_SECRET_KEY = 'token-secret';
export const EXPIRATION_KEY = 'expiration';
export const USAGE_AUTHENTICATION_KEY = 'usage-bootstrap-authentication';
export const USAGE_SIGNING_KEY = 'usage-bootstrap-signing';
export const EXTRA_GROUPS_KEY = 'auth-extra-groups';

/** The whole bearer token; the id is public, the secret confidential. */
export const BOOTSTRAP_TOKEN_PATTERN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const SECRET_NAME_PATTERN = /^bootstrap-token-([a-z0-9]{6})$/;
/** Upstream's rule for extra groups: the reserved prefix plus a non-empty lowercase suffix. */
export const BOOTSTRAP_GROUP_PATTERN = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
/** Go's time.RFC3339 layout (fractional seconds allowed, as Go's parser accepts them). */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

export interface ParsedToken {
  id: string;
  secret: string;
}

/** `<id>.<secret>` split in two; null for anything else (not a bootstrap token). */
export function parseBootstrapToken(token: string): ParsedToken | null {
  const m = BOOTSTRAP_TOKEN_PATTERN.exec(token);
  return m ? { id: m[1], secret: m[2] } : null;
}

export function bootstrapTokenSecretName(id: string): string {
  return `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
}

/** The token id a Secret name carries; null when the name is not `bootstrap-token-<id>`. */
export function tokenIdFromSecretName(name: string): string | null {
  return SECRET_NAME_PATTERN.exec(name)?.[1] ?? null;
}

/** One decoded data value; '' when absent or not a string (as upstream's GetData). */
export function secretValue(obj: KObject, key: string): string {
  const data = obj.data;
  if (data === null || typeof data !== 'object') return '';
  const raw = (data as Record<string, unknown>)[key];
  return typeof raw === 'string' ? Buffer.from(raw, 'base64').toString('utf8') : '';
}

/** Milliseconds since the epoch, or NaN when the text is not an RFC 3339 time. */
export function parseRFC3339(text: string): number {
  const m = RFC3339.exec(text);
  if (!m) return NaN;
  const [, y, mo, d, h, mi, s] = m;
  // Date.parse would roll 2024-02-30 over into March; Go refuses it, so the fields are checked to round-trip.
  const utc = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  if (
    utc.getUTCFullYear() !== Number(y) ||
    utc.getUTCMonth() !== Number(mo) - 1 ||
    utc.getUTCDate() !== Number(d) ||
    utc.getUTCHours() !== Number(h) ||
    utc.getUTCMinutes() !== Number(mi) ||
    utc.getUTCSeconds() !== Number(s)
  ) {
    return NaN;
  }
  return Date.parse(text.toUpperCase());
}

export type Expiration = { expired: false; at?: number } | { expired: true };

/**
 * Upstream's GetExpiration: no `expiration` key never expires; an unparseable one counts as expired (so the
 * cleaner removes it and nobody trusts it); otherwise expired once `now` reaches it.
 */
export function tokenExpiration(obj: KObject, now = Date.now()): Expiration {
  const text = secretValue(obj, EXPIRATION_KEY);
  if (text === '') return { expired: false };
  const at = parseRFC3339(text);
  if (Number.isNaN(at) || at <= now) return { expired: true };
  return { expired: false, at };
}

/** `system:bootstrappers` plus the extra groups, sorted and without duplicates; null when an extra group is invalid. */
export function tokenGroups(obj: KObject): string[] | null {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  const extra = secretValue(obj, EXTRA_GROUPS_KEY);
  if (extra !== '') {
    for (const group of extra.split(',')) {
      if (!BOOTSTRAP_GROUP_PATTERN.test(group)) return null;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

/**
 * The id and secret of a token Secret fit for signing cluster-info (upstream's validateSecretForSigning): a
 * `bootstrap-token-<id>` name agreeing with `token-id`, a non-empty `token-secret`, not expired, and
 * `usage-bootstrap-signing: "true"`. Null otherwise.
 */
export function signingToken(obj: KObject, now = Date.now()): (ParsedToken & { expiresAt?: number }) | null {
  if (obj.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || obj.metadata.deletionTimestamp) return null;
  const nameId = tokenIdFromSecretName(obj.metadata.name ?? '');
  const id = secretValue(obj, TOKEN_ID_KEY);
  const secret = secretValue(obj, TOKEN_SECRET_KEY);
  if (nameId === null || id !== nameId || secret === '') return null;
  const expiration = tokenExpiration(obj, now);
  if (expiration.expired || secretValue(obj, USAGE_SIGNING_KEY) !== 'true') return null;
  return { id, secret, expiresAt: expiration.at };
}
