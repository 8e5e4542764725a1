// Issues service-account tokens: compact JWS with the header {alg, kid} that upstream writes (the kid lets a verifier
// holding several keys pick the right one) and the claims of service-account-claims.ts.
import { randomUUID } from 'node:crypto';
import { CompactSign } from 'jose';
import {
  PRIVATE_CLAIM,
  serviceAccountUsername,
  type ObjectRefClaim,
  type ServiceAccountTokenClaims,
} from './service-account-claims.js';
import type { ServiceAccountKey } from './service-account-keys.js';

export interface TokenSubject {
  namespace: string;
  name: string;
  uid: string;
  /** At most one bound object (Pod may also carry its node, which Gatehouse never issues). */
  secret?: ObjectRefClaim;
  node?: ObjectRefClaim;
}

export interface IssueRequest {
  subject: TokenSubject;
  audiences: string[];
  expirationSeconds: number;
  /** Milliseconds since the epoch; the token's iat and nbf (default: now). */
  now?: number;
}

export interface IssuedToken {
  token: string;
  claims: ServiceAccountTokenClaims;
}

export interface ServiceAccountTokenSigner {
  /** The `iss` every token carries (the first --service-account-issuer). */
  readonly issuer: string;
  issue(request: IssueRequest): Promise<IssuedToken>;
}

/** Signs any claims with the key; tests use it to mint tokens the server did not issue (expired, other audience). */
export async function signClaims(key: ServiceAccountKey, claims: object): Promise<string> {
  return new CompactSign(Buffer.from(JSON.stringify(claims)))
    .setProtectedHeader({ alg: key.alg, kid: key.kid })
    .sign(key.key);
}

export function createServiceAccountTokenSigner(issuer: string, key: ServiceAccountKey): ServiceAccountTokenSigner {
  if (key.key.type !== 'private') throw new Error('a service-account signing key must be a private key');
  return {
    issuer,
    async issue({ subject, audiences, expirationSeconds, now = Date.now() }) {
      const seconds = Math.floor(now / 1000);
      const claims: ServiceAccountTokenClaims = {
        iss: issuer,
        sub: serviceAccountUsername(subject.namespace, subject.name),
        aud: [...audiences],
        exp: seconds + expirationSeconds,
        iat: seconds,
        nbf: seconds,
        jti: randomUUID(),
        [PRIVATE_CLAIM]: {
          namespace: subject.namespace,
          serviceaccount: { name: subject.name, uid: subject.uid },
          ...(subject.secret ? { secret: { ...subject.secret } } : {}),
          ...(subject.node ? { node: { ...subject.node } } : {}),
        },
      };
      return { token: await signClaims(key, claims), claims };
    },
  };
}
