// Serving certificates. With --tls-cert-file/--tls-private-key-file the given pair is used as is. Without them, as
// kube-apiserver does for a bare start, a self-signed CA (`gatehouse-ca`) and a serving certificate signed by it are
// generated in the cert dir and reused on every later start; only the serving certificate is re-issued (by the same
// CA, so kubeconfigs stay valid) when it nears expiry or no longer names every address it must.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { X509Certificate as NodeX509, createPrivateKey, webcrypto, randomBytes } from 'node:crypto';
import { readFile, writeFile, chmod } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { makeDirectory } from '../../backends/make-directory.js';

// The library's types name the DOM's Crypto and CryptoKey, which this Node project does not load; Node's webcrypto
// objects are those at run time.
type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
type X509Key = x509.X509CertificateCreateWithKeyParams['signingKey'];
type X509KeyPair = x509.X509CertificateCreateSelfSignedParams['keys'];

x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);

export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
export const SERVING_CERT_FILE = 'apiserver.crt';
export const SERVING_KEY_FILE = 'apiserver.key';

const EC_PARAMS = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const CA_VALIDITY_DAYS = 3650;
const SERVING_VALIDITY_DAYS = 365;
const RENEW_BEFORE_DAYS = 30;

export interface ServingCertificates {
  certPem: string;
  keyPem: string;
  /** PEM the clients should trust (kubeconfig certificate-authority-data). */
  caPem: string;
  certFile: string;
  keyFile: string;
  /** Where caPem lives when generated; undefined for operator-supplied certificates. */
  caFile?: string;
  /** What happened on this start, for the start-up log. */
  action: 'provided' | 'generated' | 'reused' | 'reissued';
}

export interface CertificateOptions {
  certDir: string;
  bindAddress: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** Extra SANs (DNS names or IPs). */
  extraNames?: string[];
  now?: () => Date;
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

async function writeSecret(file: string, content: string): Promise<void> {
  await writeFile(file, content, { mode: 0o600 });
  // writeFile's mode applies only when the file is created.
  await chmod(file, 0o600);
}

function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  return bytes.toString('hex');
}

function isUnspecified(address: string): boolean {
  return address === '0.0.0.0' || address === '::';
}

/** The names the serving certificate must carry. */
export function requiredNames(bindAddress: string, extra: string[] = []): { dns: string[]; ips: string[] } {
  const names = ['localhost', '127.0.0.1', '::1', os.hostname(), ...extra];
  if (!isUnspecified(bindAddress)) names.push(bindAddress);
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const n of names) {
    if (!n) continue;
    if (net.isIP(n)) ips.add(n);
    else dns.add(n.toLowerCase());
  }
  return { dns: [...dns], ips: [...ips] };
}

async function exportKeyPem(key: X509Key): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importSigningKey(pem: string): Promise<X509Key> {
  // Node parses any PEM flavour (SEC1 or PKCS#8); webcrypto wants PKCS#8 DER.
  const der = createPrivateKey(pem).export({ format: 'der', type: 'pkcs8' });
  return await webcrypto.subtle.importKey('pkcs8', der, EC_PARAMS, true, ['sign']);
}

async function generateCa(now: Date): Promise<{ certPem: string; keyPem: string }> {
  const keys = (await webcrypto.subtle.generateKey(EC_PARAMS, true, ['sign', 'verify'])) as unknown as X509KeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(),
    name: 'CN=gatehouse-ca',
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + CA_VALIDITY_DAYS * DAY_MS),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

async function issueServing(caCertPem: string, caKeyPem: string, names: { dns: string[]; ips: string[] }, now: Date) {
  const caCert = new x509.X509Certificate(caCertPem);
  const caKey = await importSigningKey(caKeyPem);
  const keys = (await webcrypto.subtle.generateKey(EC_PARAMS, true, ['sign', 'verify'])) as unknown as X509KeyPair;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: 'CN=gatehouse-apiserver',
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter: new Date(now.getTime() + SERVING_VALIDITY_DAYS * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names.dns.map((value) => ({ type: 'dns' as const, value })),
        ...names.ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

function normalizeIp(ip: string): string {
  return net.isIPv6(ip) ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : ip;
}

/** Whether an existing serving certificate is still good: signed by the CA, matches its key, fresh, names all. */
function servingStillValid(
  certPem: string,
  keyPem: string,
  caPem: string,
  names: { dns: string[]; ips: string[] },
  now: Date,
): boolean {
  try {
    const cert = new NodeX509(certPem);
    const ca = new NodeX509(caPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return false;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    const san = (cert.subjectAltName ?? '').split(',').map((s) => s.trim());
    const dns = new Set(san.filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4).toLowerCase()));
    const ips = new Set(san.filter((s) => s.startsWith('IP Address:')).map((s) => normalizeIp(s.slice(11))));
    return names.dns.every((n) => dns.has(n)) && names.ips.every((n) => ips.has(normalizeIp(n)));
  } catch {
    return false;
  }
}

export async function loadOrCreateCertificates(opts: CertificateOptions): Promise<ServingCertificates> {
  const now = (opts.now ?? (() => new Date()))();
  if (opts.tlsCertFile && opts.tlsPrivateKeyFile) {
    const [certPem, keyPem] = await Promise.all([
      readFile(opts.tlsCertFile, 'utf8'),
      readFile(opts.tlsPrivateKeyFile, 'utf8'),
    ]);
    const leaf = new NodeX509(certPem);
    if (!leaf.checkPrivateKey(createPrivateKey(keyPem))) {
      throw new Error(
        `--tls-private-key-file ${opts.tlsPrivateKeyFile} does not match --tls-cert-file ${opts.tlsCertFile}`,
      );
    }
    // With operator-supplied certificates the file itself (leaf plus any chain) is what clients are told to trust.
    return {
      certPem,
      keyPem,
      caPem: certPem,
      certFile: opts.tlsCertFile,
      keyFile: opts.tlsPrivateKeyFile,
      action: 'provided',
    };
  }

  const dir = opts.certDir;
  await makeDirectory(dir, 0o700);
  const file = (name: string) => path.join(dir, name);
  const names = requiredNames(opts.bindAddress, opts.extraNames);

  let caPem = await readIfExists(file(CA_CERT_FILE));
  let caKeyPem = await readIfExists(file(CA_KEY_FILE));
  let action: ServingCertificates['action'] = 'reused';
  if (!caPem || !caKeyPem) {
    ({ certPem: caPem, keyPem: caKeyPem } = await generateCa(now));
    await writeFile(file(CA_CERT_FILE), caPem, { mode: 0o644 });
    await writeSecret(file(CA_KEY_FILE), caKeyPem);
    action = 'generated';
  }

  let certPem = await readIfExists(file(SERVING_CERT_FILE));
  let keyPem = await readIfExists(file(SERVING_KEY_FILE));
  if (!certPem || !keyPem || !servingStillValid(certPem, keyPem, caPem, names, now)) {
    ({ certPem, keyPem } = await issueServing(caPem, caKeyPem, names, now));
    await writeFile(file(SERVING_CERT_FILE), certPem, { mode: 0o644 });
    await writeSecret(file(SERVING_KEY_FILE), keyPem);
    if (action === 'reused') action = 'reissued';
  }

  return {
    certPem,
    keyPem,
    caPem,
    certFile: file(SERVING_CERT_FILE),
    keyFile: file(SERVING_KEY_FILE),
    caFile: file(CA_CERT_FILE),
    action,
  };
}
