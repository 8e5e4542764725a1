// --anonymous-auth: a request that carries no credential at all becomes system:anonymous. It wraps the union from
// the outside (as upstream does) so that anonymous never receives system:authenticated, and it never rescues a
// credential that was presented but rejected: the union throws for those, and the throw passes through.
import type { Authenticator } from './authenticator.js';
import { ANONYMOUS_USER, UNAUTHENTICATED_GROUP } from './authenticator.js';

/** `allowedPaths` (AuthenticationConfiguration anonymous.conditions): when given, anonymous only for these exact paths. */
export function withAnonymousFallback(inner: Authenticator, opts: { allowedPaths?: string[] } = {}): Authenticator {
  const allowed = opts.allowedPaths?.length ? new Set(opts.allowedPaths) : undefined;
  return {
    name: `${inner.name}+anonymous`,
    async authenticate(req) {
      const result = await inner.authenticate(req);
      if (result) return result;
      if (allowed && !allowed.has((req.url ?? '/').split('?')[0])) return null;
      return { user: { name: ANONYMOUS_USER, groups: [UNAUTHENTICATED_GROUP] } };
    },
  };
}
