// A real OpenID provider for tests: an HTTPS server (node:https, certificate from its own test CA) on a free loopback
// port that serves the discovery document and the key set, and mints ID tokens with jose. Keys can be rotated, the
// server stopped and started again on the same port (an issuer outage), and requests are counted.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import https from 'node:https';
import { randomBytes, webcrypto } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { makeCA, type CertificateAuthority } from './pki.js';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export interface MintOptions {
  /** Default: the issuer's current key. */
  key?: SigningKey;
  /** Overrides the header kid (e.g. to sign with a key the issuer never published under that id). */
  kid?: string;
  /** Seconds from now; default 600. `null` leaves exp out. */
  expiresIn?: number | null;
}

export interface TestIssuer {
  /** The issuer identifier (with a path, as many providers have). */
  url: string;
  caPem: string;
  /** The CA bundle as a file, for --oidc-ca-file. */
  caFile: string;
  /** The key new tokens are signed with. */
  currentKey: SigningKey;
  requests: { discovery: number; jwks: number };
  /** A signed ID token; iss, iat and exp are filled in unless given. */
  mint(claims: JWTPayload, opts?: MintOptions): Promise<string>;
  /** A fresh key with a new kid; published (alone unless keepOld) and used for new tokens from now on. */
  rotate(opts?: { keepOld?: boolean; alg?: 'RS256' | 'ES256' }): Promise<SigningKey>;
  /** A key this issuer never publishes (a forger's). */
  foreignKey(alg?: 'RS256' | 'ES256'): Promise<SigningKey>;
  /** Adds a published key without making it current. */
  publish(key: SigningKey): void;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

type X509Crypto = Parameters<typeof x509.cryptoProvider.set>[0];
x509.cryptoProvider.set(webcrypto as unknown as X509Crypto);

async function serverCertificate(ca: CertificateAuthority): Promise<{ cert: string; key: string }> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256' } as const;
  const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomBytes(8)
      .toString('hex')
      .replace(/^[89a-f]/, '1'),
    subject: [{ CN: ['127.0.0.1'] }],
    issuer: ca.cert.subjectName,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    publicKey: keys.publicKey as never,
    signingKey: ca.privateKey,
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
    ],
  });
  const der = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(der, 'PRIVATE KEY') };
}

let kidSeq = 0;

export async function makeSigningKey(alg: 'RS256' | 'ES256' = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const kid = `key-${process.pid}-${++kidSeq}`;
  return { kid, alg, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

export async function createTestIssuer(opts: { path?: string } = {}): Promise<TestIssuer> {
  const ca = await makeCA('test-oidc-ca');
  const tls = await serverCertificate(ca);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'gatehouse-oidc-'));
  const caFile = path.join(dir, 'oidc-ca.pem');
  await writeFile(caFile, ca.certPem);
  let published: SigningKey[] = [await makeSigningKey()];
  const requests = { discovery: 0, jwks: 0 };
  let port = 0;
  let url = '';
  const issuerPath = opts.path ?? '/realms/test';

  const server = https.createServer({ cert: tls.cert, key: tls.key }, (req, res) => {
    const send = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === `${issuerPath}/.well-known/openid-configuration`) {
      requests.discovery++;
      send({ issuer: url, jwks_uri: `${url}/keys`, id_token_signing_alg_values_supported: ['RS256', 'ES256'] });
    } else if (req.url === `${issuerPath}/keys`) {
      requests.jwks++;
      send({ keys: published.map((k) => k.publicJwk) });
    } else {
      res.writeHead(404).end();
    }
  });
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  await listen();
  url = `https://127.0.0.1:${port}${issuerPath}`;

  const issuer: TestIssuer = {
    url,
    caPem: ca.certPem,
    caFile,
    currentKey: published[0],
    requests,
    async mint(claims, mintOpts = {}) {
      const key = mintOpts.key ?? issuer.currentKey;
      const now = Math.floor(Date.now() / 1000);
      const payload: JWTPayload = { iss: url, iat: now, ...claims };
      const expiresIn = mintOpts.expiresIn === undefined ? 600 : mintOpts.expiresIn;
      if (expiresIn !== null && payload.exp === undefined) payload.exp = now + expiresIn;
      return new SignJWT(payload)
        .setProtectedHeader({ alg: key.alg, kid: mintOpts.kid ?? key.kid, typ: 'JWT' })
        .sign(key.privateKey);
    },
    async rotate(rotateOpts = {}) {
      const key = await makeSigningKey(rotateOpts.alg);
      published = rotateOpts.keepOld ? [...published, key] : [key];
      issuer.currentKey = key;
      return key;
    },
    foreignKey: (alg) => makeSigningKey(alg),
    publish(key) {
      published = [...published, key];
    },
    stop,
    start: listen,
    async close() {
      if (server.listening) await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return issuer;
}
