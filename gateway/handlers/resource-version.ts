// The spec's resourceVersion tables for get, list and watch, resolved once into the storage's ReadRevision. Every
// combination the tables mark invalid is a 400 naming the parameter.
import { errors } from '../../api/meta/errors.js';
import type { ReadRevision } from '../../backends/storage.js';

export function parseRevision(value: string, param = 'resourceVersion'): bigint {
  if (!/^\d+$/.test(value) || value.length > 19) throw errors.badRequest(`invalid resource version: ${param}: Invalid value: ${JSON.stringify(value)}: must be a decimal resource version`);
  return BigInt(value);
}

function flag(q: URLSearchParams, name: string): boolean | undefined {
  const v = q.get(name);
  if (v === null) return undefined;
  if (v === '' || v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  throw errors.badRequest(`${name}: Invalid value: ${JSON.stringify(v)}: must be a boolean`);
}

export function parseLimit(q: URLSearchParams): number {
  const v = q.get('limit');
  if (v === null || v === '') return 0;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`limit: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  const n = Number(v);
  return n > 0 ? n : 0;
}

type Match = '' | 'Exact' | 'NotOlderThan';

function parseMatch(q: URLSearchParams): Match {
  const v = q.get('resourceVersionMatch') ?? '';
  if (v === '' || v === 'Exact' || v === 'NotOlderThan') return v;
  throw errors.badRequest(`resourceVersionMatch: Unsupported value: ${JSON.stringify(v)}: supported values: "Exact", "NotOlderThan", ""`);
}

export function getRead(q: URLSearchParams): ReadRevision {
  const rv = q.get('resourceVersion') ?? '';
  if (rv === '') return { match: 'latest' };
  if (rv === '0') return { match: 'any' };
  return { match: 'notOlderThan', revision: parseRevision(rv) };
}

export interface ListRead {
  read: ReadRevision;
  limit: number;
  continue?: string;
}

export function listRead(q: URLSearchParams): ListRead {
  const rv = q.get('resourceVersion') ?? '';
  const match = parseMatch(q);
  const limit = parseLimit(q);
  const token = q.get('continue') ?? '';
  if (flag(q, 'sendInitialEvents') !== undefined) throw errors.badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  if (token) {
    if (match) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv !== '' && rv !== '0') throw errors.badRequest('specifying resource version is not allowed when using continue');
    return { read: { match: 'latest' }, limit, continue: token };
  }
  if (match && rv === '') throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  if (match === 'Exact' && rv === '0') throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
  if (rv === '') return { read: { match: 'latest' }, limit };
  if (rv === '0') return { read: { match: 'any' }, limit };
  const revision = parseRevision(rv);
  if (match === 'Exact' || (match === '' && limit > 0)) return { read: { match: 'exact', revision }, limit };
  return { read: { match: 'notOlderThan', revision }, limit };
}

export type WatchStart =
  /** Synthetic ADDED events for the state read at `read`, then changes after it. */
  | { kind: 'initial-state'; read: ReadRevision; bookmarkAfterInitial: boolean }
  /** Changes after `revision` only. */
  | { kind: 'from'; revision: bigint }
  /** Changes after the newest revision only. */
  | { kind: 'now' };

export interface WatchParams {
  start: WatchStart;
  allowBookmarks: boolean;
  timeoutSeconds?: number;
}

export function watchParams(q: URLSearchParams): WatchParams {
  const rv = q.get('resourceVersion') ?? '';
  const match = parseMatch(q);
  const sendInitialEvents = flag(q, 'sendInitialEvents');
  const allowBookmarks = flag(q, 'allowWatchBookmarks') ?? false;
  let timeoutSeconds: number | undefined;
  const t = q.get('timeoutSeconds');
  if (t !== null && t !== '') {
    if (!/^\d+$/.test(t)) throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(t)}: must be a non-negative integer`);
    timeoutSeconds = Number(t);
  }
  if (q.get('continue')) throw errors.badRequest('continue: Forbidden: continue is not supported for watch');

  if (sendInitialEvents !== undefined) {
    if (match !== 'NotOlderThan') throw errors.badRequest('resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan');
    if (!sendInitialEvents) {
      return { start: rv === '' || rv === '0' ? { kind: 'now' } : { kind: 'from', revision: parseRevision(rv) }, allowBookmarks, timeoutSeconds };
    }
    const read: ReadRevision = rv === '' ? { match: 'latest' } : rv === '0' ? { match: 'any' } : { match: 'notOlderThan', revision: parseRevision(rv) };
    return { start: { kind: 'initial-state', read, bookmarkAfterInitial: allowBookmarks }, allowBookmarks, timeoutSeconds };
  }
  if (match) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
  if (rv === '') return { start: { kind: 'initial-state', read: { match: 'latest' }, bookmarkAfterInitial: false }, allowBookmarks, timeoutSeconds };
  if (rv === '0') return { start: { kind: 'initial-state', read: { match: 'any' }, bookmarkAfterInitial: false }, allowBookmarks, timeoutSeconds };
  return { start: { kind: 'from', revision: parseRevision(rv) }, allowBookmarks, timeoutSeconds };
}
