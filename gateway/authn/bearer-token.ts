// Bearer tokens as kube-apiserver handles them: one request authenticator reads `Authorization: Bearer <token>` and
// asks a list of token authenticators (static file, generated admin token; later bootstrap, service-account and OIDC
// tokens). A token that none of them accepts is a 401, never a fall-through to anonymous.
import type { IncomingMessage } from 'node:http';
import { AuthenticationError, bearerToken, type AuthenticationResult, type Authenticator } from './authenticator.js';

export interface TokenAuthenticator {
  readonly name: string;
  /** null: not a token this source knows; throwing: a token of this source that is invalid (expired, malformed). */
  authenticateToken(token: string): Promise<AuthenticationResult | null>;
}

export function createBearerTokenAuthenticator(sources: TokenAuthenticator[]): Authenticator {
  return {
    name: 'bearer-token',
    async authenticate(req: IncomingMessage) {
      const token = bearerToken(req);
      if (token === null) return null;
      for (const source of sources) {
        const result = await source.authenticateToken(token);
        if (result) return result;
      }
      throw new AuthenticationError('invalid bearer token');
    },
  };
}
