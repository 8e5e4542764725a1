// Authenticators form a union: each is asked in order; the first that recognises its kind of credential decides.
// Returning null means "not my kind of credential"; throwing means "mine, but invalid" (a 401, never a fall-through
// to anonymous).
import type { IncomingMessage } from 'node:http';
import type { UserInfo } from '../../api/meta/user.js';

export type { UserInfo };

export interface AuthenticationResult {
  user: UserInfo;
  /** Audiences the credential was valid for (token authenticators). */
  audiences?: string[];
}

export interface Authenticator {
  readonly name: string;
  authenticate(req: IncomingMessage): Promise<AuthenticationResult | null>;
}

export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}

export const SYSTEM_AUTHENTICATED = 'system:authenticated';
export const SYSTEM_MASTERS = 'system:masters';
export const ANONYMOUS_USER = 'system:anonymous';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';

/**
 * First success decides; every authenticated user also gets system:authenticated. A member that rejects its
 * credential does not stop the others (a request may carry an expired client certificate and a valid token, as
 * upstream's union allows), but when nobody succeeds that rejection is the answer: a 401, never anonymous.
 */
export function createAuthenticatorUnion(members: Authenticator[]): Authenticator {
  return {
    name: 'union',
    async authenticate(req) {
      let rejection: unknown;
      for (const member of members) {
        let result: AuthenticationResult | null;
        try {
          result = await member.authenticate(req);
        } catch (e) {
          rejection ??= e;
          continue;
        }
        if (result) {
          const groups = result.user.groups.includes(SYSTEM_AUTHENTICATED)
            ? result.user.groups
            : [...result.user.groups, SYSTEM_AUTHENTICATED];
          return { ...result, user: { ...result.user, groups } };
        }
      }
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- rethrows a caught value as it came
      if (rejection !== undefined) throw rejection;
      return null;
    },
  };
}

/** Reads a bearer token; null when there is no Authorization header, AuthenticationError when it is malformed. */
export function bearerToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) {
    if (/^Bearer\b/i.test(header)) throw new AuthenticationError('invalid bearer token');
    return null;
  }
  return match[1];
}
