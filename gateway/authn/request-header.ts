// --requestheader-*: the authenticating proxy (front proxy). A proxy in front of the server authenticates the user
// its own way and passes the identity on in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>). Those
// headers are believed only on a connection whose client certificate chains to the --requestheader-client-ca-file
// bundle and, when --requestheader-allowed-names is given, whose CN is in that list; from anyone else they are
// ignored. As upstream:
// - no client certificate: not ours (null), whatever the headers say;
// - a certificate that does not verify against the request-header CA, or whose CN is not allowed: ours but invalid
//   (the union moves on, so the same certificate may still be an x509 user if the client CA signed it, or a bearer
//   token sent along may still succeed);
// - a verified proxy without a user-name header: not ours (the proxy may forward a bearer token of its own);
// - otherwise the user is the first non-empty value of the user-name headers, the groups every non-empty value of
//   the group headers, the extra every header under an extra prefix (key lowercased and percent-decoded).
// The identity headers (standard and configured) are removed from every authenticated request, by
// `withIdentityHeadersRemoved`, so that nothing downstream can mistake a client's forged header for a proxy's.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import type { IncomingMessage } from 'node:http';
import type { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../../api/meta/user.js';
import { AuthenticationError, type Authenticator } from './authenticator.js';
import { connectionOf } from '../server/connection.js';
import {
  anchorSet,
  describeCertificate,
  peerOf,
  socketVerdict,
  verifyPeer,
  type Peer,
  type PeerSocket,
} from './client-cert.js';
import { deleteHeaders, headerNames, headerValues, unescapeExtraKey } from './header-values.js';

export interface RequestHeaderConfig {
  /** Headers naming the user, in priority order (case-insensitive). */
  usernameHeaders: string[];
  /** Headers whose every value is a group. */
  groupHeaders: string[];
  /** Prefixes of headers that carry extra attributes (the rest of the name is the key). */
  extraHeaderPrefixes: string[];
  /** CNs a proxy certificate may have; empty allows any verified certificate. */
  allowedNames: string[];
}

/** What kube-apiserver strips from every authenticated request even when no proxy is configured. */
export const STANDARD_REQUEST_HEADERS: Omit<RequestHeaderConfig, 'allowedNames'> = {
  usernameHeaders: ['X-Remote-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-'],
};

/** The identity a verified proxy asserts, or null when it names no user. */
export function userFromHeaders(
  req: IncomingMessage,
  config: Omit<RequestHeaderConfig, 'allowedNames'>,
): UserInfo | null {
  let name = '';
  for (const header of config.usernameHeaders) {
    name = headerValues(req, header)[0] ?? '';
    if (name !== '') break;
  }
  if (name === '') return null;
  const groups = config.groupHeaders.flatMap((header) => headerValues(req, header).filter((v) => v !== ''));
  const extra: Record<string, string[]> = {};
  const names = headerNames(req);
  // Prefixes first, then headers, so that values keep the order of the configured prefixes (as upstream).
  for (const prefix of config.extraHeaderPrefixes) {
    const lower = prefix.toLowerCase();
    for (const header of names) {
      if (!header.startsWith(lower)) continue;
      const key = unescapeExtraKey(header.slice(lower.length));
      (extra[key] ??= []).push(...headerValues(req, header));
    }
  }
  const user: UserInfo = { name, groups };
  if (Object.keys(extra).length > 0) user.extra = extra;
  return user;
}

/** A test for the lowercased header names that carry identity under `configs`. */
function identityHeaderMatcher(configs: Omit<RequestHeaderConfig, 'allowedNames'>[]): (lowerName: string) => boolean {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const config of configs) {
    for (const h of [...config.usernameHeaders, ...config.groupHeaders]) exact.add(h.toLowerCase());
    for (const p of config.extraHeaderPrefixes) prefixes.push(p.toLowerCase());
  }
  return (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

interface ProxyVerdict {
  fingerprint: string;
  error?: string;
}

export interface RequestHeaderAuthenticatorOptions extends RequestHeaderConfig {
  /** The --requestheader-client-ca-file bundle (PEMs). */
  caPems: string[];
  now?: () => number;
}

export function createRequestHeaderAuthenticator(opts: RequestHeaderAuthenticatorOptions): Authenticator {
  const now = opts.now ?? Date.now;
  const anchors = anchorSet(opts.caPems);
  const allowed = new Set(opts.allowedNames);
  // One verification per TLS connection, as for x509; the validity window is checked per request.
  const verdicts = new WeakMap<object, ProxyVerdict>();

  const judge = (socket: PeerSocket, peer: Peer): ProxyVerdict => {
    const cert = peer.leaf;
    const fingerprint = cert.fingerprint256;
    const why = verifyPeer(socket, peer, anchors);
    if (why !== null)
      return { fingerprint, error: `verifying certificate ${describeCertificate(cert)} failed: ${why}` };
    if (allowed.size > 0) {
      const cn = commonName(cert);
      if (!allowed.has(cn)) return { fingerprint, error: `x509: subject with cn=${cn} is not in the allowed list` };
    }
    return { fingerprint };
  };

  return {
    name: 'requestheader',
    async authenticate(req) {
      const socket = connectionOf(req) as PeerSocket;
      const peer = peerOf(socket);
      if (!peer) return null;
      const verdict = socketVerdict(verdicts, socket, peer, () => judge(socket, peer));
      if (verdict.error) throw new AuthenticationError(verdict.error);
      const cert = peer.leaf;
      const t = now();
      if (t < new Date(cert.validFrom).getTime() || t > new Date(cert.validTo).getTime()) {
        throw new AuthenticationError(
          `verifying certificate ${describeCertificate(cert)} failed: x509: certificate has expired or is not yet valid`,
        );
      }
      const user = userFromHeaders(req, opts);
      return user ? { user } : null;
    },
  };
}

/** Go's pkix.Name.CommonName: the last CN of the subject ('' when none). */
function commonName(cert: X509Certificate): string {
  return new x509.X509Certificate(cert.raw).subjectName.getField('CN').at(-1) ?? '';
}

/**
 * Upstream's authentication filter: once a request is authenticated (by any method, anonymous included), the
 * standard X-Remote-* headers and the configured request-header ones are removed before anything downstream runs.
 */
export function withIdentityHeadersRemoved(
  inner: Authenticator,
  configured?: Omit<RequestHeaderConfig, 'allowedNames'>,
): Authenticator {
  // Built once: every authenticated request runs it.
  const isIdentityHeader = identityHeaderMatcher(
    configured ? [STANDARD_REQUEST_HEADERS, configured] : [STANDARD_REQUEST_HEADERS],
  );
  return {
    name: inner.name,
    async authenticate(req) {
      const result = await inner.authenticate(req);
      if (result) deleteHeaders(req, isIdentityHeader);
      return result;
    },
  };
}
