// Service-account bearer tokens: JWTs signed by one of the service-account keys, as kube-apiserver checks them.
//
// A token is "ours" when it is a compact JWT whose (not yet verified) `iss` is one of the --service-account-issuer
// values; anything else returns null so that other token sources (static file, OIDC) get their turn. An issuer match
// that fails any check (signature, expiry with upstream's one-minute leeway, audience against --api-audiences,
// claims, and with --service-account-lookup the account and bound object still existing with the same uid) throws
// AuthenticationError: a 401, never a fall-through.
//
// Upstream always looks bound tokens' objects up and keeps --service-account-lookup for its legacy Secret tokens;
// Gatehouse issues bound tokens only, so the flag governs these lookups (the spec: "tokens deleted from the API are
// revoked").
import { hash } from 'node:crypto';
import { compactVerify } from 'jose';
import { setBounded } from '../../api/meta/bounded-map.js';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import type { Registry } from '../registry/registry.js';
import { AuthenticationError } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';
import { lookUpCredentialObject } from './object-lookup.js';
import {
  PRIVATE_CLAIM,
  serviceAccountUser,
  serviceAccountUsername,
  type ObjectRefClaim,
  type ServiceAccountInfo,
} from './service-account-claims.js';
import type { ServiceAccountKey } from './service-account-keys.js';

/** go-jose's default leeway for exp, nbf and iat, which upstream relies on. */
export const CLOCK_LEEWAY_SECONDS = 60;

/**
 * Tokens whose signature was verified, at most this many (the oldest go first). A client sends the same token with
 * every request for as long as it holds it, and checking an ES256 signature costs ~180 µs, most of such a request.
 */
export const VERIFIED_TOKENS_KEPT = 4096;

/** Kinds a token can name; Pod is not served by Gatehouse, so a pod-bound token fails its lookup. */
export type BoundKind = 'ServiceAccount' | 'Secret' | 'Node' | 'Pod';

export interface ObjectGetter {
  /** The object, or undefined when it does not exist or its kind is not served. Other failures throw. */
  get(kind: BoundKind, namespace: string, name: string): Promise<KObject | undefined>;
}

/** Reads through the registry, the same path the API serves, cache first (object-lookup.ts). */
export function registryObjectGetter(registry: Registry): ObjectGetter {
  return {
    async get(kind, namespace, name) {
      const store = registry.byKind('', kind);
      if (!store) return undefined;
      try {
        return await lookUpCredentialObject(store, store.def.namespaced ? namespace : '', name);
      } catch (e) {
        if (isStatusError(e) && e.code === 404) return undefined;
        throw e;
      }
    },
  };
}

export interface ServiceAccountTokenOptions {
  issuers: string[];
  keys: ServiceAccountKey[];
  apiAudiences: string[];
  lookup: boolean;
  getter: ObjectGetter;
  /** Seconds since the epoch (tests). */
  now?: () => number;
  /** How many verified tokens to keep; VERIFIED_TOKENS_KEPT unless given (tests). */
  verifiedTokensKept?: number;
}

type Json = Record<string, unknown>;

function parseObject(bytes: Uint8Array): Json | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

function isRef(value: unknown): value is ObjectRefClaim {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Json).name === 'string' &&
    (value as Json).name !== '' &&
    typeof (value as Json).uid === 'string'
  );
}

function audiencesOf(aud: unknown): string[] | undefined {
  if (aud === undefined) return [];
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === 'string')) return aud;
  return undefined;
}

function fail(why: string): never {
  throw new AuthenticationError(why);
}

export function createServiceAccountTokenAuthenticator(opts: ServiceAccountTokenOptions): TokenAuthenticator {
  const issuers = new Set(opts.issuers);
  const now = opts.now ?? (() => Date.now() / 1000);

  // A token's signature verifies the same way every time against the same keys, which are fixed for the life of the
  // process: only that outcome is kept. Everything that can change (the time, the account and bound objects) is
  // checked on every request, so revocation by deletion stays immediate. Keyed by digest, as static tokens are, so
  // that no token is kept and the lookup's timing tells nothing about one.
  const verified = new Map<string, Readonly<Json>>();
  const kept = opts.verifiedTokensKept ?? VERIFIED_TOKENS_KEPT;

  async function verifySignature(token: string, header: Json): Promise<Json> {
    const kid = typeof header.kid === 'string' && header.kid !== '' ? header.kid : undefined;
    const candidates = kid === undefined ? opts.keys : opts.keys.filter((k) => k.kid === kid);
    if (candidates.length === 0) fail('invalid signature, no keys found');
    for (const key of candidates) {
      try {
        const { payload } = await compactVerify(token, key.key, { algorithms: [key.alg] });
        const claims = parseObject(payload);
        if (claims) return claims;
      } catch {
        // The next key may be the one (rotation); all failing is the answer.
      }
    }
    return fail('invalid signature');
  }

  function checkTimes(claims: Json): void {
    const t = now();
    const { exp, nbf, iat } = claims;
    if (typeof exp !== 'number') fail('service account token has no expiry');
    if (t > exp + CLOCK_LEEWAY_SECONDS) fail('service account token has expired');
    if (nbf !== undefined && (typeof nbf !== 'number' || t + CLOCK_LEEWAY_SECONDS < nbf))
      fail('service account token is not valid yet');
    if (iat !== undefined && (typeof iat !== 'number' || t + CLOCK_LEEWAY_SECONDS < iat))
      fail('service account token is issued in the future');
  }

  /** Bound objects deleted longer ago than the leeway invalidate the token; a uid mismatch means it was recreated. */
  async function checkStillExists(kind: BoundKind, namespace: string, ref: ObjectRefClaim): Promise<void> {
    const obj = await opts.getter.get(kind, namespace, ref.name);
    const what = kind === 'ServiceAccount' ? 'service account' : `bound ${kind.toLowerCase()}`;
    if (!obj) fail(`${what} ${kind === 'Node' ? ref.name : `${namespace}/${ref.name}`} no longer exists`);
    if (obj.metadata.uid !== ref.uid) fail(`${what} uid does not match the token's claim`);
    const deleted = obj.metadata.deletionTimestamp;
    if (deleted && Date.parse(deleted) / 1000 < now() - CLOCK_LEEWAY_SECONDS) fail(`${what} has been deleted`);
  }

  return {
    name: 'service-account-token',
    async authenticateToken(token) {
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const digest = hash('sha256', token, 'hex');
      let claims = verified.get(digest);
      if (!claims) {
        const header = parseObject(Buffer.from(parts[0], 'base64url'));
        const unverified = parseObject(Buffer.from(parts[1], 'base64url'));
        if (!header || !unverified || typeof unverified.iss !== 'string' || !issuers.has(unverified.iss)) return null;
        claims = await verifySignature(token, header);
        if (typeof claims.iss !== 'string' || !issuers.has(claims.iss)) fail('token issuer is invalid');
        setBounded(verified, digest, Object.freeze(claims), kept);
      }
      checkTimes(claims);

      const tokenAudiences = audiencesOf(claims.aud);
      if (!tokenAudiences) fail('token audiences are malformed');
      // A token without audiences is meant for the API itself (upstream's implicit audiences).
      const offered = tokenAudiences.length > 0 ? tokenAudiences : opts.apiAudiences;
      const audiences = offered.filter((a) => opts.apiAudiences.includes(a));
      if (audiences.length === 0) fail('token audiences are invalid for the API audiences');

      const k = claims[PRIVATE_CLAIM] as Json | undefined;
      if (
        !k ||
        typeof k !== 'object' ||
        typeof k.namespace !== 'string' ||
        k.namespace === '' ||
        !isRef(k.serviceaccount)
      ) {
        fail('service account token claims are incomplete');
      }
      const namespace = k.namespace;
      const account = k.serviceaccount;
      if (claims.sub !== serviceAccountUsername(namespace, account.name))
        fail('service account token subject does not match its claims');
      const bound = { pod: k.pod, secret: k.secret, node: k.node };
      for (const [field, ref] of Object.entries(bound))
        if (ref !== undefined && !isRef(ref)) fail(`service account token ${field} claim is malformed`);
      const pod = bound.pod as ObjectRefClaim | undefined;
      const secret = bound.secret as ObjectRefClaim | undefined;
      const node = bound.node as ObjectRefClaim | undefined;

      if (opts.lookup) {
        await checkStillExists('ServiceAccount', namespace, account);
        if (secret) await checkStillExists('Secret', namespace, secret);
        if (pod) await checkStillExists('Pod', namespace, pod);
        // A pod-bound token names its pod's node for information only; a node-bound one is bound to it.
        else if (node) await checkStillExists('Node', '', node);
      }

      const info: ServiceAccountInfo = { namespace, name: account.name, uid: account.uid };
      if (pod) Object.assign(info, { podName: pod.name, podUID: pod.uid });
      if (node) Object.assign(info, { nodeName: node.name, nodeUID: node.uid });
      if (typeof claims.jti === 'string' && claims.jti !== '') info.jti = claims.jti;
      return { user: serviceAccountUser(info), audiences };
    },
  };
}
