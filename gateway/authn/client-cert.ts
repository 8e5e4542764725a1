// --client-ca-file: x509 client certificates as kube-apiserver reads them. The TLS layer does the chain verification
// (the server asks for a certificate and checks it against the client CA bundle, but lets requests without one, or
// with a bad one, through so that the other authenticators and anonymous still get their turn); this authenticator
// only maps the outcome:
// - no certificate: not ours (null);
// - a certificate that did not verify (unknown CA, expired, not yet valid, self-signed, not for client auth): ours
//   but invalid, a 401 (the union ends there, so a bearer token sent alongside is not tried);
// - a verified one: the subject CN is the user, each O a group. As upstream, a certificate without a CN is not an
//   identity at all and the request carries on as if none had been sent.
// Verification happens once per TLS connection (per handshake), so the result is kept per connection; the validity
// window is still checked on every request because a keep-alive connection can outlive its certificate, and Go
// checks the time on each request.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { DetailedPeerCertificate, PeerCertificate, TlsOptions } from 'node:tls';
import type { UserInfo } from '../../api/meta/user.js';
import { AuthenticationError, type Authenticator } from './authenticator.js';
import { connectionOf } from '../server/connection.js';

export const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
export const EKU_ANY = '2.5.29.37.0';

export class ClientCaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientCaError';
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/**
 * The certificates of a PEM bundle, each re-encoded as its own PEM. As Go's ParseCertsPEM: blocks of other types
 * are skipped, a CERTIFICATE block that does not parse is an error, and a bundle without any certificate is one.
 */
export function parseCaBundle(text: string): string[] {
  const certs: string[] = [];
  let index = 0;
  for (const match of text.matchAll(PEM_BLOCK)) {
    index++;
    if (match[1] !== 'CERTIFICATE') continue;
    try {
      certs.push(new X509Certificate(match[0]).toString());
    } catch (e) {
      throw new ClientCaError(`PEM block ${index} is not a valid certificate: ${(e as Error).message}`);
    }
  }
  if (certs.length === 0) throw new ClientCaError('data does not contain any PEM certificate');
  return certs;
}

/** Reads and checks the bundle; synchronous because it runs once, while the flags are checked at start-up. */
export function readClientCaBundle(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ClientCaError(`unable to read the client CA bundle: ${(e as Error).message}`);
  }
  return parseCaBundle(text);
}

/**
 * The HTTPS server options that make the TLS layer ask for and verify client certificates. `ca` only feeds
 * verification (and the list of acceptable CAs sent to clients); the serving certificate is configured apart and
 * unaffected. One difference from Go remains: OpenSSL needs a chain to end at a self-signed certificate of the
 * bundle, so an intermediate listed without its root is not an anchor on its own (Node 20's https server does not
 * pass allowPartialTrustChain on to its context).
 */
export function clientCertTlsOptions(caPems: string[]): Pick<TlsOptions, 'requestCert' | 'rejectUnauthorized' | 'ca'> {
  return { requestCert: true, rejectUnauthorized: false, ca: caPems };
}

/** Go's pkix.Name: CommonName is the last CN attribute, Organization every O in order. */
export function userFromCertificate(cert: x509.X509Certificate): UserInfo | null {
  const name = cert.subjectName;
  const cn = name.getField('CN').at(-1) ?? '';
  if (cn === '') return null;
  return { name: cn, groups: name.getField('O') };
}

/** Go's chain key-usage check: a certificate that lists extended key usages must list client auth (or any). */
export function allowsClientAuth(cert: x509.X509Certificate): boolean {
  const eku = cert.getExtension(x509.ExtendedKeyUsageExtension);
  if (!eku) return true;
  return eku.usages.some((usage) => usage === EKU_CLIENT_AUTH || usage === EKU_ANY);
}

/** What a TLS socket tells about its peer; TLSSocket has it, a plain socket does not. */
export interface PeerSocket {
  authorized?: boolean;
  authorizationError?: Error | string;
  getPeerX509Certificate?: () => X509Certificate | undefined;
  /** The legacy form; the detailed one links each certificate to its issuer, up to the trust anchor. */
  getPeerCertificate?: (detailed?: boolean) => PeerCertificate | DetailedPeerCertificate | null;
  /** The Finished message this side sent in the latest handshake; undefined before one completed. */
  getFinished?: () => Buffer | undefined;
}

interface Verdict {
  fingerprint: string;
  notBefore: number;
  notAfter: number;
  /** Set when the certificate is refused whatever the time. */
  error?: string;
  user: UserInfo | null;
}

/** The peer's certificate and the chain the TLS layer built for it: leaf first, each issuer after, up to the anchor. */
export interface Peer {
  leaf: X509Certificate;
  chain: X509Certificate[];
}

/** A connection's peer as read after the handshake whose Finished message is `handshake`. */
const peers = new WeakMap<object, { handshake: Buffer; peer: Peer | null }>();

/**
 * Reads the peer of a TLS socket. Real sockets are read through the legacy getPeerCertificate only: on Node 20,
 * once getPeerX509Certificate has been called on a connection, the detailed legacy form loses the intermediates the
 * client sent, and the X509Certificate it returns carries no issuer either. The peer is read once per handshake and
 * connection and shared by the x509 and request-header authenticators. A handshake is told by its Finished message,
 * which differs for every handshake, so a TLS 1.2 renegotiation (which may bring another certificate) is read
 * again: ~0.4 µs per request, where even the abbreviated legacy form built ~20 µs of objects per request.
 */
export function peerOf(socket: PeerSocket): Peer | null {
  if (typeof socket.getPeerCertificate === 'function') {
    const handshake = socket.getFinished?.();
    const cached = handshake && peers.get(socket);
    if (cached && cached.handshake.equals(handshake)) return cached.peer;
    const peer = readPeer(socket.getPeerCertificate(true) as DetailedPeerCertificate | null);
    if (handshake) peers.set(socket, { handshake, peer });
    return peer;
  }
  if (typeof socket.getPeerX509Certificate === 'function') {
    const leaf = socket.getPeerX509Certificate();
    if (!leaf) return null;
    const chain = [leaf];
    const seen = new Set([leaf.fingerprint256]);
    for (let cert = leaf.issuerCertificate; cert && !seen.has(cert.fingerprint256); cert = cert.issuerCertificate) {
      seen.add(cert.fingerprint256);
      chain.push(cert);
    }
    return { leaf, chain };
  }
  return null;
}

function readPeer(detailed: DetailedPeerCertificate | null): Peer | null {
  if (!detailed?.raw) return null;
  const leaf = new X509Certificate(detailed.raw);
  const chain = [leaf];
  const seen = new Set([leaf.fingerprint256]);
  for (let c = detailed.issuerCertificate; c?.raw && !seen.has(c.fingerprint256); c = c.issuerCertificate) {
    seen.add(c.fingerprint256);
    chain.push(new X509Certificate(c.raw));
  }
  return { leaf, chain };
}

function identifier(cert: X509Certificate): string {
  return `SN=${BigInt(`0x${cert.serialNumber}`)}, subject="${cert.subject.replace(/\n/g, ', ')}"`;
}

/**
 * Fingerprints of a CA bundle, for `chainReaches`. When the TLS layer trusts more than one bundle (the client CA and
 * the request-header CA), a verified chain only says "some trusted CA"; each authenticator then checks that the chain
 * reaches one of its own CAs, as Go verifies against each authenticator's own pool.
 */
export function anchorSet(caPems: string[]): Set<string> {
  return new Set(caPems.map((pem) => new X509Certificate(pem).fingerprint256));
}

/** Whether the chain the TLS layer built (leaf included, as Go accepts a leaf that is itself in the pool) meets `anchors`. */
export function chainReaches(peer: Peer, anchors: Set<string>): boolean {
  return peer.chain.some((c) => anchors.has(c.fingerprint256));
}

/**
 * Judges a peer certificate against one authenticator's CAs: verified by the TLS layer, reaching `anchors` when
 * given, every certificate of the chain allowing client auth. Returns why not, or null when it passes.
 */
export function verifyPeer(socket: PeerSocket, peer: Peer, anchors?: Set<string>): string | null {
  if (socket.authorized !== true) {
    const reason = socket.authorizationError;
    return String(reason instanceof Error ? reason.message : (reason ?? 'not verified'));
  }
  if (anchors && !chainReaches(peer, anchors)) return 'x509: certificate signed by unknown authority';
  // OpenSSL's client purpose check covers this too; it is repeated so the rule does not hang on OpenSSL's defaults.
  if (!peer.chain.every((c) => allowsClientAuth(new x509.X509Certificate(c.raw)))) {
    return 'x509: certificate specifies an incompatible key usage';
  }
  return null;
}

export function describeCertificate(cert: X509Certificate): string {
  return identifier(cert);
}

function judge(socket: PeerSocket, peer: Peer, anchors?: Set<string>): Verdict {
  const cert = peer.leaf;
  const verdict: Verdict = {
    fingerprint: cert.fingerprint256,
    notBefore: new Date(cert.validFrom).getTime(),
    notAfter: new Date(cert.validTo).getTime(),
    user: null,
  };
  const why = verifyPeer(socket, peer, anchors);
  if (why !== null) return { ...verdict, error: `verifying certificate ${identifier(cert)} failed: ${why}` };
  return { ...verdict, user: userFromCertificate(new x509.X509Certificate(cert.raw)) };
}

/**
 * A connection's certificate is judged once per socket, keyed so that a TLS 1.2 renegotiation that brought another
 * certificate is judged again.
 */
export function socketVerdict<V extends { fingerprint: string }>(
  cache: WeakMap<object, V>,
  socket: PeerSocket,
  peer: Peer,
  judgeNow: () => V,
): V {
  let verdict = cache.get(socket);
  if (!verdict || verdict.fingerprint !== peer.leaf.fingerprint256) {
    verdict = judgeNow();
    cache.set(socket, verdict);
  }
  return verdict;
}

export interface ClientCertAuthenticatorOptions {
  now?: () => number;
  /** The --client-ca-file bundle (PEMs). Needed when the TLS layer also trusts other CAs (--requestheader-client-ca-file):
   * a certificate that only those sign is then not an x509 identity. */
  trustedCAs?: string[];
}

export function createClientCertAuthenticator(opts: ClientCertAuthenticatorOptions = {}): Authenticator {
  const now = opts.now ?? Date.now;
  const anchors = opts.trustedCAs ? anchorSet(opts.trustedCAs) : undefined;
  // Keyed by connection; the fingerprint notices a TLS 1.2 renegotiation that brought another certificate.
  const verdicts = new WeakMap<object, Verdict>();
  return {
    name: 'x509',
    async authenticate(req: IncomingMessage) {
      const socket = connectionOf(req) as PeerSocket;
      const peer = peerOf(socket);
      if (!peer) return null;
      const verdict = socketVerdict(verdicts, socket, peer, () => judge(socket, peer, anchors));
      if (verdict.error) throw new AuthenticationError(verdict.error);
      const cert = peer.leaf;
      const t = now();
      if (t < verdict.notBefore || t > verdict.notAfter) {
        throw new AuthenticationError(
          `verifying certificate ${identifier(cert)} failed: x509: certificate has expired or is not yet valid`,
        );
      }
      return verdict.user ? { user: { name: verdict.user.name, groups: [...verdict.user.groups] } } : null;
    },
  };
}
