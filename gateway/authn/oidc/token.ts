// OpenID Connect ID tokens as bearer tokens. One TokenAuthenticator serves every
// configured issuer: the unverified `iss` claim picks the authenticator, as upstream's hasCorrectIssuer does, so
// - a token that is not a JWT, or whose issuer is none of ours, is not ours (null: other token sources decide);
// - a token of one of our issuers that fails anything (signature, algorithm, expiry, not-before, audience, claim
//   rules, username, user rules) is ours and invalid: an AuthenticationError, a 401.
// Time rules follow go-oidc: `exp` is required and has no leeway; `nbf` has five minutes of leeway.
import { hash } from 'node:crypto';
import { decodeJwt, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { setBounded } from '../../../api/meta/bounded-map.js';
import type { UserInfo } from '../../../api/meta/user.js';
import { AuthenticationError } from '../authenticator.js';
import type { TokenAuthenticator } from '../bearer-token.js';
import { userFromClaims, ClaimsError } from './claims.js';
import type { CompiledJwtAuthenticator } from './config-validation.js';
import { createHttpsFetch, type HttpsFetch } from './fetch.js';
import { createIssuerKeys, IssuerUnavailableError, type IssuerKeys } from './keys.js';

export const NOT_BEFORE_LEEWAY_SECONDS = 300;
/** Accepted tokens whose signature check is kept (see `Accepted`). */
export const ACCEPTED_TOKENS_KEPT = 4096;

export interface JwtTokenAuthenticatorOptions {
  /** Accepted `alg` header values. */
  signingAlgs: readonly string[];
  log: (line: string) => void;
  now?: () => number;
  /** Tests: how an issuer's CA bundle becomes a fetch (default: node:https trusting it). */
  fetchFor?: (caPems?: string[]) => HttpsFetch;
  /** After a failed discovery, how long before another attempt (default 1s). */
  retryAfterMs?: number;
  /** Minimum time between key-set fetches caused by unknown key ids (default 1s). */
  unknownKeyCooldownMs?: number;
  /** How many accepted tokens to keep; ACCEPTED_TOKENS_KEPT unless given (tests). */
  acceptedTokensKept?: number;
}

export interface JwtTokenAuthenticator extends TokenAuthenticator {
  /** Replaces the authenticators (configuration reload); issuers whose settings did not change keep their keys. */
  update(authenticators: CompiledJwtAuthenticator[]): void;
}

interface Entry {
  compiled: CompiledJwtAuthenticator;
  keys: IssuerKeys;
  /** What the keys depend on: a change means new keys. */
  keyIdentity: string;
}

/**
 * A token that passed every check, kept so that its signature (~180 µs for ES256 here) is not checked again on every
 * request. Reused only while nothing it depended on changed: the issuer's configuration (the same Entry), the key that
 * verified it (still what the issuer's current key set gives for its header: a key set fetched again after a rotation
 * gives new key objects, and a withdrawn key none) and the time rules, checked again each time. The user is a pure
 * function of the verified claims and the configuration, so it is kept too.
 */
interface Accepted {
  entry: Entry;
  header: Parameters<JWTVerifyGetKey>[0];
  key: unknown;
  exp: number;
  nbf?: number;
  user: Readonly<UserInfo>;
}

/** Key resolvers read only the header for compact tokens; this stands for the rest of the token. */
const NO_TOKEN_BODY = { payload: '', signature: '' };

function copyUser(user: Readonly<UserInfo>): UserInfo {
  const copy: UserInfo = { ...user, groups: [...user.groups] };
  if (user.extra) copy.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
  return copy;
}

function isCompactJws(token: string): boolean {
  return token.split('.').length === 3;
}

/** The payload's `iss` without verifying anything; undefined when the token is not a JWT with a string issuer. */
function unverifiedIssuer(token: string): string | undefined {
  if (!isCompactJws(token)) return undefined;
  try {
    const iss = decodeJwt(token).iss;
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

function describe(e: unknown): string {
  if (e instanceof joseErrors.JWTExpired) return 'token is expired';
  if (e instanceof joseErrors.JWTClaimValidationFailed) return `${e.claim} claim check failed: ${e.message}`;
  return (e as Error).message;
}

export function createJwtTokenAuthenticator(
  authenticators: CompiledJwtAuthenticator[],
  opts: JwtTokenAuthenticatorOptions,
): JwtTokenAuthenticator {
  const now = opts.now ?? Date.now;
  const fetchFor = opts.fetchFor ?? createHttpsFetch;
  let byIssuer = new Map<string, Entry>();

  const build = (list: CompiledJwtAuthenticator[]): Map<string, Entry> => {
    const next = new Map<string, Entry>();
    for (const compiled of list) {
      const { url, discoveryURL, certificateAuthority } = compiled.config.issuer;
      const keyIdentity = JSON.stringify([discoveryURL ?? '', certificateAuthority ?? '']);
      const previous = byIssuer.get(url);
      const keys =
        previous && previous.keyIdentity === keyIdentity
          ? previous.keys
          : createIssuerKeys({
              issuerUrl: url,
              discoveryUrl: discoveryURL,
              fetch: fetchFor(compiled.caPems),
              log: opts.log,
              now,
              retryAfterMs: opts.retryAfterMs,
              unknownKeyCooldownMs: opts.unknownKeyCooldownMs,
            });
      if (keys !== previous?.keys) void keys.warmUp();
      next.set(url, { compiled, keys, keyIdentity });
    }
    return next;
  };
  byIssuer = build(authenticators);

  // Keyed by digest, as static tokens are: no token is kept, and the lookup's timing tells nothing about one.
  const accepted = new Map<string, Accepted>();
  const kept = opts.acceptedTokensKept ?? ACCEPTED_TOKENS_KEPT;

  const stillAccepted = async (hit: Accepted): Promise<boolean> => {
    if (byIssuer.get(hit.entry.compiled.config.issuer.url) !== hit.entry) return false;
    const t = now();
    if (hit.exp * 1000 < t || (hit.nbf !== undefined && hit.nbf > Math.floor(t / 1000) + NOT_BEFORE_LEEWAY_SECONDS))
      return false;
    try {
      return (await hit.entry.keys.getKey(hit.header, NO_TOKEN_BODY)) === hit.key;
    } catch {
      return false;
    }
  };

  return {
    name: 'oidc',
    update(list) {
      byIssuer = build(list);
    },
    async authenticateToken(token) {
      // Other token kinds (static, bootstrap) are not worth a digest.
      if (!isCompactJws(token)) return null;
      const digest = hash('sha256', token, 'base64');
      const hit = accepted.get(digest);
      if (hit) {
        if (await stillAccepted(hit)) return { user: copyUser(hit.user) };
        // Whatever changed, the full check below says what the token is now, with its exact reason if refused.
        accepted.delete(digest);
      }
      const iss = unverifiedIssuer(token);
      if (iss === undefined) return null;
      const entry = byIssuer.get(iss);
      if (!entry) return null;
      const { compiled, keys } = entry;
      let payload;
      let header;
      let key;
      try {
        ({
          payload,
          protectedHeader: header,
          key,
        } = await jwtVerify(token, keys.getKey, {
          issuer: compiled.config.issuer.url,
          audience: compiled.config.issuer.audiences,
          algorithms: [...opts.signingAlgs],
          requiredClaims: ['exp'],
          clockTolerance: NOT_BEFORE_LEEWAY_SECONDS,
          currentDate: new Date(now()),
        }));
      } catch (e) {
        if (e instanceof IssuerUnavailableError) throw new AuthenticationError(e.message);
        throw new AuthenticationError(`oidc: verify token: ${describe(e)}`);
      }
      // jose's tolerance covers exp as well; go-oidc gives exp none.
      if (typeof payload.exp !== 'number' || payload.exp * 1000 < now()) {
        throw new AuthenticationError('oidc: verify token: token is expired');
      }
      let user;
      try {
        user = userFromClaims(compiled, payload);
      } catch (e) {
        if (e instanceof ClaimsError) throw new AuthenticationError(e.message);
        throw e;
      }
      const nbf = typeof payload.nbf === 'number' ? payload.nbf : undefined;
      setBounded(accepted, digest, { entry, header, key, exp: payload.exp, nbf, user: copyUser(user) }, kept);
      return { user };
    },
  };
}
