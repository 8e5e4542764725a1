// How this server's keys join what `extension-apiserver-authentication` already holds, as kube-apiserver's cluster
// authentication trust controller combines them: several servers (replicas mid-rotation, other control planes
// sharing the storage) write the one map, and an aggregated server must trust every one of them. The CA bundles
// become the certificates already there followed by ours, each once (by its DER bytes), without those that expired
// more than five minutes ago; the header-name and allowed-name lists become the names already there followed by ours,
// each once. A certificate therefore stays until it expires, and a name until someone removes it while no server
// still configures it.
import { X509Certificate } from 'node:crypto';
import { parseCaBundle } from '../authn/client-cert.js';

const CA_KEYS = ['client-ca-file', 'requestheader-client-ca-file'] as const;
const LIST_KEYS = [
  'requestheader-username-headers',
  'requestheader-group-headers',
  'requestheader-extra-headers-prefix',
  'requestheader-allowed-names',
] as const;
// Upstream's slack: a certificate that has just expired may still be presented by a server whose clock is behind.
const EXPIRY_SLACK_MS = 5 * 60_000;

export interface MergedAuthenticationInfo {
  /** The keys to write: ours, each merged with what the map holds under it. */
  data: Record<string, string>;
  /** Values in the map that did not parse, left out of the merge (and replaced by ours). */
  warnings: string[];
}

function mergeBundles(existing: string[], ours: string[], now: number): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const pem of [...existing, ...ours]) {
    const cert = new X509Certificate(pem);
    if (Date.parse(cert.validTo) <= now - EXPIRY_SLACK_MS) continue;
    const der = cert.raw.toString('base64');
    if (seen.has(der)) continue;
    seen.add(der);
    kept.push(pem);
  }
  return kept.join('');
}

function parseList(value: string): string[] {
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || !parsed.every((v) => typeof v === 'string'))
    throw new Error('not a JSON array of strings');
  return parsed;
}

export function mergeAuthenticationInfo(
  existing: Record<string, unknown>,
  ours: Record<string, string>,
  now: number,
): MergedAuthenticationInfo {
  const data: Record<string, string> = { ...ours };
  const warnings: string[] = [];
  /** What the map holds under `key`, parsed; nothing when absent, and nothing with a warning when it does not parse. */
  const existingEntries = (key: string, parse: (value: string) => string[], what: string): string[] => {
    const value = existing[key];
    if (typeof value !== 'string' || value === '') return [];
    try {
      return parse(value);
    } catch (e) {
      warnings.push(`${key}: ${what} there does not parse, replacing it: ${(e as Error).message}`);
      return [];
    }
  };
  for (const key of CA_KEYS) {
    if (ours[key] === undefined) continue;
    let mine: string[];
    try {
      mine = parseCaBundle(ours[key]);
    } catch {
      // Start-up checked our files; one changed since into something else is written as it is, not merged.
      continue;
    }
    data[key] = mergeBundles(existingEntries(key, parseCaBundle, 'the bundle'), mine, now);
  }
  for (const key of LIST_KEYS) {
    if (ours[key] === undefined) continue;
    const theirs = existingEntries(key, parseList, 'the value');
    data[key] = JSON.stringify([...new Set([...theirs, ...parseList(ours[key])])]);
  }
  return { data, warnings };
}
