// A small certificate authority for tests: real CAs and client certificates made with @peculiar/x509 (ECDSA P-256,
// as the server's own generated PKI), exported as PEM for TLS clients, kubeconfigs and --client-ca-file bundles.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { randomBytes, webcrypto } from 'node:crypto';

// The library's types name the DOM's Crypto and CryptoKey, which this Node project does not load; Node's webcrypto
// objects are those at run time.
type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
type X509Key = x509.X509CertificateCreateWithKeyParams['signingKey'];
type X509KeyPair = x509.X509CertificateCreateSelfSignedParams['keys'];

x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);

const EC_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;

export interface CertificateAuthority {
  name: string;
  cert: x509.X509Certificate;
  certPem: string;
  keyPem: string;
  privateKey: X509Key;
  /** PEM of the intermediates between this CA and its root (empty for a root). */
  chainPem: string;
}

export interface IssuedCertificate {
  cert: x509.X509Certificate;
  certPem: string;
  keyPem: string;
  /** Leaf followed by the issuer's intermediates: what a client sends when its CA is not a root. */
  chainPem: string;
}

export interface ClientCertOptions {
  cn?: string;
  orgs?: string[];
  notBefore?: Date;
  notAfter?: Date;
  /** Extended key usage OIDs; default client auth. `null` leaves the extension out (any usage). */
  extendedKeyUsages?: string[] | null;
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

async function generateKeys(): Promise<X509KeyPair> {
  return await webcrypto.subtle.generateKey(EC_PARAMS, true, ['sign', 'verify']);
}

async function exportKeyPem(key: X509Key): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

/** A JSON name keeps values such as `system:masters` or ones with commas away from DN string parsing. */
function subjectName(cn: string | undefined, orgs: string[]): x509.JsonName {
  const rdns: x509.JsonName = [];
  if (cn !== undefined) rdns.push({ CN: [cn] });
  for (const o of orgs) rdns.push({ O: [o] });
  return rdns;
}

const CA_EXTENSIONS = [
  new x509.BasicConstraintsExtension(true, undefined, true),
  new x509.KeyUsagesExtension(
    x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
    true,
  ),
];

/** A root CA, or an intermediate when `issuer` is given; valid for a year unless `notAfter` says otherwise. */
export async function makeCA(
  name: string,
  opts: { issuer?: CertificateAuthority; notAfter?: Date } = {},
): Promise<CertificateAuthority> {
  const keys = await generateKeys();
  const now = Date.now();
  const validity = { notBefore: new Date(now - 60_000), notAfter: opts.notAfter ?? new Date(now + 365 * DAY_MS) };
  const subject: x509.JsonName = [{ CN: [name] }];
  const extensions = [...CA_EXTENSIONS, await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)];
  const { issuer } = opts;
  const cert = issuer
    ? await x509.X509CertificateGenerator.create({
        serialNumber: serialNumber(),
        subject,
        issuer: issuer.cert.subjectName,
        ...validity,
        publicKey: keys.publicKey,
        signingKey: issuer.privateKey,
        signingAlgorithm: SIGNING,
        extensions: [...extensions, await x509.AuthorityKeyIdentifierExtension.create(issuer.cert.publicKey)],
      })
    : await x509.X509CertificateGenerator.createSelfSigned({
        serialNumber: serialNumber(),
        name: subject,
        ...validity,
        keys,
        signingAlgorithm: SIGNING,
        extensions,
      });
  const certPem = cert.toString('pem');
  return {
    name,
    cert,
    certPem,
    keyPem: await exportKeyPem(keys.privateKey),
    privateKey: keys.privateKey,
    chainPem: issuer ? `${certPem}\n${issuer.chainPem}`.trim() : '',
  };
}

function clientExtensions(opts: ClientCertOptions): x509.Extension[] {
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
  ];
  const eku = opts.extendedKeyUsages === undefined ? [x509.ExtendedKeyUsage.clientAuth] : opts.extendedKeyUsages;
  if (eku !== null) extensions.push(new x509.ExtendedKeyUsageExtension(eku));
  return extensions;
}

function validity(opts: ClientCertOptions): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return {
    notBefore: opts.notBefore ?? new Date(now - 60_000),
    notAfter: opts.notAfter ?? new Date(now + 30 * DAY_MS),
  };
}

/** A client certificate signed by `ca`: subject CN and one O per group, client-auth usage unless told otherwise. */
export async function issueClientCert(
  ca: CertificateAuthority,
  opts: ClientCertOptions = {},
): Promise<IssuedCertificate> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: subjectName(opts.cn, opts.orgs ?? []),
    issuer: ca.cert.subjectName,
    ...validity(opts),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [...clientExtensions(opts), await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey)],
  });
  const certPem = cert.toString('pem');
  return { cert, certPem, keyPem: await exportKeyPem(keys.privateKey), chainPem: `${certPem}\n${ca.chainPem}`.trim() };
}

/** A client certificate that signs itself: what a client without any CA would present. */
export async function selfSignedClientCert(opts: ClientCertOptions = {}): Promise<IssuedCertificate> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: subjectName(opts.cn, opts.orgs ?? []),
    ...validity(opts),
    keys,
    signingAlgorithm: SIGNING,
    extensions: clientExtensions(opts),
  });
  const certPem = cert.toString('pem');
  return { cert, certPem, keyPem: await exportKeyPem(keys.privateKey), chainPem: certPem };
}

/** A --client-ca-file bundle: the CAs' PEMs one after the other. */
export function caBundle(...cas: CertificateAuthority[]): string {
  return `${cas.map((ca) => ca.certPem.trim()).join('\n')}\n`;
}

/** A serving certificate signed by `ca` for the given DNS names and IP addresses (server-auth usage). */
export async function issueServerCert(
  ca: CertificateAuthority,
  names: { dns?: string[]; ips?: string[] },
): Promise<IssuedCertificate> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: subjectName(names.dns?.[0] ?? names.ips?.[0], []),
    issuer: ca.cert.subjectName,
    ...validity({}),
    publicKey: keys.publicKey,
    signingKey: ca.privateKey,
    signingAlgorithm: SIGNING,
    extensions: [
      ...clientExtensions({ extendedKeyUsages: [x509.ExtendedKeyUsage.serverAuth] }),
      new x509.SubjectAlternativeNameExtension([
        ...(names.dns ?? []).map((value) => ({ type: 'dns' as const, value })),
        ...(names.ips ?? []).map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
    ],
  });
  const certPem = cert.toString('pem');
  return { cert, certPem, keyPem: await exportKeyPem(keys.privateKey), chainPem: `${certPem}\n${ca.chainPem}`.trim() };
}
