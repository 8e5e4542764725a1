// OpenID Connect ID tokens as bearer tokens (document 2, "OpenID Connect tokens"). One TokenAuthenticator serves every
// configured issuer: the unverified `iss` claim picks the authenticator, as upstream's hasCorrectIssuer does, so
// - a token that is not a JWT, or whose issuer is none of ours, is not ours (null: other token sources decide);
// - a token of one of our issuers that fails anything (signature, algorithm, expiry, not-before, audience, claim
//   rules, username, user rules) is ours and invalid: an AuthenticationError, a 401.
// Time rules follow go-oidc: `exp` is required and has no leeway; `nbf` has five minutes of leeway.
import { decodeJwt, errors as joseErrors, jwtVerify } from 'jose';
import { AuthenticationError } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import { userFromClaims, ClaimsError } from './oidc-claims.js';
import type { CompiledJwtAuthenticator } from './oidc-config-validation.js';
import { createHttpsFetch, type HttpsFetch } from './oidc-fetch.js';
import { createIssuerKeys, IssuerUnavailableError, type IssuerKeys } from './oidc-keys.js';

export const NOT_BEFORE_LEEWAY_SECONDS = 300;

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

/** The payload's `iss` without verifying anything; undefined when the token is not a JWT with a string issuer. */
function unverifiedIssuer(token: string): string | undefined {
  if (token.split('.').length !== 3) return undefined;
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

export function createJwtTokenAuthenticator(authenticators: CompiledJwtAuthenticator[], opts: JwtTokenAuthenticatorOptions): JwtTokenAuthenticator {
  const now = opts.now ?? Date.now;
  const fetchFor = opts.fetchFor ?? createHttpsFetch;
  let byIssuer = new Map<string, Entry>();

  const build = (list: CompiledJwtAuthenticator[]): Map<string, Entry> => {
    const next = new Map<string, Entry>();
    for (const compiled of list) {
      const { url, discoveryURL, certificateAuthority } = compiled.config.issuer;
      const keyIdentity = JSON.stringify([discoveryURL ?? '', certificateAuthority ?? '']);
      const previous = byIssuer.get(url);
      const keys = previous && previous.keyIdentity === keyIdentity
        ? previous.keys
        : createIssuerKeys({
          issuerUrl: url, discoveryUrl: discoveryURL, fetch: fetchFor(compiled.caPems), log: opts.log, now,
          retryAfterMs: opts.retryAfterMs, unknownKeyCooldownMs: opts.unknownKeyCooldownMs,
        });
      if (keys !== previous?.keys) void keys.warmUp();
      next.set(url, { compiled, keys, keyIdentity });
    }
    return next;
  };
  byIssuer = build(authenticators);

  return {
    name: 'oidc',
    update(list) {
      byIssuer = build(list);
    },
    async authenticateToken(token) {
      const iss = unverifiedIssuer(token);
      if (iss === undefined) return null;
      const entry = byIssuer.get(iss);
      if (!entry) return null;
      const { compiled, keys } = entry;
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys.getKey, {
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
      try {
        return { user: userFromClaims(compiled, payload as Record<string, unknown>) };
      } catch (e) {
        if (e instanceof ClaimsError) throw new AuthenticationError(e.message);
        throw e;
      }
    },
  };
}
