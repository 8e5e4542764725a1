// --anonymous-auth: a request that carries no credential at all becomes system:anonymous. It wraps the union from
// the outside (as upstream does) so that anonymous never receives system:authenticated, and it never rescues a
// credential that was presented but rejected: the union throws for those, and the throw passes through.
import type { Authenticator } from './authenticator.js';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticator.js';

export function withAnonymousFallback(inner: Authenticator): Authenticator {
  return {
    name: `${inner.name}+anonymous`,
    async authenticate(req) {
      const result = await inner.authenticate(req);
      return result ?? { user: { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
    },
  };
}
