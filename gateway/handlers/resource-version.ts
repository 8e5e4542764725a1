// The spec's resourceVersion tables for get, list and watch, resolved once into the storage's ReadRevision. The
// combinations the tables mark invalid are a 422 naming ListOptions and the parameter, as kube-apiserver validates
// the options; malformed numbers are a 400.
import { errors, type StatusError } from '../../api/meta/errors.js';
import { fieldErrors, type FieldError } from '../../api/meta/field-errors.js';
import type { ReadRevision } from '../../backends/storage.js';
import { queryBool } from '../request/request-info.js';

export function parseRevision(value: string, param = 'resourceVersion'): bigint {
  if (!/^\d+$/.test(value) || value.length > 19)
    throw errors.badRequest(
      `invalid resource version: ${param}: Invalid value: ${JSON.stringify(value)}: must be a decimal resource version`,
    );
  return BigInt(value);
}

function invalidListOptions(errs: FieldError[]): StatusError {
  return errors.invalid('ListOptions', 'meta.k8s.io', '', errs);
}

export function parseLimit(q: URLSearchParams): number {
  const v = q.get('limit');
  if (v === null || v === '') return 0;
  if (!/^-?\d+$/.test(v)) throw errors.badRequest(`limit: Invalid value: ${JSON.stringify(v)}: must be an integer`);
  const n = Number(v);
  return n > 0 ? n : 0;
}

/** The rules on resourceVersionMatch, continue and sendInitialEvents for a list (and a deletecollection). */
function listOptionErrors(
  rv: string,
  match: string,
  token: string,
  sendInitialEvents: boolean | undefined,
): FieldError[] {
  const errs: FieldError[] = [];
  if (match !== '') {
    if (rv === '')
      errs.push(
        fieldErrors.forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    if (token !== '')
      errs.push(
        fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
    if (match !== 'Exact' && match !== 'NotOlderThan')
      errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && rv === '0')
      errs.push(
        fieldErrors.forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
  }
  if (sendInitialEvents !== undefined)
    errs.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  return errs;
}

/** The same rules for a watch, where sendInitialEvents and resourceVersionMatch go together. */
function watchOptionErrors(match: string, token: string, sendInitialEvents: boolean | undefined): FieldError[] {
  const errs: FieldError[] = [];
  if (sendInitialEvents !== undefined && match !== 'NotOlderThan') {
    errs.push(
      fieldErrors.forbidden(
        'resourceVersionMatch',
        'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
      ),
    );
  }
  if (match !== '') {
    if (sendInitialEvents === undefined)
      errs.push(
        fieldErrors.forbidden(
          'resourceVersionMatch',
          'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
        ),
      );
    if (match !== 'NotOlderThan') errs.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (token !== '')
      errs.push(
        fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'),
      );
  }
  return errs;
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
  const match = q.get('resourceVersionMatch') ?? '';
  const token = q.get('continue') ?? '';
  const errs = listOptionErrors(rv, match, token, queryBool(q, 'sendInitialEvents'));
  if (errs.length > 0) throw invalidListOptions(errs);
  const limit = parseLimit(q);
  if (token) {
    if (rv !== '' && rv !== '0')
      throw errors.badRequest('specifying resource version is not allowed when using continue');
    return { read: { match: 'latest' }, limit, continue: token };
  }
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
  const match = q.get('resourceVersionMatch') ?? '';
  const token = q.get('continue') ?? '';
  const sendInitialEvents = queryBool(q, 'sendInitialEvents');
  const errs = watchOptionErrors(match, token, sendInitialEvents);
  if (errs.length > 0) throw invalidListOptions(errs);
  const allowBookmarks = queryBool(q, 'allowWatchBookmarks') ?? false;
  let timeoutSeconds: number | undefined;
  const t = q.get('timeoutSeconds');
  if (t !== null && t !== '') {
    if (!/^\d+$/.test(t))
      throw errors.badRequest(`timeoutSeconds: Invalid value: ${JSON.stringify(t)}: must be a non-negative integer`);
    timeoutSeconds = Number(t);
  }
  if (token) throw errors.badRequest('continue: Forbidden: continue is not supported for watch');

  if (sendInitialEvents !== undefined) {
    if (!sendInitialEvents) {
      return {
        start: rv === '' || rv === '0' ? { kind: 'now' } : { kind: 'from', revision: parseRevision(rv) },
        allowBookmarks,
        timeoutSeconds,
      };
    }
    const read: ReadRevision =
      rv === ''
        ? { match: 'latest' }
        : rv === '0'
          ? { match: 'any' }
          : { match: 'notOlderThan', revision: parseRevision(rv) };
    return {
      start: { kind: 'initial-state', read, bookmarkAfterInitial: allowBookmarks },
      allowBookmarks,
      timeoutSeconds,
    };
  }
  if (rv === '')
    return {
      start: { kind: 'initial-state', read: { match: 'latest' }, bookmarkAfterInitial: false },
      allowBookmarks,
      timeoutSeconds,
    };
  if (rv === '0')
    return {
      start: { kind: 'initial-state', read: { match: 'any' }, bookmarkAfterInitial: false },
      allowBookmarks,
      timeoutSeconds,
    };
  return { start: { kind: 'from', revision: parseRevision(rv) }, allowBookmarks, timeoutSeconds };
}
