// The signing keys of one issuer: OpenID discovery (`<issuer>/.well-known/openid-configuration`, or the configured
// discoveryURL) gives `jwks_uri`; jose's remote key set then caches the keys and fetches again when a token names a
// key it does not know (key rotation). The gateway must start while the issuer is down, so nothing here blocks
// start-up: discovery is attempted once in the background and again on demand, at most once per retry interval, and
// until it succeeds every token of that issuer is refused (a 401), as upstream answers "authenticator not initialized".
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import type { HttpsFetch } from './fetch.js';

export interface IssuerKeysOptions {
  issuerUrl: string;
  /** Overrides the discovery location; then the document's `issuer` need not equal issuerUrl (as upstream). */
  discoveryUrl?: string;
  fetch: HttpsFetch;
  log: (line: string) => void;
  /** After a failed discovery, requests within this long get the failure without a new attempt (default 1s). */
  retryAfterMs?: number;
  /** Per request (default 5s, jose's default). */
  timeoutMs?: number;
  /** Minimum time between two key-set fetches caused by unknown key ids (default 1s). */
  unknownKeyCooldownMs?: number;
  now?: () => number;
}

export interface IssuerKeys {
  /** jose key resolver; rejects while discovery has not succeeded. */
  readonly getKey: JWTVerifyGetKey;
  /** Runs discovery if it has not succeeded yet (resolves either way; used to start in the background). */
  warmUp(): Promise<void>;
}

export class IssuerUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IssuerUnavailableError';
  }
}

export function discoveryLocation(issuerUrl: string, discoveryUrl?: string): string {
  return discoveryUrl || `${issuerUrl.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

export function createIssuerKeys(opts: IssuerKeysOptions): IssuerKeys {
  const now = opts.now ?? Date.now;
  const retryAfterMs = opts.retryAfterMs ?? 1_000;
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const location = discoveryLocation(opts.issuerUrl, opts.discoveryUrl);
  let keySet: JWTVerifyGetKey | undefined;
  let pending: Promise<JWTVerifyGetKey> | undefined;
  let failure: { at: number; error: Error } | undefined;

  const discover = async (): Promise<JWTVerifyGetKey> => {
    const res = await opts.fetch(location, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = await res.text();
    if (res.status !== 200) throw new IssuerUnavailableError(`${res.status} ${res.statusText}`.trim());
    let doc: { issuer?: unknown; jwks_uri?: unknown };
    try {
      doc = JSON.parse(body) as typeof doc;
    } catch (e) {
      throw new IssuerUnavailableError(`oidc: failed to decode provider discovery object: ${(e as Error).message}`);
    }
    if (!opts.discoveryUrl && doc.issuer !== opts.issuerUrl) {
      throw new IssuerUnavailableError(
        `oidc: issuer did not match the issuer returned by provider, expected "${opts.issuerUrl}" got "${String(doc.issuer)}"`,
      );
    }
    let jwksUri: URL;
    try {
      jwksUri = new URL(String(doc.jwks_uri));
    } catch {
      throw new IssuerUnavailableError('oidc: provider discovery object has no valid jwks_uri');
    }
    return createRemoteJWKSet(jwksUri, {
      [customFetch]: opts.fetch,
      timeoutDuration: timeoutMs,
      cooldownDuration: opts.unknownKeyCooldownMs ?? 1_000,
      // As go-oidc: known keys stay trusted until a token names an unknown one, so tokens keep being checked
      // "without contacting the provider" through an issuer outage.
      cacheMaxAge: Infinity,
    });
  };

  const resolve = (): Promise<JWTVerifyGetKey> => {
    if (keySet) return Promise.resolve(keySet);
    if (pending) return pending;
    if (failure && now() - failure.at < retryAfterMs) return Promise.reject(failure.error);
    pending = discover()
      .then(
        (resolved) => {
          keySet = resolved;
          failure = undefined;
          opts.log(`oidc: discovery for issuer ${opts.issuerUrl} succeeded`);
          return resolved;
        },
        (e: Error) => {
          const error = new IssuerUnavailableError(
            `oidc: authenticator for issuer ${opts.issuerUrl} not initialized: discovery at ${location} failed: ${e.message}`,
          );
          failure = { at: now(), error };
          opts.log(`error: ${error.message}`);
          throw error;
        },
      )
      .finally(() => {
        pending = undefined;
      });
    return pending;
  };

  return {
    getKey: async (header, token) => (await resolve())(header, token),
    warmUp: () =>
      resolve().then(
        () => undefined,
        () => undefined,
      ),
  };
}
