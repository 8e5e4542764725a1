// --enable-bootstrap-token-auth: bearer tokens `<id>.<secret>` backed by Secrets `bootstrap-token-<id>` in
// platform-system. As upstream's authenticator, every way a token can fail (no such
// Secret, wrong type, wrong secret, expired, not for authentication, a bad extra group) answers "not mine", so a
// later token source may still claim it; the bearer authenticator turns "nobody's" into a 401. Nothing here logs or
// reports the token or its secret.
import { timingSafeEqual } from 'node:crypto';
import { isStatusError } from '../../api/meta/errors.js';
import type { KObject } from '../../api/meta/types.js';
import {
  BOOTSTRAP_TOKEN_NAMESPACE,
  BOOTSTRAP_TOKEN_SECRET_TYPE,
  BOOTSTRAP_USER_PREFIX,
  TOKEN_ID_KEY,
  TOKEN_SECRET_KEY,
  USAGE_AUTHENTICATION_KEY,
  bootstrapTokenSecretName,
  parseBootstrapToken,
  secretValue,
  tokenExpiration,
  tokenGroups,
} from '../../api/core/v1/bootstrap-token.js';
import type { AuthenticationResult } from './authenticator.js';
import type { TokenAuthenticator } from './bearer-token.js';

/** What the authenticator reads: one Secret by namespace and name (a StatusError 404 when absent). */
export interface SecretGetter {
  get(namespace: string, name: string): Promise<KObject>;
}

/** Constant-time equality of two strings; a length difference is not secret (both sides are fixed-format). */
function sameSecret(stored: string, presented: string): boolean {
  const a = Buffer.from(stored, 'utf8');
  const b = Buffer.from(presented, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createBootstrapTokenAuthenticator(
  secrets: SecretGetter,
  opts: { log?: (line: string) => void; now?: () => number } = {},
): TokenAuthenticator {
  const now = opts.now ?? Date.now;
  return {
    name: 'bootstrap-token',
    async authenticateToken(token): Promise<AuthenticationResult | null> {
      const parsed = parseBootstrapToken(token);
      if (!parsed) return null;
      const name = bootstrapTokenSecretName(parsed.id);
      let secret: KObject;
      try {
        secret = await secrets.get(BOOTSTRAP_TOKEN_NAMESPACE, name);
      } catch (e) {
        // Only the Secret's name goes into the log: the id is public, the secret never leaves this function.
        if (!(isStatusError(e) && e.code === 404))
          opts.log?.(
            `bootstrap token: cannot read Secret ${BOOTSTRAP_TOKEN_NAMESPACE}/${name}: ${(e as Error).message}`,
          );
        return null;
      }
      if (secret.metadata.deletionTimestamp || secret.type !== BOOTSTRAP_TOKEN_SECRET_TYPE || !secret.data) return null;
      if (!sameSecret(secretValue(secret, TOKEN_SECRET_KEY), parsed.secret)) return null;
      if (secretValue(secret, TOKEN_ID_KEY) !== parsed.id) return null;
      if (tokenExpiration(secret, now()).expired) return null;
      if (secretValue(secret, USAGE_AUTHENTICATION_KEY) !== 'true') return null;
      const groups = tokenGroups(secret);
      if (!groups) return null;
      return { user: { name: `${BOOTSTRAP_USER_PREFIX}${parsed.id}`, groups } };
    },
  };
}
