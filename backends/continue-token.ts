// Continue tokens for paged lists, shared by every backend so a token's shape does not depend on where it was minted.
// The format is kube-apiserver's: unpadded base64url of {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key>"},
// where `start` is the first key of the next page relative to the list prefix. Keeping it relative means a client
// cannot craft a token that ranges outside the prefix it lists.
import { StorageError } from './storage.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export interface ContinuePosition {
  /** Absolute key the next page starts at (inclusive). */
  start: string;
  /** Snapshot revision every page of the list is read at. */
  revision: bigint;
}

/**
 * Token for the page starting at `nextKey` of a list over `prefix` read at `revision`. Backends pass the last
 * returned key followed by "\u0000", the smallest key sorting after it.
 */
export function encodeContinue(nextKey: string, prefix: string, revision: bigint): string {
  if (!nextKey.startsWith(prefix) || nextKey.length === prefix.length) {
    throw new StorageError(
      'Internal',
      `continue key ${JSON.stringify(nextKey)} is not under prefix ${JSON.stringify(prefix)}`,
      nextKey,
    );
  }
  // Written by hand so a revision beyond 2^53 keeps every digit.
  const json = `{"v":${JSON.stringify(TOKEN_VERSION)},"rv":${revision.toString()},"start":${JSON.stringify(nextKey.slice(prefix.length))}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

function invalid(message: string): StorageError {
  return new StorageError('InvalidContinue', `continue key is not valid: ${message}`);
}

/**
 * Decodes a token for a list over `prefix`. InvalidContinue when malformed; Expired when `oldestRevision` (the
 * backend's compacted revision) is given and the token's snapshot is older, as the snapshot can no longer be read.
 */
export function decodeContinue(token: string, prefix: string, oldestRevision?: bigint): ContinuePosition {
  if (!BASE64.test(token)) throw invalid('not base64');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('not an object');
  const { v, rv, start } = parsed as Record<string, unknown>;
  if (v !== TOKEN_VERSION) throw invalid(`unsupported version ${JSON.stringify(v)}`);
  if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0)
    throw invalid('incorrect encoded start resourceVersion');
  if (typeof start !== 'string' || start === '') throw invalid('encoded start key empty');
  // Same defence as kube's path.Clean check: no segment may climb out of, or alias, the listed prefix.
  if (start.startsWith('/') || start.split('/').some((s) => s === '' || s === '.' || s === '..')) throw invalid(start);
  const revision = BigInt(rv);
  if (oldestRevision !== undefined && revision < oldestRevision) {
    throw new StorageError(
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
      prefix + start,
      revision,
    );
  }
  return { start: prefix + start, revision };
}
