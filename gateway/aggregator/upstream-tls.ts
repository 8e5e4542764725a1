// How Gatehouse talks TLS to a server behind a Service, for the availability check, the proxy and admission webhooks
// alike: the server's certificate is verified against the caBundle (the system roots without one) for the name
// `<service>.<namespace>.svc`, whatever address the resolver gave, unless an APIService says insecureSkipTLSVerify;
// the client certificate of --proxy-client-cert-file is what a remote APIService's request-header authenticator
// trusts (webhooks get none).
import { readFileSync } from 'node:fs';
import tls from 'node:tls';
import type { KObject } from '../../api/meta/types.js';
import type { ServiceReference } from '../../api/apiregistration/v1/api-service.js';
import { asStr, specOf } from '../../api/common/validation-helpers.js';
import { serviceServerName } from './service-resolver.js';

export interface ClientCertificate {
  cert: string;
  key: string;
}

/** The pair to present on the next connection (--proxy-client-cert-file's, reloaded as its files change). */
export interface ClientCertificateSource {
  current(): ClientCertificate;
}

/** Reads the pair and makes sure TLS can use it, so that a bad pair stops the start rather than every request. */
export function loadClientCertificate(certFile: string, keyFile: string): ClientCertificate {
  const pair = { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  tls.createSecureContext(pair);
  return pair;
}

export interface UpstreamTlsOptions {
  ca?: Buffer;
  cert?: string;
  key?: string;
  rejectUnauthorized: boolean;
  servername: string;
  checkServerIdentity: (host: string, cert: tls.PeerCertificate) => Error | undefined;
}

export function upstreamTlsOptions(
  apiService: KObject,
  service: ServiceReference,
  clientCert?: ClientCertificate,
): UpstreamTlsOptions {
  const spec = specOf(apiService);
  const caBundle = asStr(spec.caBundle);
  return serviceTlsOptions(caBundle ? Buffer.from(caBundle, 'base64') : undefined, service, {
    clientCert,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
  });
}

/** The same rules for any caller reaching a Service (admission webhooks too): its CA bundle, its DNS name. */
export function serviceTlsOptions(
  ca: Buffer | undefined,
  service: Pick<ServiceReference, 'namespace' | 'name'>,
  opts: { clientCert?: ClientCertificate; insecureSkipTLSVerify?: boolean } = {},
): UpstreamTlsOptions {
  const serverName = serviceServerName(service);
  return {
    ca,
    cert: opts.clientCert?.cert,
    key: opts.clientCert?.key,
    rejectUnauthorized: opts.insecureSkipTLSVerify !== true,
    // SNI cannot carry an IP address anyway, and the certificate names the Service, not the address reached.
    servername: serverName,
    checkServerIdentity: (_host, cert) => tls.checkServerIdentity(serverName, cert),
  };
}
