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
import { createBootstrapTokenAuthenticator } from './bootstrap-token.js';
import type { ServiceAccountKeys } from './service-account-keys.js';
import { createServiceAccountTokenAuthenticator, registryObjectGetter } from './service-account-token.js';
import { lookUpCredentialObject } from './object-lookup.js';
import { setUpOidc } from './oidc/setup.js';

export interface AuthenticatorDeps {
  options: GatehouseOptions;
  /** The generated admin credential (system:masters). */
  adminToken: string;
  /** Bootstrap and service-account tokens look their objects up here. */
  registry: Registry;
  log: (line: string) => void;
  /** Service-account token keys (loadServiceAccountKeys); absent or without verification keys: no such tokens. */
  serviceAccountKeys?: ServiceAccountKeys;
  /** Aborted at shutdown: background work (configuration file watching) stops. */
  signal?: AbortSignal;
}

export async function buildAuthenticator({
  options,
  adminToken,
  registry,
  log,
  serviceAccountKeys,
  signal,
}: AuthenticatorDeps): Promise<Authenticator> {
  const tokens: TokenAuthenticator[] = [createAdminTokenAuthenticator(adminToken)];
  if (options.tokenAuthFile) {
    const parsed = await loadTokenFile(options.tokenAuthFile);
    for (const warning of parsed.warnings) log(`warning: ${warning}`);
    tokens.push(createStaticTokenAuthenticator('token-file', parsed.tokens));
  }
  const secrets = options.enableBootstrapTokenAuth ? registry.byKind('', 'Secret') : undefined;
  if (secrets)
    tokens.push(
      createBootstrapTokenAuthenticator(
        { get: (namespace, name) => lookUpCredentialObject(secrets, namespace, name) },
        { log },
      ),
    );
  if (serviceAccountKeys && serviceAccountKeys.verification.length > 0) {
    tokens.push(
      createServiceAccountTokenAuthenticator({
        ...options.serviceAccounts,
        keys: serviceAccountKeys.verification,
        getter: registryObjectGetter(registry),
      }),
    );
  }
  // OIDC last among token sources: it only claims JWTs whose `iss` is one of its issuers.
  const oidc = await setUpOidc(options, log);
  if (oidc) {
    tokens.push(oidc.authenticator);
    signal?.addEventListener('abort', () => oidc.close(), { once: true });
  }
  const members: Authenticator[] = [];
  // The authenticating proxy comes first, as upstream: a verified proxy's headers speak for the user it forwards.
  const proxy = options.requestHeader;
  if (proxy && proxy.usernameHeaders.length === 0) {
    log(
      'warning: --requestheader-client-ca-file is set without --requestheader-username-headers: no proxy request can name a user',
    );
  }
  if (proxy)
    members.push(createRequestHeaderAuthenticator({ ...proxy, caPems: readClientCaBundle(proxy.clientCaFile) }));
  if (options.clientCaFile)
    members.push(createClientCertAuthenticator({ trustedCAs: readClientCaBundle(options.clientCaFile) }));
  members.push(createBearerTokenAuthenticator(tokens));
  const union = createAuthenticatorUnion(members);
  // An AuthenticationConfiguration file's `anonymous` replaces --anonymous-auth (the two may not both be set).
  const anonymous = oidc?.anonymous ?? { enabled: options.anonymousAuth, conditions: [] };
  const withAnonymous = anonymous.enabled
    ? withAnonymousFallback(union, { allowedPaths: anonymous.conditions.map((c) => c.path) })
    : union;
  // Identity headers (X-Remote-* and the configured ones) never travel past authentication.
  return withIdentityHeadersRemoved(withAnonymous, proxy);
}
