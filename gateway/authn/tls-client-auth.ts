// What the HTTPS server asks of clients. With --client-ca-file or --requestheader-client-ca-file (or both) the TLS
// layer requests a client certificate and verifies it against the union of the bundles, without refusing the
// handshake (other authenticators and anonymous still get their turn). Which bundle a chain reached is then each
// authenticator's own check (client-cert.ts and request-header.ts), so a proxy certificate is not an x509 user and
// an x509 user is not a proxy unless the matching CA signed it.
import type { TlsOptions } from 'node:tls';
import type { GatehouseOptions } from '../server/options.js';
import { clientCertTlsOptions, readClientCaBundle } from './client-cert.js';

export function clientAuthTlsOptions(
  options: Pick<GatehouseOptions, 'clientCaFile' | 'requestHeader'>,
): Pick<TlsOptions, 'requestCert' | 'rejectUnauthorized' | 'ca'> {
  const cas: string[] = [];
  if (options.clientCaFile) cas.push(...readClientCaBundle(options.clientCaFile));
  if (options.requestHeader) cas.push(...readClientCaBundle(options.requestHeader.clientCaFile));
  return cas.length > 0 ? clientCertTlsOptions([...new Set(cas)]) : {};
}
