// Key material of service-account tokens, read once at start-up.
//
// Verification keys: every RSA or ECDSA key (private keys count by their public half, certificates by their key) in
// the --service-account-key-file files; without that flag, the --tls-private-key-file key, as kube-apiserver does;
// and when Gatehouse generated its own serving certificate too, a key generated once into <cert-dir>/sa.key so
// that issued tokens survive restarts. The signing key: --service-account-signing-key-file, else the first private
// key among the verification keys' sources (upstream requires the flag; a bare start should still issue tokens).
// A file that cannot be read or holds no usable key is an OptionsError naming the flag and the file.
// The generated key sits next to the generated CA: replicas that share the CA (one cert dir, or the same
// --tls-* files) share their service-account keys the same way, so each verifies the others' tokens.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invalid } from '../server/flag-primitives.js';
import type { ServiceAccountOptions } from '../server/service-account-options.js';
import { makeDirectory } from '../../backends/make-directory.js';

export type JwsAlgorithm = 'RS256' | 'ES256' | 'ES384' | 'ES512';

export interface ServiceAccountKey {
  /** base64url(SHA-256(DER SubjectPublicKeyInfo)): the `kid` header upstream derives the same way. */
  kid: string;
  alg: JwsAlgorithm;
  key: KeyObject;
}

export interface ServiceAccountKeys {
  /** Public keys; a token verifies when one of them checks its signature. Empty: service-account tokens are off. */
  verification: ServiceAccountKey[];
  /** Private key issuing TokenRequests; undefined when none is available (the subresource then answers 404). */
  signing?: ServiceAccountKey;
}

export const GENERATED_SA_KEY_FILE = 'sa.key';

const EC_ALGORITHMS: Record<string, JwsAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/** jose (rightly) refuses RS256 with shorter moduli, so such a key could neither sign nor verify. */
const MIN_RSA_BITS = 2048;

/**
 * The JWS algorithm for a key, or undefined for keys service-account tokens cannot use (Ed25519, RSA-PSS, RSA below
 * 2048 bits, curves other than P-256/384/521).
 */
export function algorithmFor(key: KeyObject): JwsAlgorithm | undefined {
  if (key.asymmetricKeyType === 'rsa')
    return (key.asymmetricKeyDetails?.modulusLength ?? 0) >= MIN_RSA_BITS ? 'RS256' : undefined;
  if (key.asymmetricKeyType === 'ec') return EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

export function keyId(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url');
}

function describe(key: KeyObject): ServiceAccountKey | undefined {
  const alg = algorithmFor(key);
  if (!alg) return undefined;
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return { kid: keyId(pub), alg, key };
}

export interface ParsedPem {
  /** Public keys of every usable block, in file order (private keys and certificates contribute theirs). */
  publicKeys: ServiceAccountKey[];
  /** The usable private keys, in file order. */
  privateKeys: ServiceAccountKey[];
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * Every PEM block of a file, as upstream's keyutil reads it: blocks of other types, unparsable blocks and keys of
 * unsupported types are skipped; the caller decides whether finding nothing is an error.
 */
export function parsePemKeys(text: string): ParsedPem {
  const out: ParsedPem = { publicKeys: [], privateKeys: [] };
  for (const match of text.matchAll(PEM_BLOCK)) {
    const [block, type] = match;
    let key: ServiceAccountKey | undefined;
    try {
      if (type === 'CERTIFICATE') key = describe(new X509Certificate(block).publicKey);
      else if (type === 'PUBLIC KEY' || type === 'RSA PUBLIC KEY') key = describe(createPublicKey(block));
      else if (type === 'PRIVATE KEY' || type === 'RSA PRIVATE KEY' || type === 'EC PRIVATE KEY')
        key = describe(createPrivateKey(block));
    } catch {
      key = undefined;
    }
    if (!key) continue;
    if (key.key.type === 'private') {
      out.privateKeys.push(key);
      out.publicKeys.push({ ...key, key: createPublicKey(key.key) });
    } else {
      out.publicKeys.push(key);
    }
  }
  return out;
}

async function readFlagFile(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    throw invalid(flag, file, `cannot read the file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function loadOrCreateGeneratedKey(certDir: string): Promise<ParsedPem> {
  const file = path.join(certDir, GENERATED_SA_KEY_FILE);
  let text: string | undefined;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text === undefined) {
    // ECDSA P-256 (ES256), as the generated serving certificates: instant to generate, accepted by every JWT verifier.
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    text = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    await makeDirectory(certDir, 0o700);
    try {
      await writeFile(file, text, { mode: 0o600, flag: 'wx' });
    } catch (e) {
      // Another replica sharing the directory wrote it first: use theirs, so that both verify each other's tokens.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      text = await readFile(file, 'utf8');
    }
  }
  const parsed = parsePemKeys(text);
  if (parsed.privateKeys.length === 0)
    throw new Error(`${file}: not an RSA or ECDSA private key; remove it to have a new one generated`);
  return parsed;
}

export interface KeySources {
  tlsPrivateKeyFile?: string;
  /** Where the generated key lives when neither key files nor a TLS key are given. */
  certDir: string;
  log?: (line: string) => void;
}

export async function loadServiceAccountKeys(
  opts: ServiceAccountOptions,
  sources: KeySources,
): Promise<ServiceAccountKeys> {
  const verification: ServiceAccountKey[] = [];
  const candidates: ServiceAccountKey[] = [];
  if (opts.keyFiles.length > 0) {
    for (const file of opts.keyFiles) {
      const parsed = parsePemKeys(await readFlagFile('service-account-key-file', file));
      if (parsed.publicKeys.length === 0) {
        throw invalid(
          'service-account-key-file',
          file,
          'data does not contain any valid RSA (2048 bits or more) or ECDSA (P-256, P-384, P-521) public keys',
        );
      }
      verification.push(...parsed.publicKeys);
      candidates.push(...parsed.privateKeys);
    }
  } else if (sources.tlsPrivateKeyFile) {
    const parsed = parsePemKeys(await readFlagFile('tls-private-key-file', sources.tlsPrivateKeyFile));
    if (parsed.privateKeys.length === 0) {
      // kube-apiserver's behaviour: a serving key of another type just leaves service-account tokens off.
      sources.log?.(
        'warning: --tls-private-key-file is not an RSA or ECDSA key and no --service-account-key-file was given: service-account token authentication is disabled',
      );
    }
    verification.push(...parsed.publicKeys);
    candidates.push(...parsed.privateKeys);
  } else {
    const parsed = await loadOrCreateGeneratedKey(sources.certDir);
    verification.push(...parsed.publicKeys);
    candidates.push(...parsed.privateKeys);
  }

  let signing = candidates[0];
  if (opts.signingKeyFile) {
    const parsed = parsePemKeys(await readFlagFile('service-account-signing-key-file', opts.signingKeyFile));
    if (parsed.privateKeys.length === 0) {
      throw invalid(
        'service-account-signing-key-file',
        opts.signingKeyFile,
        'data does not contain a valid RSA (2048 bits or more) or ECDSA (P-256, P-384, P-521) private key',
      );
    }
    signing = parsed.privateKeys[0];
    // Tokens this server issues must verify here even when the key files leave the signing key out.
    if (!verification.some((k) => k.kid === signing.kid))
      verification.push({ ...signing, key: createPublicKey(signing.key) });
  } else if (!signing && verification.length > 0) {
    sources.log?.(
      'warning: no private key among the service-account keys and no --service-account-signing-key-file: tokens are verified but not issued',
    );
  }
  return { verification, signing };
}
