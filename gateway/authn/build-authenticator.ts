// Turns the authentication flags into the authenticator union, in upstream's order: client certificates first (a
// presented certificate is judged before any token), then bearer tokens, and anonymous wrapped around the whole.
// The authenticating proxy (request headers) is asked before the client certificates.
import type { GatehouseOptions } from '../server/options.js';
import type { Registry } from '../registry/registry.js';
import { createAuthenticatorUnion, type Authenticator } from './authenticator.js';
import { createBearerTokenAuthenticator, type TokenAuthenticator } from './bearer-token.js';
import { createStaticTokenAuthenticator, loadTokenFile } from './token-file.js';
import { createAdminTokenAuthenticator } from './admin-token.js';
import { withAnonymousFallback } from './anonymous.js';
import { createClientCertAuthenticator, readClientCaBundle } from './client-cert.js';
import { createRequestHeaderAuthenticator, withIdentityHeadersRemoved } from './request-header.js';

export interface AuthenticatorDeps {
  options: GatehouseOptions;
  /** The generated admin credential (system:masters). */
  adminToken: string;
  /** Bootstrap and service-account tokens look their objects up here. */
  registry: Registry;
  log: (line: string) => void;
}

export async function buildAuthenticator({ options, adminToken, log }: AuthenticatorDeps): Promise<Authenticator> {
  const tokens: TokenAuthenticator[] = [createAdminTokenAuthenticator(adminToken)];
  if (options.tokenAuthFile) {
    const parsed = await loadTokenFile(options.tokenAuthFile);
    for (const warning of parsed.warnings) log(`warning: ${warning}`);
    tokens.push(createStaticTokenAuthenticator('token-file', parsed.tokens));
  }
  const members: Authenticator[] = [];
  // The authenticating proxy comes first, as upstream: a verified proxy's headers speak for the user it forwards.
  const proxy = options.requestHeader;
  if (proxy && proxy.usernameHeaders.length === 0) {
    log('warning: --requestheader-client-ca-file is set without --requestheader-username-headers: no proxy request can name a user');
  }
  if (proxy) members.push(createRequestHeaderAuthenticator({ ...proxy, caPems: readClientCaBundle(proxy.clientCaFile) }));
  if (options.clientCaFile) members.push(createClientCertAuthenticator({ trustedCAs: readClientCaBundle(options.clientCaFile) }));
  members.push(createBearerTokenAuthenticator(tokens));
  const union = createAuthenticatorUnion(members);
  // Identity headers (X-Remote-* and the configured ones) never travel past authentication.
  return withIdentityHeadersRemoved(options.anonymousAuth ? withAnonymousFallback(union) : union, proxy);
}
